"""`passtiming push` against a real ClickHouse server (clickhouse-server,
started by the `clickhouse` fixture): what it stores, that a repeated or
resumed push stores nothing twice, and how it fails — a server killed in the
middle of a push, a refused connection, a slow server, a reply lost after the
server stored the rows, another schema, an unknown table, bad input.

Every test has a table of its own. Profiles are real: a clang-19 compile
timed by `passtiming run`, and synthetic profiles written in the profile
format (docs/profile-format.md) for volume.
"""

import json
import socket
import subprocess
import threading
import time
from collections import Counter, defaultdict

import pytest

from clickhouse_server import free_port
from synthetic_profiles import write_profile

ROW_COLUMNS = [
    ("schema_version", "UInt8"), ("run_id", "String"), ("host", "String"),
    ("start_time", "DateTime"), ("command", "String"), ("tool", "String"),
    ("commit", "String"), ("build_id", "String"), ("meta_keys", "Array(String)"),
    ("meta_values", "Array(String)"), ("section", "UInt32"), ("context", "String"),
    ("sequence", "UInt32"), ("parent_sequence", "Int64"), ("pass", "String"),
    ("kernel", "String"), ("depth", "UInt16"), ("thread", "UInt64"), ("start_ns", "UInt64"),
    ("inclusive_ns", "UInt64"), ("self_ns", "UInt64"), ("failed", "UInt8"),
]

# --- helpers ---------------------------------------------------------------


def push(cli, files, url, *args, timeout=120):
    return subprocess.run([cli, "push", *map(str, files), "--clickhouse", url, *args],
                          capture_output=True, text=True, timeout=timeout)


def profile_records(path):
    """(section, record) of every record of a JSON profile."""
    with open(path) as f:
        profile = json.load(f)
    return [(s, r) for s, section in enumerate(profile["sections"]) for r in section["records"]]


def self_ns_by_pass(path):
    sums = Counter()
    for _, r in profile_records(path):
        sums[r["name"]] += r["self_ns"]
    return dict(sums)


def tsv(text):
    return [line.split("\t") for line in text.splitlines()]


def count_and_unique(clickhouse, table):
    """count() and the distinct (run_id, section, sequence), without FINAL:
    a pass execution stored twice counts twice."""
    count, unique = tsv(clickhouse.query(
        f"SELECT count(), uniqExact(run_id, section, sequence) FROM {table}"))[0]
    return int(count), int(unique)


def stored_self_ns_by_pass(clickhouse, table):
    return {p: int(n) for p, n in tsv(clickhouse.query(
        f"SELECT pass, sum(self_ns) FROM {table} GROUP BY pass"))}


def export_rows(cli, path, *meta):
    result = subprocess.run([cli, "export", str(path), "--to", "rows", *meta],
                            capture_output=True, text=True, check=True)
    return result.stdout.splitlines()


class Proxy:
    """A TCP proxy on loopback in front of the server, one HTTP/1.1 exchange
    at a time per connection (libcurl sends a request, then waits for its
    reply):
    - `delay`: each reply is held that many seconds;
    - `insert_delay`: each INSERT request is held that many seconds before
      it is forwarded (an INSERT still in transit when its pusher dies);
      `forwarded` counts the INSERTs forwarded;
    - `insert_faults`: what happens to the successive INSERT requests:
      "drop_reply" (forwarded, the server stores the rows, then the reply is
      dropped and the connection closed), "503" (answered 503, not
      forwarded), "500" (answered 500 with a ClickHouse error, not
      forwarded), None (forwarded)."""

    def __init__(self, upstream_port, delay=0.0, insert_faults=(), insert_delay=0.0):
        self.upstream_port = upstream_port
        self.delay = delay
        self.insert_delay = insert_delay
        self.forwarded = 0
        self.insert_faults = list(insert_faults)
        self.inserts = 0
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(16)
        self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}"
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self):
        self.closed = True
        self.server.close()

    def _accept(self):
        while not self.closed:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    class _Reader:
        """Buffered reads of HTTP messages from a socket."""

        def __init__(self, sock):
            self.sock = sock
            self.buffer = b""

        def _fill(self):
            data = self.sock.recv(65536)
            if not data:
                raise EOFError
            self.buffer += data

        def until(self, marker):
            while marker not in self.buffer:
                self._fill()
            text, _, self.buffer = self.buffer.partition(marker)
            return text + marker

        def exactly(self, n):
            while len(self.buffer) < n:
                self._fill()
            text, self.buffer = self.buffer[:n], self.buffer[n:]
            return text

        def message(self):
            """One request or reply: the head and the body (by
            Content-Length, chunked, or none)."""
            head = self.until(b"\r\n\r\n")
            fields = {}
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                fields[name.strip().lower()] = value.strip().lower()
            if b"content-length" in fields:
                return head, head + self.exactly(int(fields[b"content-length"]))
            if fields.get(b"transfer-encoding") == b"chunked":
                text = head
                while True:
                    size_line = self.until(b"\r\n")
                    text += size_line
                    size = int(size_line.split(b";")[0], 16)
                    text += self.exactly(size + 2)
                    if size == 0:
                        return head, text
            return head, head

    def _serve(self, client):
        upstream = None
        try:
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            requests, replies = self._Reader(client), self._Reader(upstream)
            while True:
                head, request = requests.message()
                fault = None
                is_insert = b"query=INSERT" in head.split(b"\r\n", 1)[0]
                if is_insert:
                    self.inserts += 1
                    if self.insert_faults:
                        fault = self.insert_faults.pop(0)
                if fault in ("503", "500"):
                    status, body = (
                        (b"503 Service Unavailable", b"Service Unavailable") if fault == "503"
                        else (b"500 Internal Server Error",
                              b"Code: 999, e.displayText() = DB::Exception: simulated failure\n"
                              b", e.what() = DB::Exception\n"))
                    client.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Length: "
                                   + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n"
                                   + body)
                    return
                if is_insert and self.insert_delay:
                    time.sleep(self.insert_delay)
                upstream.sendall(request)
                if is_insert:
                    self.forwarded += 1
                _, reply = replies.message()
                if fault == "drop_reply":
                    return
                if self.delay:
                    time.sleep(self.delay)
                client.sendall(reply)
        except (OSError, EOFError):
            pass
        finally:
            for sock in (client, upstream):
                if sock is not None:
                    try:
                        sock.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                    sock.close()


