"""Synthetic profiles in the writer's layout (docs/profile-format.md), for
volume: the fleet's tests and benchmarks push hundreds of thousands of
records that no quick real compile makes."""

import json

PASSES = ["InstCombinePass", "SROAPass", "GVNPass", "LICMPass", "SimplifyCFGPass",
          "EarlyCSEPass", "LoopUnrollPass", "InlinerPass", "DCEPass", "ReassociatePass"]


def write_profile(path, records, sections=1, pid=4242, start_time="2025-03-04T05:06:07Z",
                  command="synthetic --records"):
    """A profile in the writer's layout (one record per line): `records`
    records over `sections` sections, each pass nested in one of depth 0."""
    with open(path, "w") as f:
        metadata = {"tool": "passtiming 0.1.0", "command": command, "host": "fleet-test",
                    "start_time": start_time, "pid": pid}
        f.write('{"format":"passtiming-profile","version":1,\n"metadata":'
                + json.dumps(metadata, separators=(",", ":")) + ',\n"sections":[\n')
        per = records // sections
        for s in range(sections):
            f.write('{"context":"stage=synthetic, part=%d","skipped":0,"threads":[0],'
                    '"records":[\n' % s)
            lines = []
            for i in range(per):
                # Pairs: child 2k+1 inside parent 2k; a child completes first.
                parent = i - 1 if i % 2 else None
                depth = 1 if i % 2 else 0
                self_ns = 500 + i % 7
                lines.append(
                    '{"name":"%s","kernel":"k%d","depth":%d,"sequence":%d,"parent":%s,'
                    '"thread":0,"start_ns":%d,"inclusive_ns":%d,"self_ns":%d}'
                    % (PASSES[i % len(PASSES)], i % 97, depth, i,
                       "null" if parent is None else parent, 1000 * i, self_ns, self_ns))
            f.write(",\n".join(lines) + "]}" + ("," if s + 1 < sections else "") + "\n")
        f.write("]}\n")
    return path
