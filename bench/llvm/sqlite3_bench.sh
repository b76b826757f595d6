#!/usr/bin/env bash
# The cost of timing every pass of a real compile: `clang-19 -O2 -c sqlite3.c`
# (the SQLite amalgamation as shipped in the npm package better-sqlite3@12)
# without the plugin, with the plugin (every pass recorded, JSON profile
# written) and with -ftime-report. Runs alternate between the three so that
# drift in the machine's load hits all of them alike. Quoted: the medians of
# wall and CPU time, and the median of the per-round ratios to no plugin.
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

# One compile's wall, user and system seconds, to the millisecond (bash's own
# `time`, so no package is needed).
measure() {
  local TIMEFORMAT='%3R %3U %3S' timing
  timing=$({ time "$@" >/dev/null 2>"$WORK/stderr"; } 2>&1) || { cat "$WORK/stderr" >&2; exit 1; }
  echo "$timing"
}

: >"$WORK/base" ; : >"$WORK/plugin" ; : >"$WORK/ftime"
# One untimed warm-up of each variant (page cache, the plugin's first load).
measure "$CLANG" "${FLAGS[@]}" >/dev/null
measure env PASSTIMING_REPORT=off PASSTIMING_PROFILE="$WORK/profile.json" \
  "$CLANG" -fpass-plugin="$PLUGIN" "${FLAGS[@]}" >/dev/null
for ((i = 0; i < RUNS; ++i)); do
  measure "$CLANG" "${FLAGS[@]}" >>"$WORK/base"
  measure env PASSTIMING_REPORT=off PASSTIMING_PROFILE="$WORK/profile.json" \
    "$CLANG" -fpass-plugin="$PLUGIN" "${FLAGS[@]}" >>"$WORK/plugin"
  measure "$CLANG" -ftime-report "${FLAGS[@]}" >>"$WORK/ftime"
done

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
wall() { cut -d' ' -f1 "$WORK/$1" | median; }
cpu() { awk '{ print $2 + $3 }' "$WORK/$1" | median; }
# The runs of one round follow each other within a minute, so a ratio within
# a round cancels most of the drift in the machine's speed between rounds.
paired() { paste -d' ' "$WORK/$1" "$WORK/$2" | awk -v what="$3" '{
  if (what == "wall") print $1 / $4; else print ($2 + $3) / ($5 + $6) }' | median; }

# Every run's wall time, so that the spread is visible next to the medians.
for variant in base plugin ftime; do
  printf 'wall %-8s' "$variant:"; cut -d' ' -f1 "$WORK/$variant" | tr '\n' ' '; echo
done
records=$(grep -c '"name"' "$WORK/profile.json" || true)
echo "runs per variant: $RUNS (alternating); pass executions recorded: $records"
echo "profile size: $(wc -c <"$WORK/profile.json") bytes"
awk -v b="$(wall base)" -v p="$(wall plugin)" -v f="$(wall ftime)" \
    -v bc="$(cpu base)" -v pc="$(cpu plugin)" -v fc="$(cpu ftime)" 'BEGIN {
  printf "median  no plugin:       wall %8.3f s   cpu (user+sys) %8.3f s\n", b, bc
  printf "median  plugin+profile:  wall %8.3f s   cpu (user+sys) %8.3f s\n", p, pc
  printf "median  -ftime-report:   wall %8.3f s   cpu (user+sys) %8.3f s\n", f, fc
}'
awk -v pw="$(paired plugin base wall)" -v pc="$(paired plugin base cpu)" \
    -v fw="$(paired ftime base wall)" -v fc="$(paired ftime base cpu)" 'BEGIN {
  printf "median of per-round ratios  plugin/base:  wall %.4f (%+.2f%%)  cpu %.4f (%+.2f%%)\n", pw, (pw - 1) * 100, pc, (pc - 1) * 100
  printf "median of per-round ratios  ftime/base:   wall %.4f (%+.2f%%)  cpu %.4f (%+.2f%%)\n", fw, (fw - 1) * 100, fc, (fc - 1) * 100
}'
