#!/usr/bin/env bash
# The cost of timing every pass of a real compile: `clang-19 -O2 -c sqlite3.c`
# (the SQLite amalgamation as shipped in the npm package better-sqlite3@12)
# without the plugin, with the plugin (every pass recorded, JSON profile
# written) and with -ftime-report. Runs alternate between the three so that
# drift in the machine's load hits all of them alike; medians are quoted.
#
# Usage: bench/llvm/sqlite3_bench.sh [RUNS] [PLUGIN]
#   RUNS    runs per variant (default 7)
#   PLUGIN  path of libpasstiming_llvm.so (default: build/tools/passtiming/)
# The source is fetched once into bench/.inputs/ (gitignored, never committed).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
RUNS="${1:-7}"
PLUGIN="${2:-$ROOT/build/tools/passtiming/libpasstiming_llvm.so}"
CLANG="${CLANG:-clang-19}"
INPUTS="$ROOT/bench/.inputs"
SQLITE="$INPUTS/better-sqlite3/deps/sqlite3/sqlite3.c"

if [[ ! -f "$PLUGIN" ]]; then
  echo "sqlite3_bench: plugin not found at $PLUGIN (build it, or pass its path)" >&2
  exit 2
fi
if [[ ! -f "$SQLITE" ]]; then
  mkdir -p "$INPUTS"
  echo "sqlite3_bench: fetching better-sqlite3@12 with npm pack" >&2
  (cd "$INPUTS" && npm pack --silent better-sqlite3@12 >/dev/null)
  tarball="$(ls -t "$INPUTS"/better-sqlite3-12*.tgz | head -1)"
  rm -rf "$INPUTS/better-sqlite3" && mkdir -p "$INPUTS/better-sqlite3"
  tar -xzf "$tarball" -C "$INPUTS/better-sqlite3" --strip-components=1
fi
echo "input: $SQLITE ($(wc -l <"$SQLITE") lines), $("$CLANG" --version | head -1)"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
FLAGS=(-O2 -c "$SQLITE" -o "$WORK/sqlite3.o")

# Elapsed wall seconds of one compile (GNU time's %e has 10 ms resolution,
# so the shell's monotonic clock is used instead).
wall() {
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>"$WORK/stderr" || { cat "$WORK/stderr" >&2; exit 1; }
  end=$(date +%s.%N)
  echo "$start $end" | awk '{ printf "%.4f\n", $2 - $1 }'
}

: >"$WORK/base" ; : >"$WORK/plugin" ; : >"$WORK/ftime"
# One untimed warm-up of each variant (page cache, the plugin's first load).
wall "$CLANG" "${FLAGS[@]}" >/dev/null
for ((i = 0; i < RUNS; ++i)); do
  wall "$CLANG" "${FLAGS[@]}" >>"$WORK/base"
  wall env PASSTIMING_REPORT=off PASSTIMING_PROFILE="$WORK/profile.json" \
    "$CLANG" -fpass-plugin="$PLUGIN" "${FLAGS[@]}" >>"$WORK/plugin"
  wall "$CLANG" -ftime-report "${FLAGS[@]}" >>"$WORK/ftime"
done

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# Every run, so that the spread is visible next to the medians.
for variant in base plugin ftime; do
  printf 'runs %-7s' "$variant:"; tr '\n' ' ' <"$WORK/$variant"; echo
done
base=$(median "$WORK/base"); plugin=$(median "$WORK/plugin"); ftime=$(median "$WORK/ftime")
records=$(grep -c '"name"' "$WORK/profile.json" || true)
echo "runs per variant: $RUNS (alternating); pass executions recorded: $records"
echo "profile size: $(wc -c <"$WORK/profile.json") bytes"
awk -v b="$base" -v p="$plugin" -v f="$ftime" 'BEGIN {
  printf "median wall  no plugin:     %8.3f s\n", b
  printf "median wall  plugin+profile: %8.3f s  ratio %.4f (%+.2f%%)\n", p, p / b, (p / b - 1) * 100
  printf "median wall  -ftime-report: %8.3f s  ratio %.4f (%+.2f%%)\n", f, f / b, (f / b - 1) * 100
}'
