#!/usr/bin/env bash
# Builds the libFuzzer targets in build-fuzz (clang-19, ASan + UBSan) and runs
# each for a bounded time on a copy of its committed seed corpus.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 30 s, all targets)
#   scripts/fuzz.sh --runs=N [TARGET...]                  (N executions per target)
# PASSTIMING_FUZZ_MAX_LEN sets the largest input (default 4096 bytes) and
# PASSTIMING_FUZZ_TIMEOUT the seconds one input may take (default 10; raise
# it when the fuzzers share the machine, since the limit is wall time).
# PASSTIMING_FUZZ_SANITIZERS (default "address,undefined") chooses the
# sanitizers; a build per choice, so "undefined" alone (several times more
# executions per second where exceptions are frequent) can run beside it.
#
# Exits non-zero when a target finds a crash, a leak, undefined behaviour or
# an invariant violation; the reproducer is left in build-fuzz/findings/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ "${1:-}" == --runs=* ]]; then
  limit="-runs=${1#--runs=}"
  what="${1#--runs=} executions"
else
  limit="-max_total_time=${1:-30}"
  what="${1:-30} s"
fi
shift || true
sanitizers="${PASSTIMING_FUZZ_SANITIZERS:-address,undefined}"
build="${root}/build-fuzz"
if [[ "${sanitizers}" != "address,undefined" ]]; then build="${root}/build-fuzz-${sanitizers//,/-}"; fi
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then targets=(callbacks event_log profile_json settings); fi

# The fuzz directory configures on its own, pulling the library in from the
# parent, so this works whatever the top-level options are.
cmake -S "${root}/fuzz" -B "${build}" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++-19 \
  "-DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link,${sanitizers} -fno-sanitize-recover=all -fno-omit-frame-pointer" \
  "-DPASSTIMING_FUZZ_SANITIZERS=${sanitizers}" \
  >/dev/null
ninja -C "${build}" -j2 "${targets[@]/%/_fuzzer}"

export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
mkdir -p "${build}/findings"
status=0
for target in "${targets[@]}"; do
  work="${build}/corpus/${target}"
  mkdir -p "${work}"
  cp -n "${root}/fuzz/corpus/${target}/"* "${work}/" 2>/dev/null || true
  echo "== ${target}: ${what}"
  if ! "${build}/${target}_fuzzer" "${work}" "${limit}" -max_len="${PASSTIMING_FUZZ_MAX_LEN:-4096}" \
       -timeout="${PASSTIMING_FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="${build}/findings/${target}-" 2>"${build}/${target}.log"; then
    echo "FAILED: ${target} (see ${build}/${target}.log and ${build}/findings/)"
    tail -n 40 "${build}/${target}.log"
    status=1
  fi
  grep -E '^stat::number_of_executed_units|^stat::average_exec_per_sec|^stat::new_units_added|^stat::peak_rss_mb' \
    "${build}/${target}.log" | sed "s/^/  /" || true
done
exit "${status}"
