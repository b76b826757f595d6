#!/usr/bin/env bash
# The fleet's figures: export and push of a 1M-record profile beside the
# server's own ingest, and the documented queries over 10M rows, on a
# clickhouse-server of its own on loopback (bench/fleet/push_and_query.py).
#   bench/fleet/push_and_query.sh [ROUNDS]       (after scripts/demo.sh or test.sh)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${PASSTIMING_BUILD_DIR:-$root/build}"
python="$("$root/scripts/python_env.sh" fleet)/bin/python"
exec "$python" "$root/bench/fleet/push_and_query.py" \
  --cli "$build/tools/passtiming/passtiming" --rounds "${1:-3}"
