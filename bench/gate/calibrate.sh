#!/usr/bin/env bash
# Calibrates the regression gate on real compiles of this machine:
# `passtiming gate` (the sides alternated in pairs of random order, RUNS runs
# per side to begin with, extended up to MAX_RUNS where a pass's runs spread
# too much to see a change of twice the threshold) over `clang-19 -O2 -c` of a generated C file of FUNCTIONS
# functions (bench/gate/make_input.py), every compile with the spin plugin
# (bench/gate/spin_plugin.cc) loaded after passtiming's, recording METRICS.
#
# Prints one table row per condition, TRIES gates each:
#   A/A                 both sides the same compile: gates flagging anything
#   A/A, neighbour      the same, a memory-bandwidth neighbour
#                       (bench/gate/bandwidth_neighbour.c) running during the
#                       first half of each gate's first RUNS pairs
#   +10% LARGE          the new side's pass LARGE (the pass whose median is
#                       nearest 20 ms) slower by 10 %: gates flagging it
#   +10% SMALL          the same for SMALL (median nearest 3 ms, at least
#                       2 ms), with --floor-ms 0.1, as a 0.3 ms change is
#                       under the default floor of 1 ms
#   +10% MODULE         the same for MODULE, the pass of one execution per
#                       compile (a module pass) whose median is nearest 3 ms
#                       and at least 2 ms, with --floor-ms 0.1
#   +4.4% LARGE         under the threshold of 5 %: gates flagging it
#   +3% LARGEST         under the threshold: the pass with the largest median
# and for each: how many gates flagged the target, how many neither flagged
# it nor named it too noisy to judge (silent), any other pass, a drift,
# how many flagged the target when the same runs are judged by the other
# statistic (`passtiming diff --gate --statistic`: runs when STATISTIC is
# matched, and the other way round), the median over its gates of the
# target's detectable change (the change the gate flags 19 times in 20 with
# these runs, by its own estimate), the runs per side its gates ended with
# (median, and the range), and the range of the 1-minute load average over
# its gates.
# The slowdown is the spin plugin's PASSTIMING_SPIN_PCT: after each execution
# of the pass, a spin (on the monotonic clock) of the percentage of that
# execution's own self time, inside its measured interval; a true change of
# exactly that percentage, whatever the machine's load while the gate runs.
# The measured change per gate is that of the statistic the gate compared
# (base_compared and new_compared: the matched totals by default).
#
# Usage: bench/gate/calibrate.sh [BUILD]   (default: build)
# Settings from the environment: TRIES (20), RUNS (10), MAX_RUNS (5 x RUNS, as
# the gate's own default; RUNS: never extend), FUNCTIONS (50),
# METRICS (cpu), CONDITIONS (all: "aa neighbour large10 small10 module10 large4.4
# largest3"),
# NICE (-20: the gate's --nice, and the warm-up's, which picks the passes by
# their medians), LOAD (0: how many busy loops at
# nice 0 run for the whole calibration, to make a quiet machine a shared one),
# INPUT (a real C file to compile instead of the generated one, its directory
# on the include path: e.g. zlib's inflate.c from bench/gate/fetch_zlib.sh),
# STATISTIC (matched: the gate's --statistic; runs for the rank test of the
# runs' values), LARGE_PASS, SMALL_PASS and MODULE_PASS (a pass to slow instead of the
# one picked, e.g. LCSSAPass: its warm-up median is printed as picked).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="$(cd "${1:-$ROOT/build}" && pwd)"
PASSTIMING="$BUILD/tools/passtiming/passtiming"
SPIN_PLUGIN="$BUILD/adapters/llvm/tests/libpasstiming_spin.so"
CLANG="${CLANG:-clang-19}"
TRIES="${TRIES:-20}"
RUNS="${RUNS:-10}"
MAX_RUNS="${MAX_RUNS:-$((5 * RUNS))}"
FUNCTIONS="${FUNCTIONS:-50}"
METRICS="${METRICS:-cpu}"
NICE="${NICE:--20}"
LOAD="${LOAD:-0}"
INPUT="${INPUT:-}"
STATISTIC="${STATISTIC:-matched}"
LARGE_PASS="${LARGE_PASS:-}"
SMALL_PASS="${SMALL_PASS:-}"
MODULE_PASS="${MODULE_PASS:-}"
CONDITIONS="${CONDITIONS:-aa neighbour large10 small10 module10 large4.4 largest3}"

