#!/usr/bin/env bash
# What passtiming's native TVM instrument adds per pass execution, beside no
# instrument and upstream TileLang's pure-Python one (bench/tvm/instrument_cost.py),
# in one of the Python environments scripts/python_env.sh makes, with the
# passtiming package of the build tree.
#
#   bench/tvm/instrument_cost.sh [tilelang|apache-tvm] [sequential|gemm] [OPTIONS]
#     tilelang     TileLang with its bundled TVM (default): bare, null, upstream, passtiming
#     apache-tvm   apache-tvm from PyPI, no TileLang: bare, null, passtiming (sequential only)
#     sequential   a Sequential of 200 cheap real passes (default);
#                  --passes N, --pass removenoop|identity [--same-name],
#                  --contexts N, --rounds N (101)
#     gemm         TileLang's lowering of the tiled GEMM for CUDA; --rounds N (15),
#                  --metrics LIST (repeatable): passtiming recording those metrics too
# PASSTIMING_PYTHON_MODULE_DIR=the directory holding the built `passtiming`
# package (default: build/python).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
env_name=tilelang
if [[ ${1:-} == tilelang || ${1:-} == apache-tvm ]]; then
  env_name="$1"
  shift
fi
module_dir="${PASSTIMING_PYTHON_MODULE_DIR:-$root/build/python}"
if [[ ! -f $module_dir/passtiming/libpasstiming_tvm.so ]]; then
  echo "instrument_cost: no $module_dir/passtiming/libpasstiming_tvm.so" \
    "(build with PASSTIMING_PYTHON and the TVM adapter)" >&2
  exit 2
fi
env_dir="$("$root/scripts/python_env.sh" "$env_name")"
PYTHONPATH="$module_dir" PYTHONDONTWRITEBYTECODE=1 \
  exec "$env_dir/bin/python" "$root/bench/tvm/instrument_cost.py" "$@"
