#!/usr/bin/env bash
# Installs the Debian packages passtiming needs (only those missing) and the
# Python environments (scripts/python_env.sh, once per machine), then
# configures and builds into build/. Sourced by demo.sh and test.sh.
set -euo pipefail
PASSTIMING_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${PASSTIMING_BUILD_DIR:-$PASSTIMING_ROOT/build}"

PACKAGES=(
  cmake ninja-build g++ pkg-config
  make python3 libfmt-dev libsimdjson-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  llvm-19-dev clang-19 libclang-rt-19-dev clang-format-19
  libmlir-19-dev mlir-19-tools
  python3-dev python3-venv pybind11-dev python3-pytest
  chromium hyperfine
  libcurl4-openssl-dev libzookeeper-mt-dev clickhouse-server clickhouse-client zookeeper
  dpkg-dev
)

missing=()
for package in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done
if ((${#missing[@]})); then
  echo "passtiming: installing ${missing[*]}" >&2
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# The Python environments (TileLang with its TVM and torch; Apache TVM; the
# fleet's tests; the wheel's build tools; a TileLang user's own, from an
# unpinned `pip install tilelang`), made once per machine outside the clone.
# The package is built for the first.
TILELANG_ENV="$("$PASSTIMING_ROOT/scripts/python_env.sh" tilelang)"
APACHE_TVM_ENV="$("$PASSTIMING_ROOT/scripts/python_env.sh" apache-tvm)"
FLEET_ENV="$("$PASSTIMING_ROOT/scripts/python_env.sh" fleet)"
PACKAGING_ENV="$("$PASSTIMING_ROOT/scripts/python_env.sh" packaging)"
WHEEL_TILELANG_ENV="$("$PASSTIMING_ROOT/scripts/python_env.sh" wheel-tilelang)"

cmake -S "$PASSTIMING_ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPASSTIMING_PYTHON=ON -DPASSTIMING_CHECK_FORMAT=ON \
  -DPython_EXECUTABLE="$TILELANG_ENV/bin/python" \
  -DPASSTIMING_APACHE_TVM_PYTHON="$APACHE_TVM_ENV/bin/python" \
  -DPASSTIMING_FLEET_PYTHON="$FLEET_ENV/bin/python" \
  -DPASSTIMING_PACKAGING_PYTHON="$PACKAGING_ENV/bin/python" \
  -DPASSTIMING_WHEEL_TILELANG_ENV="$WHEEL_TILELANG_ENV" ${PASSTIMING_CMAKE_ARGS:-} >&2
cmake --build "$BUILD_DIR" >&2
