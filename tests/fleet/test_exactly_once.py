"""Each pass execution stored once, against real servers: a plain
ReplacingMergeTree table on one clickhouse-server (the `clickhouse`
fixture), and a ReplicatedReplacingMergeTree table on two replicas of one
shard with ZooKeeper (the `replicas` fixture).

Each fault is first shown to be real where the table cannot guard against it
(the plain table, or a check as an earlier push made it), then shown handled:
after every case, count() (duplicates included, no FINAL) equals the number
of distinct (run_id, section, sequence), which equals the profiles' records.
"""

import json
import os
import signal
import subprocess
import threading
import time
import urllib.parse
import urllib.request

import pytest

from clickhouse_server import PUSHER_PASSWORD, free_port
from synthetic_profiles import write_profile
from test_push import Proxy

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def push(cli, files, urls, *args, timeout=60):
    if isinstance(urls, str):
        urls = [urls]
    command = [cli, "push", *map(str, files)]
    for url in urls:
        command += ["--clickhouse", url]
    return subprocess.run(command + list(args), capture_output=True, text=True, timeout=timeout)


def ddl(cli, table, replicated=False):
    return subprocess.run([cli, "push", "--print-schema", "--table", table]
                          + (["--replicated"] if replicated else []),
                          capture_output=True, text=True, check=True).stdout


def make_table(servers, cli, table, replicated):
    for server in servers:
        server.query(ddl(cli, table, replicated))


def counts(server, table):
    """count() and the distinct pass executions, without FINAL."""
    count, unique = server.query(
        f"SELECT count(), uniqExact(run_id, section, sequence) FROM {table}").split()
    return int(count), int(unique)


def records(path):
    with open(path) as f:
        return sum(len(s["records"]) for s in json.load(f)["sections"])


def insert_rows(server, table, lines, block_rows):
    """An INSERT of `lines` (JSONEachRow) as one block, as push sends a chunk."""
    url = server.url + "/?" + urllib.parse.urlencode(
        {"query": f"INSERT INTO {table} FORMAT JSONEachRow",
         "max_insert_block_size": block_rows})
    _OPENER.open(urllib.request.Request(url, data=("\n".join(lines) + "\n").encode())).read()


def sync(replicas, table):
    for server in replicas:
        server.query(f"SYSTEM SYNC REPLICA {table}")


@pytest.fixture(scope="module")
def profiles(tmp_path_factory):
    """Five profiles of 3,000 records in 2 sections, distinct runs."""
    d = tmp_path_factory.mktemp("many")
    return [write_profile(d / f"p{i}.json", 3000, sections=2, pid=7000 + i) for i in range(5)]


# --- a cut-off push, pushed again -----------------------------------------------


def test_rows_stored_twice_never_hide_missing_ones(clickhouse, replicas, passtiming_cli,
                                                   tmp_path):
    # Two pushes cut off after the same first 2,000 of 5,000 rows: a check
    # that counts rows (duplicates included) finds the section complete.
    profile = write_profile(tmp_path / "cut.json", 5000, pid=8101)
    rows = subprocess.run([passtiming_cli, "export", str(profile), "--to", "rows"],
                          capture_output=True, text=True, check=True).stdout.splitlines()
    first_chunks = rows[:2000]

    clickhouse.query(ddl(passtiming_cli, "t_cut_plain"))
    # No merge may remove the twins while the test counts them.
    clickhouse.query("SYSTEM STOP MERGES t_cut_plain")
    for _ in range(2):
        for start in (0, 1000):
            insert_rows(clickhouse, "t_cut_plain", first_chunks[start:start + 1000], 1000)
    stored = counts(clickhouse, "t_cut_plain")
    assert stored == (4000, 2000)  # the failure: count() says 4,000 of 5,000 ...
    assert stored[0] >= 4000  # ... and one cut-off push more would reach 5,000 with 3,000 lost

    result = push(passtiming_cli, [profile], clickhouse.url, "--table", "t_cut_plain",
                  "--batch-rows", "1000")
    assert result.returncode == 0, result.stderr
    assert f"{profile}: 3000 rows stored in t_cut_plain" in result.stderr
    assert counts(clickhouse, "t_cut_plain") == (7000, 5000)  # none lost; the twins predate it

    # On the replicated table the second cut-off push's chunks are the
    # first's blocks, which the table drops: 0 twins, 0 lost.
    r1, r2 = replicas
    make_table(replicas, passtiming_cli, "t_cut", replicated=True)
    for server in (r1, r2):
        for start in (0, 1000):
            insert_rows(server, "t_cut", first_chunks[start:start + 1000], 1000)
    sync(replicas, "t_cut")
    assert counts(r1, "t_cut") == (2000, 2000)
    result = push(passtiming_cli, [profile], r2.url, "--table", "t_cut", "--batch-rows", "1000")
    assert result.returncode == 0, result.stderr
    sync(replicas, "t_cut")
    assert counts(r1, "t_cut") == (5000, 5000)
    assert counts(r2, "t_cut") == (5000, 5000)


