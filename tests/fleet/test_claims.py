"""`push --zookeeper`: runs claimed in ZooKeeper, then many small profiles
sent packed into few blocks, each pass execution once, against ZooKeeper and
two clickhouse-server replicas on loopback (the `replicas` fixture).

A pack's block depends on which runs a push sends, so the replicated table
no longer drops a pack sent by another push of other files
(test_packs_of_other_runs_are_not_dropped shows it): exactly once rests on
the claims, on the wait for INSERTs still running on any replica, and on the
checked replica holding every committed part. After every case, count()
(duplicates included, no FINAL) equals the distinct (run_id, section,
sequence), which equals the profiles' records.
"""

import signal
import socket
import subprocess
import threading
import time

import pytest

from synthetic_profiles import write_profile
from test_exactly_once import (counts, ddl, insert_rows, make_table, push, push_killing_a_replica,
                               sync)
from test_push import Proxy


def zookeeper_of(replicas):
    return f"127.0.0.1:{replicas[0].zookeeper.port}"


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """Forty profiles of 300 records in one section, distinct runs."""
    d = tmp_path_factory.mktemp("small")
    return [write_profile(d / f"s{i}.json", 300, pid=9000 + i) for i in range(40)]


def export_rows(cli, files):
    return subprocess.run([cli, "export", *map(str, files), "--to", "rows"], capture_output=True,
                          text=True, check=True).stdout.splitlines()


def test_packs_of_other_runs_are_not_dropped(replicas, passtiming_cli, small):
    # Why claims: a block of runs A and B, then one of B and C, are
    # different blocks; the replicated table stores B twice.
    table = "t_packs_differ"
    make_table(replicas, passtiming_cli, table, replicated=True)
    a, b, c = (export_rows(passtiming_cli, [f]) for f in small[:3])
    insert_rows(replicas[0], table, a + b, len(a + b))
    insert_rows(replicas[0], table, b + c, len(b + c))
    assert counts(replicas[0], table) == (1200, 900)


def test_a_claimed_push_packs_many_profiles_into_few_blocks(replicas, passtiming_cli, small):
    table = "t_claimed_few_blocks"
    make_table(replicas, passtiming_cli, table, replicated=True)
    r1, _ = replicas
    proxy = Proxy(r1.port)
    try:
        result = push(passtiming_cli, small, proxy.url, "--table", table, "--zookeeper",
                      zookeeper_of(replicas), "--batch-rows", "5000")
    finally:
        proxy.close()
    assert result.returncode == 0, result.stderr
    assert counts(r1, table) == (12_000, 12_000)
    # 12,000 rows in INSERTs (blocks) of at most 5,000: 3, not 40.
    assert proxy.inserts == 3
    again = push(passtiming_cli, small, r1.url, "--table", table, "--zookeeper",
                 zookeeper_of(replicas), "--batch-rows", "5000")
    assert again.returncode == 0, again.stderr
    assert "rows stored" not in again.stderr
    assert counts(r1, table) == (12_000, 12_000)


