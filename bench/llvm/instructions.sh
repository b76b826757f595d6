#!/usr/bin/env bash
# Instructions, not seconds: the plugin's cost on one compile counted by
# Valgrind's cachegrind (Debian package `valgrind`), which does not depend on
# the machine's speed or load. Variants as in variants.sh: base, null
# (empty callbacks: LLVM's own share), record (passtiming recording, nothing
# written) and plugin (recording and writing the JSON profile). Printed: the
# instructions executed and the simulated first-level cache misses of each
# variant; each one's difference per pass execution to base and to the
# variant before it (null - base is LLVM's share, record - null passtiming's
# recording, plugin - record the profile's writing).
#
# Usage: bench/llvm/instructions.sh [FILE.c] [PLUGIN]
#   FILE.c  what `clang-19 -O2 -c` compiles (default examples/c/particles.c,
#           a minute and a half in all)
#   PLUGIN  path of libpasstiming_llvm.so (default: build/tools/passtiming/)
#   CACHE_SIM=no  instructions only, without the cache simulation: about
#           three times faster (sqlite3.c: about ten minutes in all)
# Two variants run at a time; counts do not depend on that.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/variants.sh"
SOURCE="${1:-$ROOT/examples/c/particles.c}"
PLUGIN="${2:-$DEFAULT_PLUGIN}"
CACHE_SIM="${CACHE_SIM:-yes}"
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
  env $(variant_env "$1" "$WORK") valgrind --tool=cachegrind --cache-sim="$CACHE_SIM" \
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

# The totals of a cachegrind output file (Ir, then with the cache simulation
# I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw): instructions, I1 misses, D1 misses.
totals() { awk '/^summary:/ { print $2, ($3 == "" ? 0 : $3), $6 + $9 }' "$WORK/$1.out"; }
passes=$(grep -c '"name"' "$WORK/plugin.json")
echo "input: $SOURCE, $("$CLANG" --version | head -1)"
echo "pass executions: $passes"
for variant in base null record plugin; do echo "$variant $(totals "$variant")"; done |
  awk -v n="$passes" -v sim="$CACHE_SIM" '
    BEGIN {
      printf "%-7s %16s %10s %12s %12s", "variant", "instructions", "over base", "per pass", "over prev."
      if (sim == "yes") printf " %12s %12s %14s", "I1-misses", "D1-misses", "per pass I1/D1"
      printf "\n"
    }
    {
      printf "%-7s %16.0f", $1, $2
      if (NR == 1) { base = $2; bi1 = $3; bd1 = $4; printf " %10s %12s %12s", "", "", "" }
      else printf " %+9.3f%% %12.0f %12.0f", ($2 - base) * 100 / base, ($2 - base) / n, ($2 - prev) / n
      if (sim == "yes") {
        printf " %12.0f %12.0f", $3, $4
        if (NR > 1) printf "   %5.1f/%-5.1f", ($3 - bi1) / n, ($4 - bd1) / n
      }
      printf "\n"; prev = $2
    }'
