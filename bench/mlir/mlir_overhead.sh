#!/usr/bin/env bash
# Overhead of passtiming's MLIR instrumentation against MLIR's own
# -mlir-timing, side by side in one hyperfine run, on the bundled tiled-matmul
# pipeline over a module of 8 x 4 kernels (threaded, as mlir-opt runs it).
#
#   bench/mlir/mlir_overhead.sh [path/to/passtiming-mlir-opt] [copies]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
tool="${1:-$root/build/adapters/mlir/passtiming-mlir-opt}"
copies="${2:-8}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The example's kernels repeated `copies` times under new names; the
# transform schedule once at the end.
python3 "$root/bench/mlir/repeat_kernels.py" "$root/examples/mlir/matmul_tiled.mlir" "$copies" > "$work/input.mlir"

pipeline="$(tr -d '\n' < "$root/examples/mlir/pipeline.txt")"
run="$tool $work/input.mlir --pass-pipeline='$pipeline' -o /dev/null"
hyperfine --warmup 3 --min-runs 30 -N \
  -n "no-timing"    "$run" \
  -n "mlir-timing"   "$run -mlir-timing" \
  -n "passtiming"    "$run --passtiming" \
  "${@:3}"
