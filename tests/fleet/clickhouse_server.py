"""A ClickHouse server of its own for the fleet's tests and benchmarks:
Debian's clickhouse-server on loopback ports, with a data directory of its
own, a one-shard cluster (`passtiming_cluster`) that is the server itself,
and UTC as its time zone. Only 127.0.0.1 is ever connected to."""

import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

# Only loopback, whatever proxy the environment names.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))

_CONFIG = """<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>{dir}/server.log</log><errorlog>{dir}/error.log</errorlog><console>0</console></logger>
  <http_port>{port}</http_port>
  <tcp_port>{tcp_port}</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <remote_servers>
    <passtiming_cluster>
      <shard><replica><host>127.0.0.1</host><port>{tcp_port}</port></replica></shard>
    </passtiming_cluster>
  </remote_servers>
  <path>{dir}/data/</path>
  <tmp_path>{dir}/tmp/</tmp_path>
  <user_files_path>{dir}/user_files/</user_files_path>
  <format_schema_path>{dir}/format_schemas/</format_schema_path>
  <users_config>{dir}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mark_cache_size>268435456</mark_cache_size>
</yandex>
"""

_USERS = """<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>4000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks><profile>default</profile><quota>default</quota></default></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
"""


def free_port():
    """A loopback port nothing listens on (at the moment of asking)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerError(RuntimeError):
    """The server could not be started."""


class QueryError(RuntimeError):
    """The server answered a query with an error status."""


class ClickHouse:
    """A clickhouse-server process of the test session."""

    def __init__(self, directory):
        self.dir = Path(directory)
        self.port = free_port()
        # The native port serves docs/fleet.md's Distributed table, whose
        # one-shard cluster (passtiming_cluster) is this server itself.
        self.tcp_port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = None
        binary = shutil.which("clickhouse-server")
        if binary is None:
            raise ServerError("clickhouse-server is not installed (scripts/setup.sh installs it)")
        self.binary = binary
        (self.dir / "config.xml").write_text(_CONFIG.format(dir=self.dir, port=self.port, tcp_port=self.tcp_port))
        (self.dir / "users.xml").write_text(_USERS)

    def start(self, timeout=30.0):
        """Starts the server (again) and waits until `SELECT 1` answers."""
        assert self.process is None or self.process.poll() is not None, "already running"
        self.process = subprocess.Popen(
            [self.binary, f"--config-file={self.dir / 'config.xml'}"],
            stdin=subprocess.DEVNULL,
            stdout=open(self.dir / "stdout.log", "ab"),
            stderr=subprocess.STDOUT,
            cwd=self.dir,
        )
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self.query("SELECT 1", timeout=2).strip() == "1":
                    return
            except (OSError, QueryError):
                pass
            if self.process.poll() is not None:
                raise ServerError(f"clickhouse-server exited with {self.process.returncode}: "
                            f"{self._log_tail()}")
            if time.monotonic() > deadline:
                raise ServerError(f"clickhouse-server did not answer in {timeout} s: {self._log_tail()}")
            time.sleep(0.05)

    def kill(self):
        """SIGKILL: the server dies as in a crash, in the middle of whatever it does."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()

    def query(self, sql, timeout=30, settings=None):
        """Runs `sql`, with ClickHouse `settings` (a dict) as URL parameters
        (18.16 has no SETTINGS clause in SELECT); returns the reply's text.
        Raises QueryError with the server's message on an error status."""
        url = self.url + "/"
        if settings:
            url += "?" + urllib.parse.urlencode(settings)
        request = urllib.request.Request(url, data=sql.encode(), method="POST")
        try:
            with _OPENER.open(request, timeout=timeout) as reply:
                return reply.read().decode()
        except urllib.error.HTTPError as e:
            raise QueryError(f"{sql[:200]}: HTTP {e.code}: {e.read().decode(errors='replace')}")

    def _log_tail(self):
        texts = []
        for name in ("error.log", "stdout.log"):
            path = self.dir / name
            if path.exists():
                texts.append(path.read_text(errors="replace")[-2000:])
        return "\n".join(texts)
