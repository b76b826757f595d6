#!/usr/bin/env bash
# The cost of timing every pass of a real compile: `clang-19 -O2 -c sqlite3.c`
# (the SQLite amalgamation as shipped in the npm package better-sqlite3@12),
# split into its parts by the five variants of variants.sh: base (no plugin),
# null (empty callbacks: LLVM's own cost of calling instrumentation), record
# (passtiming recording, nothing written), plugin (recording and writing the
# JSON profile: the figure the target is about) and ftime (-ftime-report).
# Each round runs every variant once, starting one variant later than the
# round before, so that drift in the machine's speed and the position in a
# round hit all variants alike. Quoted: the medians of wall and CPU time, and
# the median of the per-round ratios to base.
#
# Usage: bench/llvm/sqlite3_bench.sh [RUNS] [PLUGIN]
#   RUNS    rounds (default 7)
#   PLUGIN  path of libpasstiming_llvm.so (default: build/tools/passtiming/)
# The null plugin is looked for in build/adapters/llvm/ (NULL_PLUGIN=path to
# override); without it that variant is left out. The source is fetched once
# into bench/.inputs/ (gitignored, never committed).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/variants.sh"
RUNS="${1:-7}"
PLUGIN="${2:-$DEFAULT_PLUGIN}"
SQLITE="$SQLITE_SOURCE"

if [[ ! -f "$PLUGIN" ]]; then
  echo "sqlite3_bench: plugin not found at $PLUGIN (build it, or pass its path)" >&2
  exit 2
fi
fetch_sqlite3
echo "input: $SQLITE ($(wc -l <"$SQLITE") lines), $("$CLANG" --version | head -1)"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
FLAGS=(-O2 -c "$SQLITE" -o "$WORK/sqlite3.o")

VARIANTS=(base)
if [[ -f "$NULL_PLUGIN" ]]; then
  VARIANTS+=(null)
else
  echo "sqlite3_bench: no null plugin at $NULL_PLUGIN; the null variant is left out" >&2
fi
VARIANTS+=(record plugin ftime)

# One compile's wall, user and system seconds, to the millisecond (bash's own
# `time`, so no package is needed).
measure() {
  local TIMEFORMAT='%3R %3U %3S' timing
  # The paths hold no spaces (mktemp, the build tree), so word splitting of
  # the variant's words is safe.
  # shellcheck disable=SC2046
  timing=$({ time env $(variant_env "$1" "$WORK") "$CLANG" $(variant_flags "$1") "${FLAGS[@]}" \
    >/dev/null 2>"$WORK/stderr"; } 2>&1) ||
    { cat "$WORK/stderr" >&2; exit 1; }
  echo "$timing"
}

# One untimed warm-up of each variant (page cache, the plugins' first load).
for variant in "${VARIANTS[@]}"; do
  : >"$WORK/$variant"
  measure "$variant" >/dev/null
done
for ((round = 0; round < RUNS; ++round)); do
  for ((k = 0; k < ${#VARIANTS[@]}; ++k)); do
    variant="${VARIANTS[(round + k) % ${#VARIANTS[@]}]}"
    measure "$variant" >>"$WORK/$variant"
  done
done

wall() { cut -d' ' -f1 "$WORK/$1" | median; }
cpu() { awk '{ print $2 + $3 }' "$WORK/$1" | median; }
sys() { cut -d' ' -f3 "$WORK/$1" | median; }
# The runs of one round follow each other within two minutes, so a ratio
# within a round cancels most of the drift in the machine's speed.
paired() { paste -d' ' "$WORK/$1" "$WORK/base" | awk -v what="$2" '{
  if (what == "wall") print $1 / $4; else print ($2 + $3) / ($5 + $6) }' | median; }

# Every run's wall time, so that the spread is visible next to the medians.
for variant in "${VARIANTS[@]}"; do
  printf 'wall %-8s' "$variant:"; cut -d' ' -f1 "$WORK/$variant" | tr '\n' ' '; echo
done
records=$(grep -c '"name"' "$WORK/plugin.json" || true)
echo "rounds: $RUNS (order rotated each round); pass executions recorded: $records"
echo "profile size: $(wc -c <"$WORK/plugin.json") bytes"
for variant in "${VARIANTS[@]}"; do
  printf 'median  %-7s wall %8.3f s   cpu (user+sys) %8.3f s   sys %6.3f s\n' \
    "$variant" "$(wall "$variant")" "$(cpu "$variant")" "$(sys "$variant")"
done
for variant in "${VARIANTS[@]:1}"; do
  pw="$(paired "$variant" wall)" pc="$(paired "$variant" cpu)"
  awk -v v="$variant" -v pw="$pw" -v pc="$pc" 'BEGIN {
    printf "median of per-round ratios  %-7s/ base:  wall %.4f (%+.2f%%)  cpu %.4f (%+.2f%%)\n", v, pw, (pw - 1) * 100, pc, (pc - 1) * 100 }'
done
