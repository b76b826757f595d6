"""The push's figures beside clickhouse-client's (docs/fleet.md), on
Debian's clickhouse-server started on loopback with data directories of its
own: one server with the ReplacingMergeTree table, and two replicas with
ZooKeeper and the ReplicatedReplacingMergeTree table.

1. Many small profiles: 100 profiles of 2,504 records and 1,000 of 214,
   pushed by `passtiming push`, beside `clickhouse-client --query "INSERT
   ... FORMAT JSONEachRow"` of the same rows (`passtiming export --to
   rows`, one file); seconds, medians of the rounds, the two interleaved.
   On the replicas also `push --zookeeper` (runs claimed in ZooKeeper,
   profiles packed into few blocks): the lines "push+claims".
2. What a block costs: 200 of those profiles' rows (214 each) as 200
   INSERTs of one block each, as one INSERT of the same 200 blocks
   (max_insert_block_size 214, no squashing) and as one INSERT of one
   block; on the replicas, the 200-block INSERT sent again stores nothing
   (each block dropped as a repeat on its own).
3. The check of a re-push: 7 stored profiles pushed again (nothing to
   send) into a table of 40,000,000 rows (made on the server with INSERT ...
   SELECT FROM numbers()); seconds, median of the rounds, beside the empty
   table's.

    bench/fleet/exactly_once.sh [ROUNDS] [PARTS]

PARTS (default small,blocks,repush) picks which of 1., 2. and 3. run.
"""

from __future__ import annotations

import argparse
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "fleet"))

import urllib.parse  # noqa: E402
import urllib.request  # noqa: E402

from clickhouse_server import _OPENER, ClickHouse, ZooKeeper, replica_pair  # noqa: E402
from synthetic_profiles import write_profile  # noqa: E402

BIG = 40_000_000


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def ddl(cli, table, replicated):
    return subprocess.run([cli, "push", "--print-schema", "--table", table]
                          + (["--replicated"] if replicated else []),
                          capture_output=True, text=True, check=True).stdout


def fresh(servers, cli, table, replicated):
    for server in servers:
        server.query(f"DROP TABLE IF EXISTS {table}", timeout=600)
    for server in servers:
        server.query(ddl(cli, table, replicated))


def many_small(cli, servers, replicated, work, count, records, rounds, zookeeper=None):
    server = servers[0]
    directory = work / f"small-{count}"
    directory.mkdir(exist_ok=True)
    files = [write_profile(directory / f"p{i}.json", records, pid=100_000 + i)
             for i in range(count)]
    rows = directory / "rows.jsonl"
    subprocess.run([cli, "export", *map(str, files), "--to", "rows", "-o", str(rows)],
                   check=True)
    total = count * records
    times = {"push": [], "clickhouse-client": []}

    claims = ["--zookeeper", zookeeper] if zookeeper else []

    def push():
        subprocess.run([cli, "push", *map(str, files), "--clickhouse", server.url, "--table",
                        "t_push", *claims], check=True, capture_output=True)

    def client():
        with open(rows, "rb") as f:
            subprocess.run(["clickhouse-client", "--port", str(server.tcp_port), "--query",
                            "INSERT INTO t_client FORMAT JSONEachRow"], stdin=f, check=True)

    for round_ in range(rounds):
        for table in ("t_push", "t_client"):
            fresh(servers, cli, table, replicated)
        order = [("push", push), ("clickhouse-client", client)]
        for name, fn in order[round_ % 2:] + order[:round_ % 2]:
            times[name].append(timed(fn))
        for table in ("t_push", "t_client"):
            stored = server.query(f"SELECT count(), uniqExact(run_id, section, sequence) "
                                  f"FROM {table}").split()
            assert stored == [str(total), str(total)], (table, stored)
    push_s = statistics.median(times["push"])
    client_s = statistics.median(times["clickhouse-client"])
    name = "push+claims" if zookeeper else "push"
    print(f"  {count:5} x {records:5} records  {name} {push_s:7.3f} s ({total / push_s:10,.0f} "
          f"rows/s)  clickhouse-client {client_s:7.3f} s ({total / client_s:10,.0f} rows/s)  "
          f"push speed / client's {client_s / push_s:5.2f}")


def insert(server, table, body, **settings):
    query = urllib.parse.urlencode({"query": f"INSERT INTO {table} FORMAT JSONEachRow",
                                    **settings})
    request = urllib.request.Request(f"{server.url}/?{query}", data=body, method="POST")
    with _OPENER.open(request, timeout=600) as reply:
        reply.read()


