#!/usr/bin/env bash
# Fetches zlib 1.3.1's sources, a real project's C files for
# bench/gate/calibrate.sh (INPUT=...), from the npm package zlib-sync 0.1.10,
# which bundles them under deps/zlib (npm pack: the registry's tarball, by
# name and version). Kept outside the clone, in ~/.cache/passtiming/inputs
# (or $PASSTIMING_INPUTS), once per machine; prints the directory of the
# C files.
#
#     INPUT="$(bench/gate/fetch_zlib.sh)/inflate.c" bench/gate/calibrate.sh
set -euo pipefail
CACHE="${PASSTIMING_INPUTS:-$HOME/.cache/passtiming/inputs}"
DIR="$CACHE/zlib-sync-0.1.10/package/deps/zlib"
if [[ ! -f "$DIR/inflate.c" ]]; then
  mkdir -p "$CACHE/zlib-sync-0.1.10"
  (cd "$CACHE" && npm pack --silent zlib-sync@0.1.10 >/dev/null)
  tar -xzf "$CACHE/zlib-sync-0.1.10.tgz" -C "$CACHE/zlib-sync-0.1.10"
fi
grep -q 'version 1.3.1' "$DIR/zlib.h" || {
  echo "fetch_zlib: $DIR/zlib.h is not zlib 1.3.1" >&2
  exit 1
}
echo "$DIR"