# --- pushes at the same moment ----------------------------------------------------


def concurrent_pushes(cli, file_sets, urls, table, extra=()):
    """Starts a push per file set at once (round robin over `urls`)."""
    processes = []
    for i, files in enumerate(file_sets):
        command = [cli, "push", *map(str, files), "--clickhouse", urls[i % len(urls)], "--table",
                   table, "--batch-rows", "1000", *extra]
        processes.append(subprocess.Popen(command, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True))
    results = [(p.wait(timeout=60), p.stderr.read()) for p in processes]
    for p in processes:
        p.stdout.close()
        p.stderr.close()
    return results


def test_a_plain_table_stores_a_chunk_sent_twice_twice(clickhouse, replicas, passtiming_cli,
                                                       tmp_path):
    # What two pushes racing do when both checks see a chunk missing: both
    # send it. A plain table stores it twice; the replicated table drops the
    # second, the same block as the first.
    profile = write_profile(tmp_path / "race.json", 1000, pid=8111)
    rows = subprocess.run([passtiming_cli, "export", str(profile), "--to", "rows"],
                          capture_output=True, text=True, check=True).stdout.splitlines()
    clickhouse.query(ddl(passtiming_cli, "t_twice_plain"))
    clickhouse.query("SYSTEM STOP MERGES t_twice_plain")  # the twins stay to be counted
    make_table(replicas, passtiming_cli, "t_twice", replicated=True)
    for server, table in [(clickhouse, "t_twice_plain"), (replicas[0], "t_twice"),
                          (replicas[1], "t_twice")]:
        insert_rows(server, table, rows, 1000)
    insert_rows(clickhouse, "t_twice_plain", rows, 1000)
    sync(replicas, "t_twice")
    assert counts(clickhouse, "t_twice_plain") == (2000, 1000)
    assert counts(replicas[0], "t_twice") == (1000, 1000)


@pytest.mark.parametrize("pushers,overlap", [(2, False), (5, False), (5, True)])
def test_concurrent_pushes_store_each_row_once(replicas, passtiming_cli, profiles, pushers,
                                               overlap):
    # The same race on the replicated table, the pushes spread over both
    # replicas (so that no server sees two INSERTs of a chunk at once): the
    # blocks of a chunk are the same whoever sends them, and the table keeps
    # one.
    table = f"t_race_{pushers}_{'overlap' if overlap else 'same'}"
    make_table(replicas, passtiming_cli, table, replicated=True)
    proxies = [Proxy(server.port, delay=0.3) for server in replicas]
    if overlap:
        file_sets = [profiles[i:i + 3] if i + 3 <= 5 else profiles[i:] + profiles[:i + 3 - 5]
                     for i in range(pushers)]
    else:
        file_sets = [profiles[:3]] * pushers
    try:
        results = concurrent_pushes(passtiming_cli, file_sets, [p.url for p in proxies], table)
    finally:
        for p in proxies:
            p.close()
    assert all(code == 0 for code, _ in results), results
    sync(replicas, table)
    expected = len({str(f) for files in file_sets for f in files}) * 3000
    for server in replicas:
        assert counts(server, table) == (expected, expected)


# --- a push killed in the middle of an INSERT -------------------------------------------


