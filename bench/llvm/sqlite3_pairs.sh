#!/usr/bin/env bash
# The plugin's wall-time cost on `clang-19 -O2 -c sqlite3.c`, measured on a
# machine whose speed drifts: in each pair two variants of the compile (see
# variants.sh; by default base, without the plugin, and plugin, every pass
# recorded and the JSON profile written) run at the same time, one on each of
# two processors, so that whatever slows the host down slows both. The two
# swap processors every SWAP seconds (swap_pair.py), so that each compile
# spends half its time on either one: a processor that runs slower than the
# other for a while slows both compiles alike. Which variant starts on which
# processor, and which is started first, alternates between pairs.
#
# Usage: bench/llvm/sqlite3_pairs.sh [PAIRS] [PLUGIN]
#   PAIRS   pairs to run (default 20; even, so both placements count alike)
#   PLUGIN  path of libpasstiming_llvm.so (default: build/tools/passtiming/)
#   PAIR="A B"  the two variants, the ratio being B over A (default
#           "base plugin"; "base null" and "null plugin" split the cost into
#           LLVM's share and passtiming's; "base base" measures the method)
#   SWAP=S  seconds between swaps (default 0.25; 0 pins each compile to its
#           first processor for the whole pair, the method before swapping)
# The source is fetched into bench/.inputs/ as by sqlite3_bench.sh; SQLITE=FILE.c
# times another file instead. Needs two processors and python3.
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
SWAP="${SWAP:-0.25}"
if [[ -z "$B" ]]; then
  echo "sqlite3_pairs: PAIR must name two variants, as in PAIR=\"base plugin\"" >&2
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

# compile_line VARIANT SLOT: the variant's compile as one line for swap_pair.py;
# SLOT (a or b) keeps the outputs of a "base base" pair apart.
compile_line() {
  local dir="$WORK/$2"
  mkdir -p "$dir"
  echo env $(variant_env "$1" "$dir") "$CLANG" $(variant_flags "$1") -O2 -c "$SQLITE" -o "$dir/$1.o"
}
# run_pair CPU_OF_A CPU_OF_B: prints "WALL_A WALL_B CPU_A CPU_B".
run_pair() {
  python3 "$(dirname "${BASH_SOURCE[0]}")/swap_pair.py" "$SWAP" "$1" "$2" \
    "$(compile_line "$A" a)" "$(compile_line "$B" b)"
}

echo "pairs: $PAIRS, ratio $B / $A, processors swapped every ${SWAP} s; $("$CLANG" --version | head -1)"
run_pair "$CPU_A" "$CPU_B" >/dev/null  # warm-up, not counted
: >"$WORK/ratios"
for ((i = 0; i < PAIRS; ++i)); do
  if ((i % 2 == 0)); then placement="$A@$CPU_A $B@$CPU_B"; times=$(run_pair "$CPU_A" "$CPU_B")
  else placement="$A@$CPU_B $B@$CPU_A"; times=$(run_pair "$CPU_B" "$CPU_A"); fi
  read -r a b ca cb <<<"$times"
  echo "$((i % 2)) $a $b $ca $cb" |
    awk '{ printf "%d %s %s %.4f %s %s %.4f\n", $1, $2, $3, $3 / $2, $4, $5, $5 / $4 }' >>"$WORK/ratios"
  printf 'pair %2d  %-24s %s %7.3f s  %s %7.3f s  wall ratio %s  cpu ratio %s\n' "$((i + 1))" \
    "$placement" "$A" "$a" "$B" "$b" "$(tail -1 "$WORK/ratios" | cut -d' ' -f4)" \
    "$(tail -1 "$WORK/ratios" | cut -d' ' -f7)"
done
median=$(cut -d' ' -f4 "$WORK/ratios" | median)
cpu_median=$(cut -d' ' -f7 "$WORK/ratios" | median)
awk -v a="$CPU_A" -v b="$CPU_B" -v median="$median" -v cpu_median="$cpu_median" -v B="$B" '
  NR == 1 { low = high = $4 }
  { n[$1]++; lsum[$1] += log($4); if ($4 < low) low = $4; if ($4 > high) high = $4 }
  END {
    g0 = exp(lsum[0] / n[0]); g1 = exp(lsum[1] / n[1])
    printf "geometric mean wall ratio, %s starting on cpu %s: %.4f (%d pairs); on cpu %s: %.4f (%d pairs)\n", B, b, g0, n[0], a, g1, n[1]
    printf "both placements (geometric mean of the two): %.4f (%+.2f%%); wall ratios %.4f to %.4f, median %s; median cpu ratio %s\n", sqrt(g0 * g1), (sqrt(g0 * g1) - 1) * 100, low, high, median, cpu_median
  }' "$WORK/ratios"