for file in "$PASSTIMING" "$SPIN_PLUGIN"; do
  if [[ ! -f "$file" ]]; then
    echo "calibrate: $file is missing (ninja passtiming_cli passtiming_spin_plugin)" >&2
    exit 2
  fi
done
WORK="$(mktemp -d)"
NEIGHBOUR_PID=""
WATCHER_PID=""
LOAD_PIDS=()
cleanup() {
  [[ -n "$NEIGHBOUR_PID" ]] && kill "$NEIGHBOUR_PID" 2>/dev/null || true
  for pid in "${LOAD_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
if [[ -n "$INPUT" ]]; then
  INPUT="$(cd "$(dirname "$INPUT")" && pwd)/$(basename "$INPUT")"
  cp "$INPUT" "$WORK/input.c"
  INCLUDE="-I$(dirname "$INPUT")"
  DESCRIBED="$INPUT"
else
  python3 "$ROOT/bench/gate/make_input.py" "$FUNCTIONS" >"$WORK/input.c"
  INCLUDE=""
  DESCRIBED="a generated file of $FUNCTIONS functions"
fi
cc -O2 -o "$WORK/neighbour" "$ROOT/bench/gate/bandwidth_neighbour.c"
for ((i = 0; i < LOAD; i++)); do
  bash -c 'while :; do :; done' &
  LOAD_PIDS+=($!)
done

# The compile of a side whose pass $1 is slower by $2 percent.
compile() {
  echo "env PASSTIMING_SPIN_PASS=$1 PASSTIMING_SPIN_PCT=$2 $CLANG -O2 -c $INCLUDE" \
    "-fpass-plugin=$SPIN_PLUGIN $WORK/input.c -o $WORK/out.o"
}

# Warm-up: 5 compiles; per pass, its median CPU self time (ms) and its
# executions per compile, tab-separated, largest first, into $1.
warm_up() {
  for run in 1 2 3 4 5; do
    nice -n "$NICE" "$PASSTIMING" run --no-report --metrics "$METRICS" -o "$WORK/warm-$run.json" -- \
      $(compile none 0) 2>/dev/null
  done
  python3 - "$WORK"/warm-*.json >"$1" <<'PY'
import json, statistics, sys
runs = []
for path in sys.argv[1:]:
    profile = json.load(open(path))
    totals, counts = {}, {}
    for section in profile["sections"]:
        for record in section["records"]:
            name = record["name"]
            totals[name] = totals.get(name, 0) + record.get("cpu_self_ns", record["self_ns"])
            counts[name] = counts.get(name, 0) + 1
    runs.append((totals, counts))
names = set(runs[0][0])
rows = []
for name in names:
    if name.startswith("PassManager") or "Adaptor" in name or "Wrapper" in name:
        continue  # containers: their self time is not one pass's work
    median = statistics.median(t.get(name, 0) for t, _ in runs) / 1e6
    rows.append((median, name, runs[0][1].get(name, 0)))
for median, name, count in sorted(rows, reverse=True):
    print(f"{name}\t{median:.4f}\t{count}")
PY
}
warm_up "$WORK/passes.tsv"
pick() {  # the pass whose median is nearest $1 ms and at least $2 ms [and runs $3 times]
  python3 - "$WORK/passes.tsv" "$1" "$2" "${3:-0}" <<'PY'
import sys
rows = [line.split("\t") for line in open(sys.argv[1]).read().splitlines()]
want, least, count = float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
rows = [r for r in rows if float(r[1]) >= least and (count == 0 or int(r[2]) == count)]
print("\t".join(min(rows, key=lambda r: abs(float(r[1]) - want))) if rows else "-\t0\t0")
PY
}
named() {  # the pass $1 as pick prints it, from the warm-up
  awk -F'\t' -v p="$1" '$1 == p { print; found = 1 } END { if (!found) print p "\t0\t0" }' \
    "$WORK/passes.tsv"
}
if [[ -n "$LARGE_PASS" ]]; then
  IFS=$'\t' read -r LARGE LARGE_MS LARGE_N < <(named "$LARGE_PASS")
else
  IFS=$'\t' read -r LARGE LARGE_MS LARGE_N < <(pick 20 2)
fi
if [[ -n "$SMALL_PASS" ]]; then
  IFS=$'\t' read -r SMALL SMALL_MS SMALL_N < <(named "$SMALL_PASS")
else
  IFS=$'\t' read -r SMALL SMALL_MS SMALL_N < <(pick 3 2)
fi
if [[ -n "$MODULE_PASS" ]]; then
  IFS=$'\t' read -r MODULE MODULE_MS MODULE_N < <(named "$MODULE_PASS")
else
  IFS=$'\t' read -r MODULE MODULE_MS MODULE_N < <(pick 3 2 1)
fi
IFS=$'\t' read -r LARGEST LARGEST_MS LARGEST_N < <(head -1 "$WORK/passes.tsv")

# One gate; prints the flagged passes (';'-joined, '-' for none), whether
# it flagged a drift, the target's measured relative change in %, the
# passes flagged when the same runs are judged by the other statistic,
# whether the verdict named the target too noisy to judge, the target's
# detectable change in % (docs/gate.md#too-noisy-to-judge), and the runs per
# side the gate ended with.
gate() {  # target percent [flags...]
  local target="$1" percent="$2"
  shift 2
  local status=0
  "$PASSTIMING" gate --runs "$RUNS" --max-runs "$MAX_RUNS" --nice "$NICE" --metrics "$METRICS" --statistic "$STATISTIC" \
    --dir "$WORK/runs" --format json \
    -o "$WORK/verdict.json" --base "$(compile "$target" 0)" --new "$(compile "$target" "$percent")" \
    "$@" 2>"$WORK/gate.err" || status=$?
  if ((status >= 2)); then
    echo "calibrate: passtiming gate failed with status $status:" >&2
    cat "$WORK/gate.err" >&2
    exit 1
  fi
  local other=runs
  [[ "$STATISTIC" == runs ]] && other=matched
  status=0
  "$PASSTIMING" diff --gate --statistic "$other" --format json -o "$WORK/verdict-other.json" \
    --base "$WORK"/runs/base-*.json --new "$WORK"/runs/new-*.json "$@" 2>/dev/null || status=$?
  if ((status >= 2)); then
    echo "calibrate: passtiming diff --gate --statistic $other failed with status $status" >&2
    exit 1
  fi
  python3 - "$WORK/verdict.json" "$target" "$WORK/verdict-other.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
flagged = [r["key"] for r in v["rows"] if r["status"] == "regression"]
row = next((r for r in v["rows"] if r["key"] == sys.argv[2]), None)
change = (row["new_compared"] / row["base_compared"] - 1) * 100 if row and row["base_compared"] else float("nan")
other = [r["key"] for r in json.load(open(sys.argv[3]))["rows"] if r["status"] == "regression"]
named = sys.argv[2] in v["too_noisy"]
detectable = row["detectable_pct"] if row and row["detectable_pct"] is not None else float("nan")
print("\t".join([";".join(flagged) or "-", str(v["drift"]["flagged"]).lower(), f"{change:+.1f}",
                 ";".join(other) or "-", str(named).lower(), f"{detectable:.1f}",
                 str(v["base_profiles"])]))
PY
}

# The neighbour runs while fewer than half of the gate's runs are written.
neighbour_for_half() {
  "$WORK/neighbour" &
  NEIGHBOUR_PID=$!
  (
    while (($(ls "$WORK/runs" 2>/dev/null | grep -c '\.json$' || true) < RUNS)); do sleep 0.2; done
    kill "$NEIGHBOUR_PID" 2>/dev/null || true
  ) &
  WATCHER_PID=$!
}

# TRIES gates of one condition; one table row.
condition() {  # label target percent neighbour [flags...]
  local label="$1" target="$2" pct="$3" neighbour="$4"
  shift 4
  local ms hits=0 others=0 drifts=0 other_hits=0 silent=0 changes="" loads="" detectables="" runs=""
  ms="$(awk -F'\t' -v p="$target" '$1 == p { print $2 }' "$WORK/passes.tsv")"
  for ((try = 1; try <= TRIES; try++)); do
    rm -rf "$WORK/runs"
    [[ "$neighbour" == yes ]] && neighbour_for_half
    IFS=$'\t' read -r flagged drift change other_flagged named detectable ran < <(gate "$target" "$pct" "$@")
    if [[ "$neighbour" == yes ]]; then
      kill "$NEIGHBOUR_PID" 2>/dev/null || true
      # These two only: a bare wait would wait for the busy loops too.
      wait "$NEIGHBOUR_PID" "$WATCHER_PID" 2>/dev/null || true
      NEIGHBOUR_PID=""
    fi
    changes+="$change "
    detectables+="$detectable "
    runs+="$ran "
    loads+="$(cut -d' ' -f1 /proc/loadavg) "
    if [[ ";$flagged;" == *";$target;"* ]]; then
      hits=$((hits + 1))
    elif [[ "$named" != true ]]; then
      silent=$((silent + 1))
    fi
    [[ ";$other_flagged;" == *";$target;"* ]] && other_hits=$((other_hits + 1))
    IFS=';' read -r -a names <<<"$flagged"
    for pass in "${names[@]}"; do
      if [[ "$pass" != "-" && "$pass" != "$target" ]]; then
        others=$((others + 1))
        break
      fi
    done
    [[ "$drift" == true ]] && drifts=$((drifts + 1))
  done
  local load_range detectable_median runs_used
  load_range="$(tr ' ' '\n' <<<"$loads" | sort -g | sed '/^$/d' | sed -n '1p;$p' | paste -sd-)"
  detectable_median="$(tr ' ' '\n' <<<"$detectables" | sed '/^$/d' | sort -g |
    awk '{ v[NR] = $1 } END { if (NR) printf "%+.1f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }')"
  runs_used="$(tr ' ' '\n' <<<"$runs" | sed '/^$/d' | sort -n |
    awk '{ v[NR] = $1 } END { if (NR) printf "%d (%d-%d)", v[int((NR + 1) / 2)], v[1], v[NR] }')"
  printf '%-28s %-22s %8s %7s/%-3s %7s/%-3s %7s/%-3s %7s/%-3s %7s/%-3s %10s %12s %9s  %s\n' "$label" \
    "$target" "$ms" "$hits" "$TRIES" "$silent" "$TRIES" "$others" "$TRIES" "$drifts" "$TRIES" \
    "$other_hits" "$TRIES" "$detectable_median" "$runs_used" "$load_range" "$changes"
}

