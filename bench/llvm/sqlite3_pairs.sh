#!/usr/bin/env bash
# The plugin's wall-time cost on `clang-19 -O2 -c sqlite3.c`, measured on a
# machine whose speed drifts: in each pair two variants of the compile (see
# variants.sh; by default base, without the plugin, and plugin, every pass
# recorded and the JSON profile written) run at the same time, one pinned to
# each of two processors, so that whatever slows the machine down slows both.
# The processors swap roles every pair; the geometric mean of the two
# placements' mean ratios cancels any difference in speed between the
# processors themselves. Needs two processors and taskset (util-linux).
#
# Usage: bench/llvm/sqlite3_pairs.sh [PAIRS] [PLUGIN]
#   PAIRS   pairs to run (default 20; even, so both placements count alike)
#   PLUGIN  path of libpasstiming_llvm.so (default: build/tools/passtiming/)
#   PAIR="A B"  the two variants, the ratio being B over A (default
#           "base plugin"; "base null" and "null plugin" split the cost into
#           LLVM's share and passtiming's)
# The source is fetched into bench/.inputs/ as by sqlite3_bench.sh; SQLITE=FILE.c
# times another file instead.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/variants.sh"
PAIRS="${1:-20}"
PLUGIN="${2:-$DEFAULT_PLUGIN}"
if [[ -z "${SQLITE:-}" ]]; then
  fetch_sqlite3
  SQLITE="$SQLITE_SOURCE"
fi
CPU_A="${CPU_A:-0}" CPU_B="${CPU_B:-1}"
read -r A B <<<"${PAIR:-base plugin}"
if [[ -z "$B" || "$A" == "$B" ]]; then
  echo "sqlite3_pairs: PAIR must name two different variants, as in PAIR=\"base plugin\"" >&2
  exit 2
fi
for variant in "$A" "$B"; do
  variant_flags "$variant" >/dev/null || exit 2
done
for file in "$PLUGIN" "$NULL_PLUGIN" "$SQLITE"; do
  if [[ ! -f "$file" ]]; then
    echo "sqlite3_pairs: $file not found (build the project with PASSTIMING_BUILD_BENCH=ON)" >&2
    exit 2
  fi
done
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# timed CPU VARIANT: one pinned compile; its wall seconds go to $WORK/VARIANT.
timed() {
  local cpu="$1" variant="$2" TIMEFORMAT='%3R'
  # shellcheck disable=SC2046
  { time env $(variant_env "$variant" "$WORK") taskset -c "$cpu" "$CLANG" \
      $(variant_flags "$variant") -O2 -c "$SQLITE" -o "$WORK/$variant.o" \
      >/dev/null 2>"$WORK/$variant.err"; } 2>"$WORK/$variant" ||
    { cat "$WORK/$variant.err" >&2; return 1; }
}
run_pair() {
  local first second
  timed "$1" "$A" & first=$!
  timed "$2" "$B" & second=$!
  wait "$first" && wait "$second"
}

echo "pairs: $PAIRS, ratio $B / $A; $("$CLANG" --version | head -1)"
run_pair "$CPU_A" "$CPU_B"  # warm-up, not counted
: >"$WORK/ratios"
for ((i = 0; i < PAIRS; ++i)); do
  if ((i % 2 == 0)); then placement="$A@$CPU_A $B@$CPU_B"; run_pair "$CPU_A" "$CPU_B"
  else placement="$A@$CPU_B $B@$CPU_A"; run_pair "$CPU_B" "$CPU_A"; fi
  a=$(tail -1 "$WORK/$A") b=$(tail -1 "$WORK/$B")
  echo "$((i % 2)) $a $b" | awk '{ printf "%d %s %s %.4f\n", $1, $2, $3, $3 / $2 }' >>"$WORK/ratios"
  printf 'pair %2d  %-24s %s %7.3f s  %s %7.3f s  ratio %s\n' "$((i + 1))" "$placement" \
    "$A" "$a" "$B" "$b" "$(tail -1 "$WORK/ratios" | cut -d' ' -f4)"
done
median=$(cut -d' ' -f4 "$WORK/ratios" | median)
awk -v a="$CPU_A" -v b="$CPU_B" -v median="$median" -v B="$B" '
  { n[$1]++; lsum[$1] += log($4) }
  END {
    g0 = exp(lsum[0] / n[0]); g1 = exp(lsum[1] / n[1])
    printf "geometric mean ratio, %s on cpu %s: %.4f (%d pairs); %s on cpu %s: %.4f (%d pairs)\n", B, b, g0, n[0], B, a, g1, n[1]
    printf "both placements (geometric mean of the two): %.4f (%+.2f%%); median of all ratios %s\n", sqrt(g0 * g1), (sqrt(g0 * g1) - 1) * 100, median
  }' "$WORK/ratios"