def test_a_killed_pushers_insert_is_waited_for(clickhouse, passtiming_cli, tmp_path):
    # A materialized view that sleeps keeps the INSERT running on the server
    # after its pusher is killed: the push again waits until it ends.
    table = "t_killed_pusher"
    profile = write_profile(tmp_path / "killed.json", 4000, pid=8202)
    clickhouse.query(ddl(passtiming_cli, table))
    clickhouse.query(f"CREATE MATERIALIZED VIEW {table}_sleep ENGINE = Memory "
                     f"AS SELECT sleep(2) AS slept FROM {table}")
    pusher = subprocess.Popen([passtiming_cli, "push", str(profile), "--clickhouse",
                               clickhouse.url, "--table", table],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while "passtiming-push:" not in clickhouse.query("SELECT query_id FROM system.processes"):
        assert time.monotonic() < deadline and pusher.poll() is None
        time.sleep(0.02)
    pusher.send_signal(signal.SIGKILL)
    pusher.wait()
    again = push(passtiming_cli, [profile], clickhouse.url, "--table", table)
    assert again.returncode == 0, again.stderr
    assert "an INSERT sent before still runs" in again.stderr
    assert counts(clickhouse, table) == (4000, 4000)


@pytest.mark.parametrize("replicated", [False, True])
def test_a_killed_pushers_insert_in_transit(clickhouse, replicas, passtiming_cli, tmp_path,
                                            replicated):
    # The INSERT is on its way (held 1.5 s by a proxy) when its pusher is
    # killed; the push again finds nothing stored and nothing running, and
    # sends everything; then the first INSERT arrives. A plain table stores
    # its rows twice (the failure); the replicated table drops the block.
    table = f"t_transit_{'replicated' if replicated else 'plain'}"
    server = replicas[0] if replicated else clickhouse
    if replicated:
        make_table(replicas, passtiming_cli, table, replicated=True)
    else:
        clickhouse.query(ddl(passtiming_cli, table))
        clickhouse.query(f"SYSTEM STOP MERGES {table}")  # the twins stay to be counted
    profile = write_profile(tmp_path / "transit.json", 3000, pid=8212)
    held = Proxy(server.port, insert_delay=1.5)
    try:
        pusher = subprocess.Popen([passtiming_cli, "push", str(profile), "--clickhouse", held.url,
                                   "--table", table],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while held.inserts == 0:
            assert time.monotonic() < deadline and pusher.poll() is None
            time.sleep(0.01)
        time.sleep(0.1)  # the whole request is with the proxy
        pusher.send_signal(signal.SIGKILL)
        pusher.wait()
        again = push(passtiming_cli, [profile], server.url, "--table", table)
        assert again.returncode == 0, again.stderr
        assert f"{profile}: 3000 rows stored in {table}" in again.stderr
        while held.forwarded == 0:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(0.5)  # the held INSERT runs
    finally:
        held.close()
    if replicated:
        sync(replicas, table)
        assert counts(server, table) == (3000, 3000)
    else:
        assert counts(server, table) == (6000, 3000)


# --- a replica killed in the middle of a push ---------------------------------------------


def push_killing_a_replica(command, killed, watched, table, rows, timeout):
    """Runs the push `command`, kills the replica `killed` once `watched` holds
    `rows` rows of `table`, waits up to `timeout` s for the push to end, and
    starts `killed` again. Returns the push's exit status and stderr."""
    pusher = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while counts(watched, table)[0] < rows:
            assert pusher.poll() is None, "the push ended before the replica was killed"
            assert time.monotonic() < deadline
            time.sleep(0.01)
        killed.kill()
        _, err = pusher.communicate(timeout=timeout)
    finally:
        if pusher.poll() is None:
            pusher.kill()
        if killed.process.poll() is not None:
            killed.start()
    return pusher.returncode, err


def test_a_replica_killed_mid_push(replicas, passtiming_cli, tmp_path):
    r1, r2 = replicas
    table = "t_replica_killed"
    make_table(replicas, passtiming_cli, table, replicated=True)
    profile = write_profile(tmp_path / "big.json", 12_000, pid=8303)
    returncode, err = push_killing_a_replica(
        [passtiming_cli, "push", str(profile), "--clickhouse", r1.url, "--clickhouse", r2.url,
         "--table", table, "--batch-rows", "500", "--connections", "2", "--retries", "8"],
        killed=r1, watched=r2, table=table, rows=1500, timeout=60)
    assert returncode == 0, err
    assert "on the next server" in err
    sync(replicas, table)
    for server in replicas:
        assert counts(server, table) == (12_000, 12_000)


# --- what a server refuses, and secrets -------------------------------------------------------


def test_no_message_shows_a_secret(clickhouse, passtiming_cli, particles_profile):
    secret = PUSHER_PASSWORD
    quoted = urllib.parse.quote(secret)
    refused_port = free_port()
    cases = [
        # Nothing listens: "gave up".
        (f"http://pusher:{secret}@127.0.0.1:{refused_port}", ["--retries", "1"], 3),
        (f"http://127.0.0.1:{refused_port}/?user=pusher&password={quoted}", ["--retries", "1"],
         3),
        # A table that does not exist.
        (f"http://pusher:{secret}@127.0.0.1:{clickhouse.port}", ["--table", "t_nowhere"], 2),
        (f"http://127.0.0.1:{clickhouse.port}/?user=pusher&password={quoted}",
         ["--table", "t_nowhere"], 2),
        # A wrong password, with and without --create: one status.
        (f"http://pusher:wrong-{secret}@127.0.0.1:{clickhouse.port}", [], 3),
        (f"http://pusher:wrong-{secret}@127.0.0.1:{clickhouse.port}", ["--create"], 3),
        # Not a URL at all.
        (f"pusher:{secret}@127.0.0.1:{clickhouse.port}", [], 2),
    ]
    for url, args, status in cases:
        result = push(passtiming_cli, [particles_profile], url, *args)
        assert result.returncode == status, (url, result.stderr)
        for text in (result.stdout, result.stderr):
            assert secret not in text and quoted not in text, (url, text)
        assert result.stderr.startswith("passtiming"), (url, result.stderr)


def test_a_failing_materialized_view_is_reported_as_stored(clickhouse, passtiming_cli,
                                                           tmp_path):
    table = "t_failing_view"
    profile = write_profile(tmp_path / "view.json", 2504, pid=8404)
    clickhouse.query(ddl(passtiming_cli, table))
    clickhouse.query(f"CREATE MATERIALIZED VIEW {table}_throws ENGINE = Memory "
                     f"AS SELECT throwIf(sequence >= 0) AS thrown FROM {table}")
    result = push(passtiming_cli, [profile], clickhouse.url, "--table", table)
    assert result.returncode == 3, result.stderr
    assert counts(clickhouse, table) == (2504, 2504)
    assert "stored 0 of 1 profile, 2504 rows" in result.stderr
    assert "the server answered INSERT with HTTP 500" in result.stderr


# --- a merged profile ---------------------------------------------------------------------


def test_a_merged_profile_stores_its_inputs_rows_once(replicas, passtiming_cli, tmp_path):
    r1, _ = replicas
    table = "t_merged"
    make_table(replicas, passtiming_cli, table, replicated=True)
    a = write_profile(tmp_path / "a.json", 3000, sections=3, pid=8501)
    b = write_profile(tmp_path / "b.json", 2000, sections=2, pid=8502)
    merged = tmp_path / "m.json"
    subprocess.run([passtiming_cli, "merge", str(a), str(b), "-o", str(merged)], check=True)
    result = push(passtiming_cli, [a, b, merged], r1.url, "--table", table)
    assert result.returncode == 0, result.stderr
    assert f"{merged}: section 0 of run" in result.stderr
    assert f"is {a}'s section 0: stored once" in result.stderr
    assert counts(r1, table) == (5000, 5000)
    # The merged profile alone, into a fresh table, stores the same rows.
    make_table(replicas, passtiming_cli, "t_merged_alone", replicated=True)
    result = push(passtiming_cli, [merged], r1.url, "--table", "t_merged_alone")
    assert result.returncode == 0, result.stderr
    same = "SELECT groupArray(x) FROM (SELECT cityHash64(run_id, host, section, sequence, pass, " \
           "self_ns) AS x FROM {} ORDER BY x)"
    assert r1.query(same.format(table)) == r1.query(same.format("t_merged_alone"))


def test_export_refuses_what_push_refuses(passtiming_cli, tmp_path):
    twice = tmp_path / "twice.json"
    twice.write_text('{"format":"passtiming-profile","version":1,\n"sections":[\n'
                     '{"context":"","records":[\n'
                     '{"name":"p","depth":0,"sequence":7,"start_ns":0,"inclusive_ns":1,'
                     '"self_ns":1},\n'
                     '{"name":"q","depth":0,"sequence":7,"start_ns":5,"inclusive_ns":1,'
                     '"self_ns":1}]}]}\n')
    result = subprocess.run([passtiming_cli, "export", str(twice), "--to", "rows"],
                            capture_output=True, text=True)
    assert result.returncode == 2, result.stderr
    assert f"{twice}: section 0: two records with sequence 7" in result.stderr
    assert result.stdout == ""


# --- the documented cluster -------------------------------------------------------------


def test_the_documented_replicated_table_and_distributed_table(replicas, passtiming_cli,
                                                               profiles):
    import re

    import fleet_sql

    squash = lambda sql: re.sub(r"\s+", " ", sql).replace("( ", "(").replace(" )", ")").strip()
    printed = subprocess.run([passtiming_cli, "push", "--print-schema", "--replicated"],
                             capture_output=True, text=True, check=True).stdout
    documented = fleet_sql.schemas()["pass_executions_replicated"]
    assert squash(printed) == squash(documented)
    for server in replicas:
        server.query("DROP TABLE IF EXISTS pass_executions_all")
        server.query("DROP TABLE IF EXISTS pass_executions")
        server.query(documented)
    r1, r2 = replicas
    r1.query(fleet_sql.schemas()["pass_executions_all"])
    result = push(passtiming_cli, profiles[:2], [r1.url, r2.url], "--batch-rows", "1000")
    assert result.returncode == 0, result.stderr
    result = push(passtiming_cli, profiles[1:3], [r2.url, r1.url], "--batch-rows", "1000")
    assert result.returncode == 0, result.stderr
    sync(replicas, "pass_executions")
    assert counts(r2, "pass_executions") == (9000, 9000)
    assert counts(r1, "pass_executions_all") == (9000, 9000)