@pytest.mark.parametrize("pushers,overlap", [(2, False), (5, False), (2, True), (5, True)])
def test_concurrent_claimed_pushes_store_each_row_once(replicas, passtiming_cli, small, pushers,
                                                       overlap):
    # Pushes of the same files, or of overlapping sets (packs that differ),
    # at once, over both replicas through proxies that slow each reply.
    table = f"t_claimed_race_{pushers}_{'overlap' if overlap else 'same'}"
    make_table(replicas, passtiming_cli, table, replicated=True)
    proxies = [Proxy(server.port, delay=0.2) for server in replicas]
    if overlap:
        file_sets = [small[i * 5:i * 5 + 15] for i in range(pushers)]
    else:
        file_sets = [small[:15]] * pushers
    try:
        processes = [subprocess.Popen(
            [passtiming_cli, "push", *map(str, files), "--clickhouse", proxies[i % 2].url,
             "--clickhouse", proxies[(i + 1) % 2].url, "--table", table, "--batch-rows", "1000",
             "--zookeeper", zookeeper_of(replicas)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            for i, files in enumerate(file_sets)]
        results = [(p.wait(timeout=120), p.stderr.read()) for p in processes]
        for p in processes:
            p.stderr.close()
    finally:
        for p in proxies:
            p.close()
    assert all(code == 0 for code, _ in results), results
    sync(replicas, table)
    expected = len({str(f) for files in file_sets for f in files}) * 300
    for server in replicas:
        assert counts(server, table) == (expected, expected)


def test_a_claimed_push_sends_only_the_missing_rows_of_a_cut_off_section(
        replicas, passtiming_cli, small, tmp_path):
    # Cut-off pushes stored the first 2,000 of a section's 5,000 rows (twice,
    # as chunks of 1,000, once through each replica); a claimed push of it
    # and of small profiles sends the other 3,000 in its packs.
    table = "t_claimed_cut"
    make_table(replicas, passtiming_cli, table, replicated=True)
    profile = write_profile(tmp_path / "cut.json", 5000, pid=9101)
    rows = export_rows(passtiming_cli, [profile])
    for server in replicas:
        for start in (0, 1000):
            insert_rows(server, table, rows[start:start + 1000], 1000)
    sync(replicas, table)
    assert counts(replicas[0], table) == (2000, 2000)
    result = push(passtiming_cli, [profile, *small[:5]], replicas[1].url, "--table", table,
                  "--zookeeper", zookeeper_of(replicas))
    assert result.returncode == 0, result.stderr
    assert f"{profile}: 3000 rows stored in {table}" in result.stderr
    sync(replicas, table)
    for server in replicas:
        assert counts(server, table) == (6500, 6500)


def test_a_killed_claimed_pusher_then_an_immediate_push_again(replicas, passtiming_cli, small):
    # Three materialized views that sleep 3 s each keep the pack's INSERT
    # running 9 s, past the dead push's claims (5 s); the push again, of
    # other files around the same runs (other packs), starting at once,
    # waits for that INSERT to end before it counts, and sends only what is
    # missing. (clickhouse-server 18.16 lists an HTTP INSERT only once its
    # data has arrived, and writes the table before its views: an INSERT
    # whose rows are still to come is the case in transit, below.)
    r1, _ = replicas
    table = "t_claimed_killed"
    make_table(replicas, passtiming_cli, table, replicated=True)
    for i in range(3):
        r1.query(f"CREATE MATERIALIZED VIEW {table}_sleep{i} ENGINE = Memory "
                 f"AS SELECT sleep(3) AS slept FROM {table}")
    zk = zookeeper_of(replicas)
    pusher = subprocess.Popen([passtiming_cli, "push", *map(str, small[:10]), "--clickhouse",
                               r1.url, "--table", table, "--zookeeper", zk],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while "passtiming-push:" not in r1.query("SELECT query_id FROM system.processes"):
        assert time.monotonic() < deadline and pusher.poll() is None
        time.sleep(0.02)
    pusher.send_signal(signal.SIGKILL)
    pusher.wait()
    again = push(passtiming_cli, small[5:15], r1.url, "--table", table, "--zookeeper", zk,
                 timeout=120)
    assert again.returncode == 0, again.stderr
    assert "an INSERT sent before still runs" in again.stderr
    sync(replicas, table)
    for server in replicas:
        assert counts(server, table) == (4500, 4500)


def test_a_killed_claimed_pushers_insert_in_transit(replicas, passtiming_cli, small):
    # The pack is on its way (held 1.5 s by a proxy, less than the claims'
    # session) when its pusher is killed; the push again, of other files
    # around the same runs, waits for the claims to expire, by when the pack
    # has arrived and is waited for or stored.
    r1, _ = replicas
    table = "t_claimed_transit"
    make_table(replicas, passtiming_cli, table, replicated=True)
    zk = zookeeper_of(replicas)
    held = Proxy(r1.port, insert_delay=1.5)
    try:
        pusher = subprocess.Popen([passtiming_cli, "push", *map(str, small[:10]), "--clickhouse",
                                   held.url, "--table", table, "--zookeeper", zk],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while held.inserts == 0:
            assert time.monotonic() < deadline and pusher.poll() is None
            time.sleep(0.01)
        time.sleep(0.1)  # the whole request is with the proxy
        pusher.send_signal(signal.SIGKILL)
        pusher.wait()
        again = push(passtiming_cli, small[5:15], r1.url, "--table", table, "--zookeeper", zk,
                     timeout=120)
        assert again.returncode == 0, again.stderr
        assert held.forwarded == 1
    finally:
        held.close()
    sync(replicas, table)
    for server in replicas:
        assert counts(server, table) == (4500, 4500)


def test_a_replica_killed_mid_claimed_push(replicas, passtiming_cli, small):
    # r1 dies mid-push. The pack under way goes again, the same block, to r2,
    # which drops it if r1 stored it. A later round of claims (the push
    # reads its files 8 at a time here) finds r2 without the parts only r1
    # held: it may not trust r2's count, and stops (status 3) unless r2 had
    # fetched them all. Once r1 is back, pushing again stores the rest.
    r1, r2 = replicas
    table = "t_claimed_replica_killed"
    make_table(replicas, passtiming_cli, table, replicated=True)
    command = [passtiming_cli, "push", *map(str, small), "--clickhouse", r1.url, "--clickhouse",
               r2.url, "--table", table, "--batch-rows", "600", "--connections", "2",
               "--retries", "8", "--timeout-s", "5", "--zookeeper", zookeeper_of(replicas)]
    returncode, err = push_killing_a_replica(command, killed=r1, watched=r2, table=table, rows=1800,
                                             timeout=90)
    assert returncode in (0, 3), err
    assert "on the next server" in err
    if returncode == 3:
        assert "still lacks parts stored on other replicas" in err, err
    sync(replicas, table)
    stored = counts(r2, table)
    assert stored[0] == stored[1]
    again = subprocess.run(command, capture_output=True, text=True, timeout=90)
    assert again.returncode == 0, again.stderr
    sync(replicas, table)
    for server in replicas:
        assert counts(server, table) == (12_000, 12_000)


def test_a_replica_lacking_parts_is_not_trusted(replicas, passtiming_cli, small):
    # r2 fetches nothing: the parts a push stored through r1 are committed
    # but not on r2. A claimed push of overlapping files through r2 must not
    # take r2's count for the table's: it waits, then stops (status 3).
    r1, r2 = replicas
    table = "t_claimed_lagging"
    make_table(replicas, passtiming_cli, table, replicated=True)
    zk = zookeeper_of(replicas)
    r2.query(f"SYSTEM STOP FETCHES {table}")
    try:
        first = push(passtiming_cli, small[:10], r1.url, "--table", table, "--zookeeper", zk)
        assert first.returncode == 0, first.stderr
        lagging = push(passtiming_cli, small[5:15], r2.url, "--table", table, "--zookeeper", zk,
                       "--timeout-s", "1")
        assert lagging.returncode == 3, lagging.stderr
        assert "still lacks parts stored on other replicas" in lagging.stderr
    finally:
        r2.query(f"SYSTEM START FETCHES {table}")
    sync(replicas, table)
    again = push(passtiming_cli, small[5:15], r2.url, "--table", table, "--zookeeper", zk)
    assert again.returncode == 0, again.stderr
    sync(replicas, table)
    for server in replicas:
        assert counts(server, table) == (4500, 4500)


class Link:
    """A TCP relay on loopback to ZooKeeper that can be cut: every
    connection closed and no new one taken, as a network partition."""

    def __init__(self, port):
        self.port = port
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.address = f"127.0.0.1:{self.listener.getsockname()[1]}"
        self.sockets = []
        self.open = True
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while self.open:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.open:
                client.close()
                return
            upstream = socket.create_connection(("127.0.0.1", self.port))
            self.sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a, b):
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass

    def cut(self):
        self.open = False
        # shutdown() wakes the accept() under way, which close() alone
        # leaves listening.
        try:
            self.listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.listener.close()
        for s in self.sockets:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()


def test_a_pusher_that_loses_its_zookeeper_session_stops(replicas, passtiming_cli, small):
    # ZooKeeper is cut off from the pusher mid-push: its claims may be
    # another push's once its session expires, so it sends nothing more
    # and stops with status 3; pushing again stores the rest, once.
    r1, _ = replicas
    table = "t_claimed_session_lost"
    make_table(replicas, passtiming_cli, table, replicated=True)
    link = Link(replicas[0].zookeeper.port)
    slow = Proxy(r1.port, delay=0.5)
    try:
        pusher = subprocess.Popen(
            [passtiming_cli, "push", *map(str, small), "--clickhouse", slow.url, "--table", table,
             "--batch-rows", "600", "--connections", "1", "--zookeeper", link.address],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while counts(r1, table)[0] < 1200:
            assert pusher.poll() is None, "the push ended before ZooKeeper was cut off"
            assert time.monotonic() < deadline
            time.sleep(0.02)
        link.cut()
        _, err = pusher.communicate(timeout=60)
    finally:
        link.cut()
        slow.close()
        if pusher.poll() is None:
            pusher.kill()
    assert pusher.returncode == 3, err
    assert "ZooKeeper at 127.0.0.1:" in err and "nothing more is sent" in err
    stored = counts(r1, table)
    assert stored[0] == stored[1] < 12_000
    again = push(passtiming_cli, small, r1.url, "--table", table, "--zookeeper",
                 zookeeper_of(replicas), timeout=120)
    assert again.returncode == 0, again.stderr
    sync(replicas, table)
    for server in replicas:
        assert counts(server, table) == (12_000, 12_000)


def test_zookeeper_away_stops_the_push(replicas, passtiming_cli, small):
    from clickhouse_server import free_port

    table = "t_claimed_no_zookeeper"
    make_table(replicas, passtiming_cli, table, replicated=True)
    result = push(passtiming_cli, small[:2], replicas[0].url, "--table", table, "--zookeeper",
                  f"127.0.0.1:{free_port()}", "--timeout-s", "1")
    assert result.returncode == 3, result.stderr
    assert "ZooKeeper at 127.0.0.1:" in result.stderr
    assert "did not answer within 1 s" in result.stderr
    assert counts(replicas[0], table) == (0, 0)
