"""A ClickHouse server of its own for the fleet's tests and benchmarks:
Debian's clickhouse-server on loopback ports, with a data directory of its
own, a one-shard cluster (`passtiming_cluster`) that is the server itself,
and UTC as its time zone. Only 127.0.0.1 is ever connected to.

`ZooKeeper` and `replica_pair` make the replicated setup of docs/fleet.md:
Debian's ZooKeeper 3.8 (the `zookeeper` package) on a loopback port with a
data directory of its own, and two clickhouse-server replicas of one shard
(macros `{shard}` and `{replica}`, an interserver port each, the cluster
`passtiming_cluster` of both)."""

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
      <shard>{shard}</shard>
    </passtiming_cluster>
  </remote_servers>{replication}
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
  <users><default><password></password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks><profile>default</profile><quota>default</quota></default>
    <pusher><password>{password}</password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks><profile>default</profile><quota>default</quota></pusher></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
"""


# The password of the user `pusher`, for the tests that no message shows it.
PUSHER_PASSWORD = "s3cret-Pw.42"


def free_port():
    """A loopback port nothing listens on (at the moment of asking)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# The replicated part of a replica's configuration: ZooKeeper, the macros
# that name its shard and replica in a ReplicatedReplacingMergeTree path,
# and the port other replicas fetch its parts from.
_REPLICATION = """
  <zookeeper><node><host>127.0.0.1</host><port>{zookeeper_port}</port></node>
    <session_timeout_ms>2000</session_timeout_ms></zookeeper>
  <macros><shard>01</shard><replica>{replica}</replica></macros>
  <interserver_http_port>{interserver_port}</interserver_http_port>
  <interserver_http_host>127.0.0.1</interserver_http_host>"""

_ZOO_CFG = """tickTime=500
initLimit=10
syncLimit=5
dataDir={dir}/data
clientPort={port}
clientPortAddress=127.0.0.1
maxClientCnxns=0
admin.enableServer=false
4lw.commands.whitelist=srvr
"""


class ServerError(RuntimeError):
    """The server could not be started."""


class QueryError(RuntimeError):
    """The server answered a query with an error status."""


class ClickHouse:
    """A clickhouse-server process of the test session."""

    def __init__(self, directory, zookeeper=None, replica=None, peers=()):
        """A server in `directory`; with `zookeeper` (a ZooKeeper), the
        replica `replica` of shard 01, in the cluster passtiming_cluster
        with `peers` (other ClickHouse objects, made before starting)."""
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        # The native port serves docs/fleet.md's Distributed table, whose
        # one-shard cluster (passtiming_cluster) is this server itself.
        self.tcp_port = free_port()
        self.interserver_port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.replica = replica
        self.process = None
        binary = shutil.which("clickhouse-server")
        if binary is None:
            raise ServerError("clickhouse-server is not installed (scripts/setup.sh installs it)")
        self.binary = binary
        self.zookeeper = zookeeper
        self.peers = list(peers)
        self.write_config()
        (self.dir / "users.xml").write_text(_USERS.format(password=PUSHER_PASSWORD))

    def write_config(self):
        # One shard: this server alone, or the replicas, each of which
        # stores every row itself (internal_replication).
        shard = f"<replica><host>127.0.0.1</host><port>{self.tcp_port}</port></replica>"
        replication = ""
        if self.zookeeper is not None:
            shard = "<internal_replication>true</internal_replication>" + "".join(
                f"<replica><host>127.0.0.1</host><port>{s.tcp_port}</port></replica>"
                for s in sorted([self, *self.peers], key=lambda s: s.replica))
            replication = _REPLICATION.format(zookeeper_port=self.zookeeper.port,
                                              replica=self.replica,
                                              interserver_port=self.interserver_port)
        (self.dir / "config.xml").write_text(_CONFIG.format(
            dir=self.dir, port=self.port, tcp_port=self.tcp_port, shard=shard,
            replication=replication))

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


class ZooKeeper:
    """Debian's ZooKeeper (standalone) on a loopback port, with a data
    directory of its own; run with java, as the package's zkServer.sh does."""

    JAR = Path("/usr/share/java/zookeeper.jar")

    def __init__(self, directory):
        self.dir = Path(directory)
        (self.dir / "data").mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.process = None
        self.java = shutil.which("java")
        if self.java is None or not self.JAR.exists():
            raise ServerError("ZooKeeper is not installed: the zookeeper package "
                              "(scripts/setup.sh installs it)")
        (self.dir / "zoo.cfg").write_text(_ZOO_CFG.format(dir=self.dir, port=self.port))

    def start(self, timeout=30.0):
        self.process = subprocess.Popen(
            [self.java, "-Xmx256m", f"-Dzookeeper.log.dir={self.dir}", "-cp", f"{self.JAR}:/usr/share/java/slf4j-simple.jar",
             "org.apache.zookeeper.server.ZooKeeperServerMain", str(self.dir / "zoo.cfg")],
            stdin=subprocess.DEVNULL, stdout=open(self.dir / "zookeeper.log", "ab"),
            stderr=subprocess.STDOUT, cwd=self.dir)
        deadline = time.monotonic() + timeout
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    # `srvr` answers with the version only once the server
                    # serves requests (`ruok` says imok before that).
                    s.sendall(b"srvr")
                    if s.recv(64).startswith(b"Zookeeper version"):
                        return
            except OSError:
                pass
            if self.process.poll() is not None:
                raise ServerError(f"ZooKeeper exited with {self.process.returncode}: "
                                  + (self.dir / "zookeeper.log").read_text(errors="replace")[-2000:])
            if time.monotonic() > deadline:
                raise ServerError(f"ZooKeeper did not answer in {timeout} s")
            time.sleep(0.05)

    def stop(self):
        """Killed: its data directory is a test's, thrown away."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def replica_pair(directory, zookeeper):
    """Two replicas of shard 01 (`r1`, `r2`) on ZooKeeper `zookeeper`, not
    yet started: each one's cluster passtiming_cluster names both."""
    directory = Path(directory)
    first = ClickHouse(directory / "r1", zookeeper, "r1")
    second = ClickHouse(directory / "r2", zookeeper, "r2", peers=[first])
    first.peers = [second]
    first.write_config()
    return first, second
