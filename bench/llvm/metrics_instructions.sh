#!/usr/bin/env bash
# What each metric (PASSTIMING_METRICS) adds to the plugin, in instructions
# counted by Valgrind's cachegrind: one `clang-19 -O2 -c` compile per metric
# with the plugin recording and nothing written (the `record` variant of
# variants.sh), against the same compile without metrics. Printed: the
# instructions of each and their difference to the first set (`none`) per
# pass execution.
#
# Usage: bench/llvm/metrics_instructions.sh [FILE.c] [PLUGIN]
#   FILE.c  what is compiled (default examples/c/particles.c)
#   PLUGIN  path of libpasstiming_llvm.so (default: build/tools/passtiming/)
#   METRICS the sets to measure, space-separated (default "none cpu rss ir")
# Two compiles run at a time; counts do not depend on that.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/variants.sh"
SOURCE="${1:-$ROOT/examples/c/particles.c}"
PLUGIN="${2:-$DEFAULT_PLUGIN}"
read -r -a SETS <<<"${METRICS:-none cpu rss ir}"
for file in "$SOURCE" "$PLUGIN"; do
  if [[ ! -f "$file" ]]; then
    echo "metrics_instructions: $file not found" >&2
    exit 2
  fi
done
if ! command -v valgrind >/dev/null; then
  echo "metrics_instructions: valgrind not found (apt-get install valgrind)" >&2
  exit 2
fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# count SET: one compile under cachegrind with PASSTIMING_METRICS=SET; the
# pass executions are counted from a profile written by one more compile
# outside Valgrind.
count() {
  # shellcheck disable=SC2046
  env $(variant_env record "$WORK") PASSTIMING_METRICS="$1" valgrind --tool=cachegrind \
    --cache-sim=no --cachegrind-out-file="$WORK/$1.out" "$CLANG" $(variant_flags record) -O2 \
    -c "$SOURCE" -o "$WORK/$1.o" >/dev/null 2>"$WORK/$1.log" ||
    { cat "$WORK/$1.log" >&2; return 1; }
}
pids=()
for set in "${SETS[@]}"; do
  count "$set" & pids+=($!)
  if ((${#pids[@]} == 2)); then
    wait "${pids[0]}" && wait "${pids[1]}"
    pids=()
  fi
done
for pid in "${pids[@]}"; do wait "$pid"; done

# shellcheck disable=SC2046
env $(variant_env plugin "$WORK") "$CLANG" $(variant_flags plugin) -O2 -c "$SOURCE" \
  -o "$WORK/count.o"
passes=$(grep -c '"name"' "$WORK/plugin.json")
echo "input: $SOURCE, $("$CLANG" --version | head -1)"
echo "pass executions: $passes"
for set in "${SETS[@]}"; do
  echo "$set $(awk '/^summary:/ { print $2 }' "$WORK/$set.out")"
done | awk -v n="$passes" '
  BEGIN { printf "%-14s %16s %12s\n", "metrics", "instructions", "per pass" }
  NR == 1 { base = $2 }
  { printf "%-14s %16.0f %12.0f\n", $1, $2, ($2 - base) / n }'