@pytest.fixture
def proxy(clickhouse):
    made = []

    def make(**kwargs):
        p = Proxy(clickhouse.port, **kwargs)
        made.append(p)
        return p

    yield make
    for p in made:
        p.close()


@pytest.fixture(scope="module")
def big_profile(tmp_path_factory):
    """200,000 records in one section: enough rows that a push with small
    batches is still running when the server is killed."""
    return write_profile(tmp_path_factory.mktemp("big") / "big.json", 200_000, pid=1001)


# --- what a push stores ------------------------------------------------------


def test_push_creates_the_table_and_stores_every_record(clickhouse, passtiming_cli,
                                                        particles_profile):
    result = push(passtiming_cli, [particles_profile], clickhouse.url, "--table", "t_particles",
                  "--create")
    assert result.returncode == 0, result.stderr
    records = profile_records(particles_profile)
    assert len(records) > 500
    assert count_and_unique(clickhouse, "t_particles") == (len(records), len(records))
    assert stored_self_ns_by_pass(clickhouse, "t_particles") == self_ns_by_pass(particles_profile)
    assert f"{len(records)} rows stored in t_particles" in result.stderr

    # Every column of every row is what `export --to rows` writes.
    columns = [name for name, _ in ROW_COLUMNS]
    stored = clickhouse.query(f"SELECT {', '.join(columns)} FROM t_particles FORMAT JSONEachRow",
                              settings={"output_format_json_quote_64bit_integers": 0})
    stored_rows = sorted(json.dumps(json.loads(line), sort_keys=True)
                         for line in stored.splitlines())
    exported = sorted(json.dumps(json.loads(line), sort_keys=True)
                      for line in export_rows(passtiming_cli, particles_profile))
    assert stored_rows == exported

    # The table is the one --print-schema prints.
    described = [tuple(row[:2]) for row in tsv(clickhouse.query("DESCRIBE TABLE t_particles"))]
    assert described == ROW_COLUMNS
    assert "ReplacingMergeTree" in clickhouse.query(
        "SELECT engine FROM system.tables WHERE name = 't_particles'")


def test_pushing_the_same_profile_again_stores_nothing(clickhouse, passtiming_cli,
                                                       particles_profile):
    first = push(passtiming_cli, [particles_profile], clickhouse.url, "--table", "t_twice",
                 "--create")
    assert first.returncode == 0, first.stderr
    n = len(profile_records(particles_profile))
    for _ in range(2):
        again = push(passtiming_cli, [particles_profile], clickhouse.url, "--table", "t_twice")
        assert again.returncode == 0, again.stderr
        assert f"{particles_profile}: section 0 already stored ({n} rows)" in again.stderr
        assert "rows stored in" not in again.stderr
        assert count_and_unique(clickhouse, "t_twice") == (n, n)


