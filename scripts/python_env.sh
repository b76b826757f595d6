#!/usr/bin/env bash
# Makes (once per machine) and prints the path of a Python environment with
# the packages of scripts/python/NAME.txt, kept outside the clone so that
# every clone on the machine reuses it: torch alone is several GB.
#   scripts/python_env.sh tilelang      -> ~/.cache/passtiming/python/tilelang-<hash>
#   scripts/python_env.sh apache-tvm
#   scripts/python_env.sh fleet
#   scripts/python_env.sh packaging       (the wheel's build tools)
#   scripts/python_env.sh wheel-tilelang  (a TileLang user's: `pip install tilelang`)
# PASSTIMING_CACHE_DIR moves the cache (default ~/.cache/passtiming). The
# environment's name carries a hash of the requirements, so a changed pin
# makes a new one; one left half-made by an interrupted install (no
# .complete marker) is made again.
set -euo pipefail
name="${1:?usage: scripts/python_env.sh tilelang|apache-tvm|fleet|packaging|wheel-tilelang}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
requirements="$root/scripts/python/$name.txt"
if [[ ! -f $requirements ]]; then
  echo "scripts/python_env.sh: no requirements file $requirements" >&2
  exit 2
fi
hash="$(sha256sum "$requirements" | cut -c1-12)"
cache="${PASSTIMING_CACHE_DIR:-$HOME/.cache/passtiming}"
env_dir="$cache/python/$name-$hash"
if [[ ! -f $env_dir/.complete ]]; then
  echo "passtiming: making the Python environment $env_dir (once per machine)" >&2
  mkdir -p "$cache/python"
  rm -rf "$env_dir"
  # Debian's interpreter: the extension is built for it, and it is the
  # interpreter of every clone on this machine.
  /usr/bin/python3 -m venv "$env_dir"
  "$env_dir/bin/python" -m pip install --quiet --disable-pip-version-check \
    --no-input -r "$requirements" >&2
  touch "$env_dir/.complete"
fi
echo "$env_dir"