def block_cost(cli, servers, replicated, work, rounds, blocks=200, records=214):
    server = servers[0]
    with open(work / "small-1000" / "rows.jsonl", "rb") as f:
        lines = f.readlines()[:blocks * records]
    chunks = [b"".join(lines[i * records:(i + 1) * records]) for i in range(blocks)]
    # A block per chunk, however many chunks an INSERT holds.
    split = {"max_insert_block_size": records, "min_insert_block_size_rows": 0,
             "min_insert_block_size_bytes": 0}
    ways = {
        f"{blocks} INSERTs of a block": lambda: [insert(server, "t_blocks", c, **split)
                                                 for c in chunks],
        f"1 INSERT of {blocks} blocks": lambda: insert(server, "t_blocks", b"".join(chunks),
                                                       **split),
        "1 INSERT of 1 block": lambda: insert(server, "t_blocks", b"".join(chunks)),
    }
    times = {name: [] for name in ways}
    for _ in range(rounds):
        for name, fn in ways.items():
            fresh(servers, cli, "t_blocks", replicated)
            times[name].append(timed(fn))
            assert int(server.query("SELECT count() FROM t_blocks")) == blocks * records
    repeat = ""
    if replicated:
        fresh(servers, cli, "t_blocks", replicated)
        ways[f"1 INSERT of {blocks} blocks"]()
        again = timed(ways[f"1 INSERT of {blocks} blocks"])
        stored = int(server.query("SELECT count() FROM t_blocks"))
        assert stored == blocks * records, stored
        repeat = f"; sent again: {again:.3f} s, nothing stored"
    print("  " + ", ".join(f"{name} {statistics.median(t):.3f} s "
                           f"({statistics.median(t) / (1 if name.endswith(' 1 block') else blocks) * 1000:.1f} ms/block)"
                           for name, t in times.items()) + repeat)
    for other in servers:
        other.query("DROP TABLE IF EXISTS t_blocks")


def repush_check(cli, servers, replicated, work, rounds):
    server = servers[0]
    directory = work / "repush"
    directory.mkdir(exist_ok=True)
    files = [write_profile(directory / f"r{i}.json", 2504, pid=200_000 + i) for i in range(7)]

    def repush():
        result = subprocess.run([cli, "push", *map(str, files), "--clickhouse", server.url,
                                 "--table", "t_big"], check=True, capture_output=True, text=True)
        assert "rows stored" not in result.stderr, result.stderr

    fresh(servers, cli, "t_big", replicated)
    subprocess.run([cli, "push", *map(str, files), "--clickhouse", server.url, "--table",
                    "t_big"], check=True, capture_output=True)
    empty = statistics.median(timed(repush) for _ in range(rounds))
    # 40M rows of 4,000 other runs, made on the server.
    fill = timed(lambda: server.query(
        "INSERT INTO t_big SELECT 2 AS schema_version, concat('run-', toString(intDiv(number, "
        "10000))) AS run_id, 'bench' AS host, toDateTime('2025-03-04 05:06:07') AS start_time, "
        "'synthetic' AS command, 'bench' AS tool, '' AS commit, '' AS build_id, "
        "emptyArrayString() AS meta_keys, emptyArrayString() AS meta_values, "
        "toUInt32(0) AS section, '' AS context, toUInt32(number % 10000) AS sequence, "
        "toInt64(-1) AS parent_sequence, 'InstCombinePass' AS pass, 'k' AS kernel, "
        "toUInt16(0) AS depth, toUInt64(0) AS thread, number AS start_ns, "
        "toUInt64(500) AS inclusive_ns, toUInt64(500) AS self_ns, toUInt8(0) AS failed "
        f"FROM numbers({BIG})", timeout=1800))
    rows = int(server.query("SELECT count() FROM t_big"))
    full = statistics.median(timed(repush) for _ in range(rounds))
    print(f"  re-push of 7 stored profiles: {empty:.3f} s on a table of {7 * 2504:,} rows, "
          f"{full:.3f} s on {rows:,} rows (filled in {fill:.0f} s)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", required=True, help="the passtiming command")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--parts", default="small,blocks,repush",
                        help="which measures: small, blocks, repush (comma-separated)")
    args = parser.parse_args()
    cli = args.cli
    if "blocks" in args.parts.split(",") and "small" not in args.parts.split(","):
        parser.error("--parts blocks needs small (its rows are small's 1,000 profiles')")

    work = pathlib.Path(tempfile.mkdtemp(prefix="passtiming-exactly-once-bench-"))
    single = ClickHouse(work / "single")
    zookeeper = ZooKeeper(work / "zookeeper")
    pair = replica_pair(work / "replicas", zookeeper)
    try:
        single.start()
        zookeeper.start()
        for server in pair:
            server.start()
        print(f"clickhouse-server {single.query('SELECT version()').strip()}, "
              f"{args.rounds} rounds, medians")
        for name, servers, replicated in [("ReplacingMergeTree, one server", [single], False),
                                          ("ReplicatedReplacingMergeTree, two replicas", pair,
                                           True)]:
            print(name)
            parts = args.parts.split(",")
            if "small" in parts:
                for count, records in [(100, 2504), (1000, 214)]:
                    many_small(cli, servers, replicated, work, count, records, args.rounds)
                    if replicated:
                        many_small(cli, servers, replicated, work, count, records, args.rounds,
                                   zookeeper=f"127.0.0.1:{zookeeper.port}")
            if "blocks" in parts:
                block_cost(cli, servers, replicated, work, args.rounds)
            if "repush" in parts:
                repush_check(cli, servers, replicated, work, args.rounds)
            for server in servers:
                server.query("DROP TABLE IF EXISTS t_big", timeout=600)
    finally:
        for server in [single, *pair]:
            server.stop()
        zookeeper.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
