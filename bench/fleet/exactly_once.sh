#!/usr/bin/env bash
# The push's figures beside clickhouse-client's (bench/fleet/exactly_once.py):
# many small profiles pushed, and the check of a re-push on a 40M-row table,
# on a clickhouse-server of its own and on two replicas with ZooKeeper, all
# on loopback.
#   bench/fleet/exactly_once.sh [ROUNDS] [PARTS]   (after scripts/demo.sh or test.sh)
# PARTS: small,blocks,repush (the default: all) picks the measures.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${PASSTIMING_BUILD_DIR:-$root/build}"
python="$("$root/scripts/python_env.sh" fleet)/bin/python"
exec "$python" "$root/bench/fleet/exactly_once.py" \
  --cli "$build/tools/passtiming/passtiming" --rounds "${1:-3}" --parts "${2:-small,blocks,repush}"