def test_a_partly_stored_section_gets_only_its_missing_rows(clickhouse, passtiming_cli,
                                                            tmp_path):
    profile = write_profile(tmp_path / "partial.json", 6000, sections=3, pid=2002)
    rows = export_rows(passtiming_cli, profile)
    clickhouse.query(subprocess.run([passtiming_cli, "push", "--print-schema", "--table",
                                     "t_partial"], capture_output=True, text=True,
                                    check=True).stdout)
    # Section 0 stored whole, section 1 every third row, section 2 nothing:
    # what an earlier push cut off might leave.
    kept = [r for r in rows if json.loads(r)["section"] == 0] + \
        [r for r in rows if json.loads(r)["section"] == 1 and json.loads(r)["sequence"] % 3 == 0]
    clickhouse.query("INSERT INTO t_partial FORMAT JSONEachRow\n" + "\n".join(kept) + "\n")
    assert count_and_unique(clickhouse, "t_partial") == (2000 + 667, 2000 + 667)

    result = push(passtiming_cli, [profile], clickhouse.url, "--table", "t_partial")
    assert result.returncode == 0, result.stderr
    assert f"{profile}: section 0 already stored (2000 rows)" in result.stderr
    assert f"{profile}: {2000 - 667 + 2000} rows stored in t_partial" in result.stderr
    assert count_and_unique(clickhouse, "t_partial") == (6000, 6000)
    assert stored_self_ns_by_pass(clickhouse, "t_partial") == self_ns_by_pass(profile)


def test_several_profiles_with_meta(clickhouse, passtiming_cli, particles_profile, tmp_path):
    small = write_profile(tmp_path / "small.json", 300, sections=2, pid=3003)
    result = push(passtiming_cli, [particles_profile, small], clickhouse.url, "--table",
                  "t_several", "--create", "--meta", "team=compilers", "--meta", "commit=c0ffee",
                  "--batch-rows", "100")
    assert result.returncode == 0, result.stderr
    n = len(profile_records(particles_profile)) + 300
    assert count_and_unique(clickhouse, "t_several") == (n, n)
    assert tsv(clickhouse.query(
        "SELECT uniqExact(run_id), any(meta_keys), any(meta_values), min(commit), max(commit) "
        "FROM t_several")) == [["2", "['team']", "['compilers']", "c0ffee", "c0ffee"]]

    # One run id for two profiles would make the second look stored.
    shared = push(passtiming_cli, [particles_profile, small], clickhouse.url, "--table",
                  "t_several", "--meta", "run_id=r1")
    assert shared.returncode == 2
    assert "--meta run_id" in shared.stderr
    assert count_and_unique(clickhouse, "t_several") == (n, n)


# --- faults ---------------------------------------------------------------------


