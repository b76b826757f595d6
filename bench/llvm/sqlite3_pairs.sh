#!/usr/bin/env bash
# The plugin's wall-time cost on `clang-19 -O2 -c sqlite3.c`, measured on a
# machine whose speed drifts: in each pair the compile without the plugin
# and the compile with it (every pass recorded, JSON profile written) run at
# the same time, one pinned to each of two processors, so that whatever slows
# the machine down slows both. The processors swap roles every pair; the
# geometric mean of the two placements' mean ratios cancels any difference in
# speed between the processors themselves. Needs two processors and taskset
# (util-linux).
#
# Usage: bench/llvm/sqlite3_pairs.sh [PAIRS] [PLUGIN]
#   PAIRS   pairs to run (default 20; even, so both placements count alike)
#   PLUGIN  path of libpasstiming_llvm.so (default: build/tools/passtiming/)
# The source is fetched by sqlite3_bench.sh (run it once first).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PAIRS="${1:-20}"
PLUGIN="${2:-$ROOT/build/tools/passtiming/libpasstiming_llvm.so}"
CLANG="${CLANG:-clang-19}"
SQLITE="$ROOT/bench/.inputs/better-sqlite3/deps/sqlite3/sqlite3.c"
CPU_A="${CPU_A:-0}" CPU_B="${CPU_B:-1}"
for file in "$PLUGIN" "$SQLITE"; do
  if [[ ! -f "$file" ]]; then
    echo "sqlite3_pairs: $file not found (build the plugin; run sqlite3_bench.sh once to fetch the source)" >&2
    exit 2
  fi
done
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# timed CPU NAME [ENV=VALUE...] -- [CLANG FLAGS...]: one pinned compile; its
# wall seconds go to $WORK/NAME.
timed() {
  local cpu="$1" name="$2"
  shift 2
  local TIMEFORMAT='%3R'
  { time taskset -c "$cpu" env "$@" >/dev/null 2>"$WORK/$name.err"; } 2>"$WORK/$name" ||
    { cat "$WORK/$name.err" >&2; return 1; }
}
run_pair() {
  local base_cpu="$1" plugin_cpu="$2" first second
  timed "$base_cpu" base "$CLANG" -O2 -c "$SQLITE" -o "$WORK/base.o" & first=$!
  timed "$plugin_cpu" plugin PASSTIMING_REPORT=off PASSTIMING_PROFILE="$WORK/profile.json" \
    "$CLANG" -fpass-plugin="$PLUGIN" -O2 -c "$SQLITE" -o "$WORK/plugin.o" & second=$!
  wait "$first" && wait "$second"
}

run_pair "$CPU_A" "$CPU_B"  # warm-up, not counted
: >"$WORK/ratios"
for ((i = 0; i < PAIRS; ++i)); do
  if ((i % 2 == 0)); then placement="base@$CPU_A plugin@$CPU_B"; run_pair "$CPU_A" "$CPU_B"
  else placement="base@$CPU_B plugin@$CPU_A"; run_pair "$CPU_B" "$CPU_A"; fi
  b=$(tail -1 "$WORK/base") p=$(tail -1 "$WORK/plugin")
  echo "$((i % 2)) $b $p" | awk '{ printf "%d %s %s %.4f\n", $1, $2, $3, $3 / $2 }' >>"$WORK/ratios"
  printf 'pair %2d  %-24s base %7.3f s  plugin %7.3f s  ratio %s\n' "$((i + 1))" "$placement" \
    "$b" "$p" "$(tail -1 "$WORK/ratios" | cut -d' ' -f4)"
done
median=$(cut -d' ' -f4 "$WORK/ratios" | sort -n |
  awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
awk -v a="$CPU_A" -v b="$CPU_B" -v median="$median" '
  { n[$1]++; lsum[$1] += log($4) }
  END {
    g0 = exp(lsum[0] / n[0]); g1 = exp(lsum[1] / n[1])
    printf "geometric mean ratio, plugin on cpu %s: %.4f (%d pairs); plugin on cpu %s: %.4f (%d pairs)\n", b, g0, n[0], a, g1, n[1]
    printf "both placements (geometric mean of the two): %.4f (%+.2f%%); median of all ratios %s\n", sqrt(g0 * g1), (sqrt(g0 * g1) - 1) * 100, median
  }' "$WORK/ratios"
