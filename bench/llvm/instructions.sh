#!/usr/bin/env bash
# Instructions, not seconds: the plugin's cost on one compile counted by
# Valgrind's cachegrind (Debian package `valgrind`), which does not depend on
# the machine's speed or load. Variants as in variants.sh: base, null
# (empty callbacks: LLVM's own share), record (passtiming recording, nothing
# written) and plugin (recording and writing the JSON profile). Printed: the
# instructions executed and the simulated first-level cache misses of each
# variant, and each one's difference to base per pass execution.
#
# Usage: bench/llvm/instructions.sh [FILE.c] [PLUGIN]
#   FILE.c  what `clang-19 -O2 -c` compiles (default examples/c/particles.c,
#           a minute in all; sqlite3.c takes about an hour a variant)
#   PLUGIN  path of libpasstiming_llvm.so (default: build/tools/passtiming/)
# Two variants run at a time; counts do not depend on that.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/variants.sh"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SOURCE="${1:-$ROOT/examples/c/particles.c}"
PLUGIN="${2:-$ROOT/build/tools/passtiming/libpasstiming_llvm.so}"
NULL_PLUGIN="${NULL_PLUGIN:-$ROOT/build/adapters/llvm/libpasstiming_null_plugin.so}"
CLANG="${CLANG:-clang-19}"
for file in "$SOURCE" "$PLUGIN" "$NULL_PLUGIN"; do
  if [[ ! -f "$file" ]]; then
    echo "instructions: $file not found (build the project with PASSTIMING_BUILD_BENCH=ON)" >&2
    exit 2
  fi
done
if ! command -v valgrind >/dev/null; then
  echo "instructions: valgrind not found (apt-get install valgrind)" >&2
  exit 2
fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# count VARIANT: one compile under cachegrind.
count() {
  # shellcheck disable=SC2046
  env $(variant_env "$1" "$WORK") valgrind --tool=cachegrind --cache-sim=yes \
    --cachegrind-out-file="$WORK/$1.out" "$CLANG" $(variant_flags "$1") -O2 -c "$SOURCE" \
    -o "$WORK/$1.o" >/dev/null 2>"$WORK/$1.log" ||
    { cat "$WORK/$1.log" >&2; return 1; }
}
# Two at a time; each wait checks that its compile succeeded.
count base & first=$!
count null & second=$!
wait "$first" && wait "$second"
count record & first=$!
count plugin & second=$!
wait "$first" && wait "$second"

# The totals line of a cachegrind output file: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw.
totals() { awk '/^summary:/ { print $2, $3, $6, $9 }' "$WORK/$1.out"; }
passes=$(grep -c '"name"' "$WORK/plugin.json")
echo "input: $SOURCE, $("$CLANG" --version | head -1)"
echo "pass executions: $passes"
read -r base_ir base_i1 base_d1r base_d1w < <(totals base)
printf '%-7s %16s %12s %12s   %s\n' variant instructions I1-misses D1-misses "per pass execution, over base"
for variant in base null record plugin; do
  read -r ir i1 d1r d1w < <(totals "$variant")
  awk -v v="$variant" -v ir="$ir" -v i1="$i1" -v d1="$((d1r + d1w))" -v bir="$base_ir" \
      -v bi1="$base_i1" -v bd1="$((base_d1r + base_d1w))" -v n="$passes" 'BEGIN {
    printf "%-7s %16d %12d %12d", v, ir, i1, d1
    if (v != "base") printf "   %+.2f%% instructions: %.0f instructions, %.1f I1 and %.1f D1 misses", (ir - bir) * 100 / bir, (ir - bir) / n, (i1 - bi1) / n, (d1 - bd1) / n
    printf "\n" }'
done