def test_a_server_killed_in_the_middle_of_a_push(clickhouse, passtiming_cli, big_profile):
    table = "t_killed"
    clickhouse.query(subprocess.run([passtiming_cli, "push", "--print-schema", "--table", table],
                                    capture_output=True, text=True, check=True).stdout)
    pusher = subprocess.Popen(
        [passtiming_cli, "push", str(big_profile), "--clickhouse", clickhouse.url, "--table",
         table, "--batch-rows", "1000", "--retries", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        stored = 0
        while stored < 5000:
            assert pusher.poll() is None, "the push ended before the server was killed"
            assert time.monotonic() < deadline
            stored = count_and_unique(clickhouse, table)[0]
            time.sleep(0.01)
        clickhouse.kill()
        _, err = pusher.communicate(timeout=60)
    finally:
        if pusher.poll() is None:
            pusher.kill()
        if clickhouse.process.poll() is not None:
            clickhouse.start()
    assert pusher.returncode == 3, err
    summary = [line for line in err.splitlines() if line.startswith("passtiming push: stored")]
    assert len(summary) == 1, err
    assert "stored 0 of 1 profile, " in summary[0]
    assert f"{big_profile} section 0: " in summary[0]
    assert " of 200000 rows stored" in summary[0]
    assert "gave up after 2 retries" in summary[0]
    assert clickhouse.url in summary[0]

    count, unique = count_and_unique(clickhouse, table)
    assert 5000 <= count < 200_000
    assert unique == count

    again = push(passtiming_cli, [big_profile], clickhouse.url, "--table", table,
                 "--batch-rows", "50000")
    assert again.returncode == 0, again.stderr
    assert f"{big_profile}: {200_000 - count} rows stored in {table}" in again.stderr
    assert count_and_unique(clickhouse, table) == (200_000, 200_000)
    assert stored_self_ns_by_pass(clickhouse, table) == self_ns_by_pass(big_profile)


def test_a_reply_lost_after_the_rows_were_stored(clickhouse, passtiming_cli, proxy, tmp_path):
    # The first INSERT reaches the server, which stores it, but its reply is
    # lost; the second is answered 503. The push asks what is stored before
    # it sends again, so nothing is stored twice.
    profile = write_profile(tmp_path / "lost.json", 5000, sections=2, pid=4004)
    clickhouse.query(subprocess.run([passtiming_cli, "push", "--print-schema", "--table",
                                     "t_lost"], capture_output=True, text=True,
                                    check=True).stdout)
    p = proxy(insert_faults=["drop_reply", "503", "drop_reply"])
    result = push(passtiming_cli, [profile], p.url, "--table", "t_lost", "--batch-rows", "2000")
    assert result.returncode == 0, result.stderr
    assert count_and_unique(clickhouse, "t_lost") == (5000, 5000)
    assert stored_self_ns_by_pass(clickhouse, "t_lost") == self_ns_by_pass(profile)
    # Four chunks (2,000 and 500 records of each section): one stored on its
    # first INSERT (reply lost, not sent again); one answered 503, sent
    # again, stored; one stored, reply lost, not sent again; the fourth at
    # once.
    assert p.inserts == 5, result.stderr
    assert len([line for line in result.stderr.splitlines() if "; retry " in line]) == 3, \
        result.stderr


def test_an_insert_that_outlives_its_timeout_is_waited_for(clickhouse, passtiming_cli,
                                                           particles_profile):
    # A materialized view that sleeps keeps each INSERT running for 2 s, past
    # --timeout-s: the push waits until the server is done with it (the
    # query's id leaves system.processes), then sees its rows stored.
    clickhouse.query(subprocess.run([passtiming_cli, "push", "--print-schema", "--table",
                                     "t_outlived"], capture_output=True, text=True,
                                    check=True).stdout)
    clickhouse.query("CREATE MATERIALIZED VIEW t_outlived_sleep ENGINE = Memory "
                     "AS SELECT sleep(2) AS slept FROM t_outlived")
    result = push(passtiming_cli, [particles_profile], clickhouse.url, "--table", "t_outlived",
                  "--timeout-s", "1")
    assert result.returncode == 0, result.stderr
    assert "timed out" in result.stderr
    assert "an INSERT sent before still runs" in result.stderr
    n = len(profile_records(particles_profile))
    assert count_and_unique(clickhouse, "t_outlived") == (n, n)


def test_another_http_error_stops_the_push_with_the_servers_message(clickhouse, passtiming_cli,
                                                                     proxy, tmp_path):
    profile = write_profile(tmp_path / "refused.json", 100, pid=5005)
    p = proxy(insert_faults=["500"])
    start = time.monotonic()
    result = push(passtiming_cli, [profile], p.url, "--table", "t_http500", "--create")
    assert time.monotonic() - start < 5
    assert result.returncode == 3, result.stderr
    assert "HTTP 500: Code: 999, e.displayText() = DB::Exception: simulated failure" \
        in result.stderr
    assert "retry" not in result.stderr
    assert f"{profile} section 0: 0 of 100 rows stored" in result.stderr
    assert count_and_unique(clickhouse, "t_http500") == (0, 0)


def test_a_refused_connection(passtiming_cli, particles_profile):
    url = f"http://127.0.0.1:{free_port()}"
    start = time.monotonic()
    result = push(passtiming_cli, [particles_profile], url, "--retries", "1")
    elapsed = time.monotonic() - start
    assert result.returncode == 3, result.stderr
    assert elapsed < 3, elapsed
    last = result.stderr.splitlines()
    assert any("gave up after 1 retry: " in line and url in line
               and "Couldn't connect to server" in line for line in last), result.stderr
    assert "stored 0 of 1 profile, 0 rows" in result.stderr


def test_a_slow_server(clickhouse, passtiming_cli, particles_profile, proxy):
    clickhouse.query(subprocess.run([passtiming_cli, "push", "--print-schema", "--table",
                                     "t_slow"], capture_output=True, text=True,
                                    check=True).stdout)
    slow = proxy(delay=1.5)
    start = time.monotonic()
    result = push(passtiming_cli, [particles_profile], slow.url, "--table", "t_slow",
                  "--timeout-s", "10")
    assert result.returncode == 0, result.stderr
    # DESCRIBE, the running INSERTs, the count, the INSERT: each held.
    assert time.monotonic() - start >= 4 * 1.5
    n = len(profile_records(particles_profile))
    assert count_and_unique(clickhouse, "t_slow") == (n, n)

    start = time.monotonic()
    hasty = push(passtiming_cli, [particles_profile], slow.url, "--table", "t_slow",
                 "--timeout-s", "0.5", "--retries", "1")
    assert time.monotonic() - start < 5
    assert hasty.returncode == 3, hasty.stderr
    assert "gave up after 1 retry: " in hasty.stderr
    assert "timed out" in hasty.stderr.lower()


# --- refusals: status 2 -------------------------------------------------------


def test_a_table_with_another_schema(clickhouse, passtiming_cli, particles_profile):
    ddl = subprocess.run([passtiming_cli, "push", "--print-schema", "--table", "t_other"],
                         capture_output=True, text=True, check=True).stdout
    clickhouse.query(ddl.replace("depth UInt16", "depth UInt32"))
    result = push(passtiming_cli, [particles_profile], clickhouse.url, "--table", "t_other",
                  "--create")
    assert result.returncode == 2, result.stderr
    assert "table t_other has another schema: column 17 is 'depth UInt32', " \
           "expected 'depth UInt16'" in result.stderr
    assert count_and_unique(clickhouse, "t_other") == (0, 0)

    clickhouse.query("CREATE TABLE t_fewer (schema_version UInt8, run_id String) ENGINE = Log")
    fewer = push(passtiming_cli, [particles_profile], clickhouse.url, "--table", "t_fewer")
    assert fewer.returncode == 2, fewer.stderr
    assert "column 3 is 'none', expected 'host String'" in fewer.stderr


def test_an_unknown_table_without_create(clickhouse, passtiming_cli, particles_profile):
    result = push(passtiming_cli, [particles_profile], clickhouse.url, "--table", "t_missing")
    assert result.returncode == 2, result.stderr
    assert "table t_missing does not exist" in result.stderr
    assert "--create" in result.stderr
    assert "t_missing" not in clickhouse.query("SHOW TABLES")


def test_bad_input_and_options(clickhouse, passtiming_cli, particles_profile, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format":"passtiming-profile","version":1,\n"sections":[\n'
                   '{"context":"","records":[\n{"name":"p","depth":"deep"}]}]}\n')
    result = push(passtiming_cli, [particles_profile, bad], clickhouse.url, "--table",
                  "t_bad", "--create")
    assert result.returncode == 2, result.stderr
    assert f"{bad}:4: " in result.stderr
    n = len(profile_records(particles_profile))
    assert count_and_unique(clickhouse, "t_bad") == (n, n)  # the good one is stored

    twice = tmp_path / "twice.json"
    twice.write_text('{"format":"passtiming-profile","version":1,\n"sections":[\n'
                     '{"context":"","records":[\n'
                     '{"name":"p","depth":0,"sequence":7,"start_ns":0,"inclusive_ns":1,'
                     '"self_ns":1},\n'
                     '{"name":"q","depth":0,"sequence":7,"start_ns":5,"inclusive_ns":1,'
                     '"self_ns":1}]}]}\n')
    result = push(passtiming_cli, [twice], clickhouse.url, "--table", "t_bad")
    assert result.returncode == 2, result.stderr
    assert "two records with sequence 7" in result.stderr

    negative = tmp_path / "negative.json"
    negative.write_text('{"format":"passtiming-profile","version":1,\n"sections":[\n'
                        '{"context":"","records":[\n'
                        '{"name":"p","depth":0,"sequence":3,"start_ns":-5,"inclusive_ns":1,'
                        '"self_ns":1}]}]}\n')
    result = push(passtiming_cli, [negative], clickhouse.url, "--table", "t_bad")
    assert result.returncode == 2, result.stderr
    assert f"{negative}: section 0: the record with sequence 3 starts at -5 ns" in result.stderr

    for args, option in [(["--batch-rows", "0"], "--batch-rows"),
                         (["--retries", "-1"], "--retries"),
                         (["--timeout-s", "0"], "--timeout-s"),
                         (["--timeout-s", "soon"], "--timeout-s"),
                         (["--table", "t; DROP TABLE t_bad"], "--table"),
                         (["--meta", "novalue"], "--meta")]:
        result = push(passtiming_cli, [particles_profile], clickhouse.url, *args)
        assert result.returncode == 2, (args, result.stderr)
        assert option in result.stderr, (args, result.stderr)
    result = subprocess.run([passtiming_cli, "push", str(particles_profile), "--clickhouse",
                             "127.0.0.1:8123"], capture_output=True, text=True)
    assert result.returncode == 2 and "--clickhouse" in result.stderr, result.stderr
    result = subprocess.run([passtiming_cli, "push", str(particles_profile)],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "--clickhouse" in result.stderr, result.stderr
    assert count_and_unique(clickhouse, "t_bad") == (n, n)
