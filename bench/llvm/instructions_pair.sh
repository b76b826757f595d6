#!/usr/bin/env bash
# Two builds of the plugin side by side, in retired instructions: the
# "plugin" variant of instructions.sh (every pass recorded, the JSON profile
# written, no report) under cachegrind, RUNS times for each plugin, the two
# alternating and run two at a time. A single count moves by about a hundred
# instructions a pass between runs, with the heap's layout (the environment,
# the paths), so a change is read from the medians. Printed: each run's
# instructions, then each plugin's median and its cost per pass execution
# over clang without a plugin.
#
# Usage: bench/llvm/instructions_pair.sh BEFORE.so AFTER.so [RUNS] [FILE.c]
#   RUNS    runs of each plugin (default 4)
#   FILE.c  what `clang-19 -O2 -c` compiles (default examples/c/particles.c)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/variants.sh"
BEFORE="${1:?usage: instructions_pair.sh BEFORE.so AFTER.so [RUNS] [FILE.c]}"
AFTER="${2:?usage: instructions_pair.sh BEFORE.so AFTER.so [RUNS] [FILE.c]}"
RUNS="${3:-4}"
SOURCE="${4:-$ROOT/examples/c/particles.c}"
for file in "$BEFORE" "$AFTER" "$SOURCE"; do
  [[ -f "$file" ]] || { echo "instructions_pair: $file not found" >&2; exit 2; }
done
command -v valgrind >/dev/null || { echo "instructions_pair: valgrind not found" >&2; exit 2; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# count NAME [PLUGIN]: one compile under cachegrind, with PLUGIN when given;
# prints the instructions. Both plugins see the same environment, path
# lengths included: each is copied to a path of the same length.
count() {
  local flags=() env=()
  if [[ -n "${2:-}" ]]; then
    flags=(-fpass-plugin="$2")
    env=(PASSTIMING_REPORT=off PASSTIMING_PROFILE="$WORK/p-$1.json")
  fi
  env "${env[@]}" valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$WORK/$1.out" \
    "$CLANG" "${flags[@]}" -O2 -c "$SOURCE" -o "$WORK/$1.o" >/dev/null 2>"$WORK/$1.log" ||
    { cat "$WORK/$1.log" >&2; return 1; }
  awk '/^summary:/ { print $2 }' "$WORK/$1.out"
}
mkdir -p "$WORK/a" "$WORK/b"
cp "$BEFORE" "$WORK/a/libpasstiming_llvm.so"
cp "$AFTER" "$WORK/b/libpasstiming_llvm.so"
base=$(count base)
before=() after=()
for ((i = 0; i < RUNS; i++)); do
  # Which one starts first alternates.
  if ((i % 2 == 0)); then
    count "a$i" "$WORK/a/libpasstiming_llvm.so" >"$WORK/a$i.n" & first=$!
    count "b$i" "$WORK/b/libpasstiming_llvm.so" >"$WORK/b$i.n" & second=$!
  else
    count "b$i" "$WORK/b/libpasstiming_llvm.so" >"$WORK/b$i.n" & first=$!
    count "a$i" "$WORK/a/libpasstiming_llvm.so" >"$WORK/a$i.n" & second=$!
  fi
  wait "$first" && wait "$second"
  before+=("$(cat "$WORK/a$i.n")")
  after+=("$(cat "$WORK/b$i.n")")
done
passes=$(grep -c '"name"' "$WORK/p-a0.json")
echo "input: $SOURCE, $("$CLANG" --version | head -1)"
echo "pass executions: $passes; clang without a plugin: $base instructions"
echo "before: ${before[*]}"
echo "after:  ${after[*]}"
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mb=$(median "${before[@]}")
ma=$(median "${after[@]}")
awk -v b="$base" -v mb="$mb" -v ma="$ma" -v n="$passes" 'BEGIN {
  printf "median before %.0f (%.0f a pass over clang), after %.0f (%.0f a pass), change %+.0f a pass (%+.2f%% of the plugin'"'"'s cost, %+.4f%% of the compile)\n",
    mb, (mb - b) / n, ma, (ma - b) / n, (ma - mb) / n, 100 * (ma - mb) / (mb - b), 100 * (ma - mb) / mb }'
