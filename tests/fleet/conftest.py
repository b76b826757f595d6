"""Fixtures of the fleet's tests: a real ClickHouse server (Debian's
clickhouse-server) on a loopback port with a data directory of its own, the
`passtiming` command, and real profiles.

- `clickhouse`: the session's server; `.url`, `.query(sql) -> str` (the
  reply as text, TabSeparated unless the SQL says otherwise), `.kill()`
  (SIGKILL), `.start()` (again, on the same directory and port).
- `passtiming_cli`: the path of the `passtiming` executable.
- `particles_profile`: a profile of a real `clang-19 -O2` compile of
  examples/c/particles.c, made once per session by `passtiming run`.
- `replicas`: ZooKeeper and two clickhouse-server replicas of one shard
  (r1, r2), started once per session (clickhouse_server.replica_pair).

Nothing here is skipped: a missing server, CLI or compiler fails the tests.
Only 127.0.0.1 is ever connected to.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from clickhouse_server import ClickHouse, ZooKeeper, replica_pair  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def clickhouse():
    directory = tempfile.mkdtemp(prefix="passtiming-clickhouse-")
    server = ClickHouse(directory)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="session")
def replicas():
    directory = tempfile.mkdtemp(prefix="passtiming-replicas-")
    zookeeper = ZooKeeper(Path(directory) / "zookeeper")
    servers = replica_pair(directory, zookeeper)
    try:
        zookeeper.start()
        for server in servers:
            server.start()
        yield servers
    finally:
        # Killed: a replica takes many seconds to stop, and its data goes.
        for server in servers:
            server.kill()
        zookeeper.stop()
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="session")
def passtiming_cli():
    path = os.environ.get("PASSTIMING_CLI")
    if not path or not os.access(path, os.X_OK):
        pytest.fail("PASSTIMING_CLI must name the built passtiming executable")
    return path


@pytest.fixture(scope="session")
def particles_profile(passtiming_cli, tmp_path_factory):
    """A real profile: clang-19 -O2 on examples/c/particles.c under `passtiming run`."""
    clang = os.environ.get("PASSTIMING_CLANG") or shutil.which("clang-19")
    if clang is None:
        pytest.fail("clang-19 is not installed")
    path = tmp_path_factory.mktemp("profiles") / "particles.json"
    result = subprocess.run(
        [passtiming_cli, "run", "--no-report", "-o", str(path), "--",
         clang, "-O2", "-c", str(REPO / "examples" / "c" / "particles.c"), "-o", os.devnull],
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert path.exists(), result.stderr
    return path
