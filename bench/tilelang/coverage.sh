#!/usr/bin/env bash
# How much of a real TileLang compile (a GEMM built with nvcc and with NVRTC)
# passtiming's phases cover (bench/tilelang/coverage.py), in the TileLang
# environment of scripts/python_env.sh (TileLang, torch and pip's CUDA
# compiler), with the passtiming package of the build tree.
#
#   bench/tilelang/coverage.sh [--runs N] [--backends cython,nvrtc] [--size 512] [--arch sm_90a]
# PASSTIMING_PYTHON_MODULE_DIR=the directory holding the built `passtiming`
# package (default: build/python).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
module_dir="${PASSTIMING_PYTHON_MODULE_DIR:-$root/build/python}"
if [[ ! -f $module_dir/passtiming/libpasstiming_tvm.so ]]; then
  echo "coverage: no $module_dir/passtiming/libpasstiming_tvm.so" \
    "(build with PASSTIMING_PYTHON and the TVM adapter)" >&2
  exit 2
fi
env_dir="$("$root/scripts/python_env.sh" tilelang)"
PYTHONPATH="$module_dir" PYTHONDONTWRITEBYTECODE=1 \
  exec "$env_dir/bin/python" "$root/bench/tilelang/coverage.py" "$@"
