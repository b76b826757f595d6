#!/usr/bin/env bash
# How much of a real clang compile `passtiming run --phases` accounts for:
# `clang-19 -O2 -c` of Lua's lvm.c (Lua 5.4, from the sources the PyPI
# package lupa ships in its sdist) and of the SQLite amalgamation (npm
# package better-sqlite3@12), each through `passtiming run --phases` with
# clang's own -ftime-report in the same compile. Per run it prints, side by
# side: -ftime-report's total (clang's front-end timer, the whole cc1
# invocation: CPU and wall), the profile's compile phase, the sum of its
# top-level phases, and their coverage of -ftime-report's wall and CPU
# totals and of the compile phase. With INSTRUCTIONS=1 it also counts the
# retired instructions (Valgrind's cachegrind) of the lvm.c compile with the
# plugin alone and with --phases' time trace: the cost of the time trace.
#
# Usage: bench/llvm/phase_coverage.sh [RUNS]   (default 3)
# Inputs are fetched once into bench/.inputs/ (gitignored, never committed).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/variants.sh"
RUNS="${1:-3}"
CLI="${CLI:-$ROOT/build/tools/passtiming/passtiming}"
LUA_DIR="$SQLITE_INPUTS/lupa"

fetch_lua() {
  [[ -f "$LUA_DIR/lvm.c" ]] && return 0
  mkdir -p "$SQLITE_INPUTS"
  echo "fetching the lupa 2.8 sdist from PyPI for Lua 5.4's sources" >&2
  python3 - "$SQLITE_INPUTS" <<'PY'
import json, sys, tarfile, urllib.request, io, os
dest = sys.argv[1]
meta = json.load(urllib.request.urlopen("https://pypi.org/pypi/lupa/json"))
url = next(u["url"] for u in meta["releases"]["2.8"] if u["packagetype"] == "sdist")
data = urllib.request.urlopen(url).read()
with tarfile.open(fileobj=io.BytesIO(data)) as tar:
    members = [m for m in tar.getmembers() if "/third-party/lua54/" in m.name and m.isfile()]
    out = os.path.join(dest, "lupa")
    os.makedirs(out, exist_ok=True)
    for m in members:
        with open(os.path.join(out, os.path.basename(m.name)), "wb") as f:
            f.write(tar.extractfile(m).read())
PY
}

fetch_sqlite3
fetch_lua
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
echo "$("$CLANG" --version | head -1); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %3s %12s %12s %12s %12s %9s %9s %9s\n' input run "ftime cpu s" "ftime wall s" \
  "compile s" "phases s" "of wall" "of cpu" "of compile"
for input in "$LUA_DIR/lvm.c" "$SQLITE_SOURCE"; do
  name="$(basename "$input")"
  for ((run = 1; run <= RUNS; ++run)); do
    (cd "$(dirname "$input")" &&
      "$CLI" run --phases --no-report --quiet -o "$WORK/p.json" -- \
        "$CLANG" -O2 -c "$name" -o "$WORK/out.o" -ftime-report 2>"$WORK/ftime.txt")
    python3 - "$WORK/ftime.txt" "$WORK/p.json" "$name" "$run" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
m = re.search(r"Clang front-end time report.*?Total Execution Time: ([0-9.]+) seconds \(([0-9.]+) wall clock\)",
              text, re.S)
cpu, wall = float(m.group(1)), float(m.group(2))
p = json.load(open(sys.argv[2]))
phases = p["phases"]
root = phases[0]["duration_ns"] / 1e9
top = sum(ph["duration_ns"] for ph in phases if ph["parent"] == 0) / 1e9
print(f"{sys.argv[3]:<10} {sys.argv[4]:>3} {cpu:12.4f} {wall:12.4f} {root:12.4f} {top:12.4f}"
      f" {100 * top / wall:8.1f}% {100 * top / cpu:8.1f}% {100 * top / root:8.1f}%")
PY
  done
done
if [[ "${INSTRUCTIONS:-0}" == 1 ]]; then
  echo "retired instructions of clang-19 -O2 -c lvm.c (cachegrind):"
  for variant in plugin phases; do
    extra=()
    [[ $variant == phases ]] && extra=(-ftime-trace="$WORK/t.json" -ftime-trace-granularity=0)
    count="$(cd "$LUA_DIR" && PASSTIMING_REPORT=off valgrind --tool=cachegrind --cache-sim=no \
      --cachegrind-out-file=/dev/null "$CLANG" -fpass-plugin="$PLUGIN" -O2 -c lvm.c \
      -o "$WORK/i.o" "${extra[@]}" 2>&1 | sed -n 's/.*I *refs: *//p' | tr -d ,)"
    echo "  $variant: $count"
  done
fi
