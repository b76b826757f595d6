#!/usr/bin/env bash
# Installs the Debian packages passtiming needs (only those missing), then
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
  python3-dev pybind11-dev python3-pytest
  chromium hyperfine
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

cmake -S "$PASSTIMING_ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPASSTIMING_PYTHON=ON -DPASSTIMING_CHECK_FORMAT=ON ${PASSTIMING_CMAKE_ARGS:-} >&2
cmake --build "$BUILD_DIR" >&2
