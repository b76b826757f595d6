#!/usr/bin/env bash
# Set up, build, and run the whole test suite, then the core, CLI and test
# suites again under ASan+UBSan and the threaded tests under TSan, then each
# fuzzer for a bounded time on its seed corpus.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j2
"$PASSTIMING_ROOT/scripts/sanitizers.sh"
"$PASSTIMING_ROOT/scripts/fuzz.sh" 20
