#!/usr/bin/env bash
# Builds the core, the CLI and the test suites under AddressSanitizer +
# UndefinedBehaviorSanitizer (build-asan) and under ThreadSanitizer
# (build-tsan) from the CMake presets, and runs them: every test under
# ASan+UBSan, the threaded tests under TSan. The LLVM/MLIR adapters and the
# Python package are off in these builds (PASSTIMING_WITH_LLVM/MLIR/TVM=OFF,
# PASSTIMING_PYTHON=OFF): their libraries are not built with the sanitizers.
#
#   scripts/sanitizers.sh [asan|tsan]...      (default: both)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${root}"
jobs="${PASSTIMING_JOBS:-2}"
which=("$@")
if [[ ${#which[@]} -eq 0 ]]; then which=(asan tsan); fi

for kind in "${which[@]}"; do
  case "${kind}" in
    asan)
      cmake --preset asan-ubsan >/dev/null
      ninja -C build-asan -j"${jobs}"
      # Leaks are errors and any report stops the test. The preset turns the
      # headless-Chromium test off (PASSTIMING_BROWSER_TESTS=OFF).
      ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1" \
      UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
        ctest --test-dir build-asan -j"${jobs}" --output-on-failure
      ;;
    tsan)
      cmake --preset tsan >/dev/null
      ninja -C build-tsan -j"${jobs}" reliability_tests host_tests formats_tests
      TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1" \
        ctest --test-dir build-tsan -j"${jobs}" --output-on-failure -R 'Concurrency|PassContext|Session|EventLogWriter'
      ;;
    *) echo "usage: $0 [asan|tsan]..." >&2; exit 2 ;;
  esac
done
