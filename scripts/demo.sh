#!/usr/bin/env bash
# The main job: set up, build, and time the bundled example pipeline,
# printing the pass timing report.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
TILELANG_PASS_PROFILE=1 "$BUILD_DIR/examples/tile_pipeline" "$@"
