#!/usr/bin/env bash
# How much of a passtiming-mlir-opt run its phases account for, beside MLIR's
# own -mlir-timing in the same run: the bundled tiled-matmul pipeline on the
# example (4 kernels) and on the example repeated COPIES times, threaded and
# with --mlir-disable-threading. Per run it prints, side by side:
# -mlir-timing's total wall time (its root: parse to output and "Rest"), the
# profile's compile phase, the sum of its top-level phases and their
# coverage of the compile phase, then each top-level phase beside the
# -mlir-timing row it stands for (parse ~ Parser, pipeline ~ the passes,
# output ~ Output, teardown ~ most of Rest).
#
#   bench/mlir/phase_coverage.sh [path/to/passtiming-mlir-opt] [RUNS] [COPIES]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
tool="${1:-$root/build/adapters/mlir/passtiming-mlir-opt}"
runs="${2:-3}"
copies="${3:-8}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cp "$root/examples/mlir/matmul_tiled.mlir" "$work/x1.mlir"
python3 "$root/bench/mlir/repeat_kernels.py" "$root/examples/mlir/matmul_tiled.mlir" "$copies" > "$work/x$copies.mlir"

pipeline="$(tr -d '\n' < "$root/examples/mlir/pipeline.txt")"
echo "$("$tool" --version 2>&1 | grep -m1 -i version | sed 's/^ *//'); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %-9s %3s %11s %10s %10s %8s   %s\n' input threads run "mlir-timing" "compile" \
  "phases" "of comp" "phase s (-mlir-timing s)"
for input in x1 "x$copies"; do
  for threads in on off; do
    flags=""
    [[ $threads == off ]] && flags="--mlir-disable-threading"
    for ((run = 1; run <= runs; ++run)); do
      "$tool" "$work/$input.mlir" --pass-pipeline="$pipeline" -o /dev/null $flags \
        -mlir-timing --passtiming-profile="$work/p.json" 2>"$work/err.txt"
      python3 - "$work/err.txt" "$work/p.json" "$input" "$threads" "$run" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
rows = {}
# Each row: user and wall time (the wall is the last column), then the name;
# nested rows' names are indented further and are left out.
for m in re.finditer(r"^((?: +[0-9.]+ \( *[0-9.]+%\))+)  (\S.*)$", text, re.M):
    wall = float(re.findall(r"([0-9.]+) \(", m.group(1))[-1])
    rows.setdefault(m.group(2), wall)
total = rows["Total"]
passes = sum(v for k, v in rows.items() if k not in ("Parser", "Output", "Rest", "Total"))
profile = json.load(open(sys.argv[2]))
phases = profile["phases"]
root = phases[0]["duration_ns"] / 1e9
top = [p for p in phases if p.get("parent") == 0]
covered = sum(p["duration_ns"] for p in top) / 1e9
theirs = {"parse": rows.get("Parser"), "pipeline": passes, "output": rows.get("Output"),
          "teardown": rows.get("Rest")}
detail = "  ".join(f"{p['name']} {p['duration_ns'] / 1e9:.4f} ({theirs.get(p['name'], 0):.4f})"
                   for p in top)
print(f"{sys.argv[3]:<10} {sys.argv[4]:<9} {sys.argv[5]:>3} {total:11.4f} {root:10.4f} "
      f"{covered:10.4f} {100 * covered / root:7.1f}%   {detail}")
PY
    done
  done
done
