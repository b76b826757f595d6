#!/usr/bin/env bash
# Calibrates `passtiming diff --gate` on real compiles of this machine:
# `clang-19 -O2 -c examples/c/particles.c` (about 0.2 s), RUNS times per side
# through `passtiming run --repeat`, every side with the spin plugin
# (bench/gate/spin_plugin.cc) loaded after passtiming's.
#
# 1. A/A: TRIES times, two sides of the same compile (spin 0), the gate at
#    its default settings: how many tries flag a regression, and which passes.
# 2. A/B: for each spin time, SPIN_TRIES times, a side with spin 0 against a
#    side whose pass PASS spins that long before each execution (IPSCCPPass
#    runs once per compile of particles.c at -O2, so the spin is the
#    slowdown per compile): how many tries flag PASS, and how many flag
#    another pass.
#
# Usage: bench/gate/calibrate.sh [BUILD]   (default: build)
# Settings from the environment: RUNS (10), TRIES (20), SPIN_TRIES (5),
# SPINS_MS ("0.2 0.5 1 1.5 2 5 10"), PASS (IPSCCPPass), MEASURE (empty: the
# gate's default), METRICS (PASSTIMING_METRICS of the compiles, e.g. cpu),
# GATE_FLAGS (more flags for the gate), ORDER (alternate: the two sides'
# compiles alternate, a-1 b-1 a-2 ..., as docs/gate.md advises; blocks: all
# of side a, then all of side b).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="$(cd "${1:-$ROOT/build}" && pwd)"
PASSTIMING="$BUILD/tools/passtiming/passtiming"
SPIN_PLUGIN="$BUILD/adapters/llvm/tests/libpasstiming_spin.so"
INPUT="$ROOT/examples/c/particles.c"
RUNS="${RUNS:-10}"
TRIES="${TRIES:-20}"
SPIN_TRIES="${SPIN_TRIES:-5}"
SPINS_MS="${SPINS_MS:-0.2 0.5 1 1.5 2 5 10}"
PASS="${PASS:-IPSCCPPass}"
MEASURE="${MEASURE:-}"
METRICS="${METRICS:-}"
ORDER="${ORDER:-alternate}"
read -r -a EXTRA <<<"${GATE_FLAGS:-}"
CLANG="${CLANG:-clang-19}"

for file in "$PASSTIMING" "$SPIN_PLUGIN"; do
  if [[ ! -f "$file" ]]; then
    echo "calibrate: $file is missing (ninja passtiming_cli passtiming_spin_plugin)" >&2
    exit 2
  fi
done

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# RUNS compiles into $WORK/$1-%r.json, the pass spinning $2 ms.
side() {
  local name="$1" spin_ms="$2"
  rm -f "$WORK/$name"-*.json
  PASSTIMING_SPIN_PASS="$PASS" PASSTIMING_SPIN_US="$(python3 -c "print($spin_ms * 1000)")" \
    PASSTIMING_METRICS="$METRICS" \
    "$PASSTIMING" run --no-report --repeat "$RUNS" -o "$WORK/$name-%r.json" -- \
    "$CLANG" -O2 -c "-fpass-plugin=$SPIN_PLUGIN" "$INPUT" -o "$WORK/out.o"
}

# One compile into $WORK/$1-$3.json, the pass spinning $2 ms.
compile_one() {
  local name="$1" spin_ms="$2" run="$3"
  PASSTIMING_SPIN_PASS="$PASS" PASSTIMING_SPIN_US="$(python3 -c "print($spin_ms * 1000)")" \
    PASSTIMING_METRICS="$METRICS" \
    "$PASSTIMING" run --no-report -o "$WORK/$name-$run.json" -- \
    "$CLANG" -O2 -c "-fpass-plugin=$SPIN_PLUGIN" "$INPUT" -o "$WORK/out.o"
}

# Both sides, RUNS compiles each, in ORDER: side a spinning 0 ms, side b $1.
sides() {
  local spin_ms="$1"
  if [[ "$ORDER" == blocks ]]; then
    side a 0
    side b "$spin_ms"
    return
  fi
  rm -f "$WORK"/a-*.json "$WORK"/b-*.json
  for ((run = 1; run <= RUNS; run++)); do
    compile_one a 0 "$run"
    compile_one b "$spin_ms" "$run"
  done
}

# The gate of side a against side b; prints the flagged passes, one line,
# separated by ';' ("-" for none), then the median delta of PASS in ms, the
# measure and the number of passes tested, tab-separated.
gate() {
  local status=0
  local args=(diff --gate --format json -o "$WORK/verdict.json"
    --base "$WORK"/a-*.json --new "$WORK"/b-*.json)
  [[ -n "$MEASURE" ]] && args+=(--measure "$MEASURE")
  args+=("${EXTRA[@]}")
  "$PASSTIMING" "${args[@]}" || status=$?
  if [[ $status -ge 2 ]]; then
    echo "calibrate: passtiming diff --gate failed with status $status" >&2
    exit 1
  fi
  python3 - "$WORK/verdict.json" "$PASS" <<'EOF'
import json, sys
verdict = json.load(open(sys.argv[1]))
flagged = [r["key"] for r in verdict["rows"] if r["status"] == "regression"]
row = next((r for r in verdict["rows"] if r["key"] == sys.argv[2]), None)
delta = row["delta"] / 1e6 if row and verdict["unit"] == "ns" else float("nan")
# Tab-separated, the names joined by ';': pass names hold spaces and commas.
print("\t".join([";".join(flagged) or "-", f"{delta:.3f}", verdict["measure"],
                 str(verdict["tested"])]))
EOF
}

echo "calibrate: $("$CLANG" --version | head -1) -O2 -c examples/c/particles.c," \
  "$RUNS runs per side ($ORDER), metrics '${METRICS:-none}', gate flags: --measure ${MEASURE:-default} ${EXTRA[*]:-}"
side warmup 0 >/dev/null

false_tries=0
flagged_passes=""
tested_counts=""
for ((try = 1; try <= TRIES; try++)); do
  sides 0
  IFS=$'\t' read -r flagged _ measure tested < <(gate)
  tested_counts+="$tested "
  if [[ "$flagged" != "-" ]]; then
    false_tries=$((false_tries + 1))
    flagged_passes+="$flagged; "
  fi
done
echo "A/A ($measure): $false_tries of $TRIES tries flagged a regression" \
  "(flagged: ${flagged_passes:-none}; passes tested per try: $tested_counts)"

for spin in $SPINS_MS; do
  hits=0
  others=""
  deltas=""
  for ((try = 1; try <= SPIN_TRIES; try++)); do
    sides "$spin"
    IFS=$'\t' read -r flagged delta measure _ < <(gate)
    deltas+="$delta "
    [[ ";$flagged;" == *";$PASS;"* ]] && hits=$((hits + 1))
    IFS=';' read -r -a names <<<"$flagged"
    for pass in "${names[@]}"; do
      [[ "$pass" != "-" && "$pass" != "$PASS" ]] && others+="$pass; "
    done
  done
  echo "spin $spin ms in $PASS ($measure): flagged in $hits of $SPIN_TRIES tries;" \
    "other passes flagged: ${others:-none}; median delta of $PASS per try (ms): $deltas"
done
