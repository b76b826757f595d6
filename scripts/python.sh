#!/usr/bin/env bash
# Runs the TileLang environment's interpreter with the built `passtiming`
# package importable:  scripts/python.sh my_compile.py
# (after scripts/demo.sh or scripts/test.sh has built it).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PASSTIMING_BUILD_DIR:-$root/build}"
env_dir="$("$root/scripts/python_env.sh" tilelang)"
export PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}"
exec "$env_dir/bin/python" "$@"
