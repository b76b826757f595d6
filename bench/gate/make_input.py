"""Writes a C file of N functions (default 120) to stdout, the input of
bench/gate/calibrate.sh: loops, branches, arrays and calls, enough for every
pass of an -O2 pipeline to have work, the same text for the same N."""
import sys

N = int(sys.argv[1]) if len(sys.argv) > 1 else 120
out = ["#include <stddef.h>", "", "struct cell { double x, y, v; int tag; };", ""]
for i in range(N):
    k = i % 7 + 2
    out.append(f"""double work_{i}(struct cell *cells, size_t n, const int *keys, double scale) {{
  double acc = {i}.5;
  for (size_t j = 0; j < n; ++j) {{
    struct cell *c = &cells[j];
    switch ((keys[j] + {i}) % {k}) {{
      case 0: c->x += scale * c->v; break;
      case 1: c->y -= c->x * {k}.0; break;
      default: c->v = c->v * 0.5 + c->y; break;
    }}
    if (c->tag > {i % 13}) acc += c->x * c->y - c->v;
    else acc -= c->v / (1.0 + j);
    for (int r = 0; r < {k}; ++r) acc += (double)(keys[(j + r) % n] & {i % 31 + 1});
  }}
  return acc{" + work_%d(cells, n / 2, keys, scale * 0.5)" % (i - 1) if i else ""};
}}
""")
out.append("double run_all(struct cell *cells, size_t n, const int *keys) {")
out.append("  double total = 0;")
for i in range(N):
    out.append(f"  total += work_{i}(cells, n, keys, {i + 1}.0);")
out.append("  return total;")
out.append("}")
sys.stdout.write("\n".join(out) + "\n")
