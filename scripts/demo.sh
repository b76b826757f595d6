#!/usr/bin/env bash
# The main job: set up, build, and time a real compile, printing the report.
#   scripts/demo.sh            clang-19 -O2 on examples/c/particles.c (passes >= 1 ms)
#   scripts/demo.sh mlir       the tiled-matmul MLIR pipeline through passtiming-mlir-opt
#   scripts/demo.sh tile       a TileLang-shaped PassContext pipeline (three contexts)
#   scripts/demo.sh tilelang   a real TileLang GEMM lowered by TileLang (passes >= 1 ms)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$PASSTIMING_ROOT"
case "${1:-llvm}" in
  llvm)
    "$BUILD_DIR/tools/passtiming/passtiming" run --threshold-ms 1 \
      -- clang-19 -O2 -c examples/c/particles.c -o "$BUILD_DIR/particles.o"
    ;;
  mlir)
    "$BUILD_DIR/adapters/mlir/passtiming-mlir-opt" examples/mlir/matmul_tiled.mlir \
      --pass-pipeline="$(cat examples/mlir/pipeline.txt)" --passtiming -o /dev/null
    ;;
  tile)
    TILELANG_PASS_PROFILE=1 "$BUILD_DIR/examples/tile_pipeline"
    ;;
  tilelang)
    "$BUILD_DIR/tools/passtiming/passtiming" run --threshold-ms 1 \
      -- "$TILELANG_ENV/bin/python" examples/tilelang/gemm.py
    ;;
  *)
    echo "usage: scripts/demo.sh [llvm|mlir|tile|tilelang]" >&2
    exit 2
    ;;
esac