echo "calibrate: $("$CLANG" --version | head -1) -O2 -c, $DESCRIBED;" \
  "passtiming gate, $RUNS runs per side alternated (at most $MAX_RUNS), nice $NICE, metrics $METRICS," \
  "statistic $STATISTIC;" \
  "$TRIES gates per condition; $LOAD busy loops; load average $(cut -d' ' -f1-3 /proc/loadavg)" \
  "at the start"
printf '%-28s %-22s %8s %11s %11s %11s %11s %11s %10s %12s %9s  %s\n' "condition" "pass" "ms" \
  "flagged" "silent" "others" "drift" "other stat" "detectable" "runs" "load" \
  "measured change of the pass per gate (%)"
for c in $CONDITIONS; do
  case "$c" in
    aa) condition "A/A" "$LARGE" 0 no ;;
    neighbour) condition "A/A, neighbour half the runs" "$LARGE" 0 yes ;;
    large10) condition "+10% (floor 1 ms)" "$LARGE" 10 no ;;
    small10) condition "+10% (floor 0.1 ms)" "$SMALL" 10 no --floor-ms 0.1 ;;
    module10)
      if [[ "$MODULE" == - ]]; then
        echo "calibrate: no pass of one execution per compile takes 2 ms or more" >&2
      else
        condition "+10% module (floor 0.1 ms)" "$MODULE" 10 no --floor-ms 0.1
      fi
      ;;
    large4.4) condition "+4.4% (floor 1 ms)" "$LARGE" 4.4 no ;;
    largest3) condition "+3% (floor 1 ms)" "$LARGEST" 3 no ;;
    *) echo "calibrate: unknown condition '$c'" >&2 && exit 2 ;;
  esac
done
echo "calibrate: load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
