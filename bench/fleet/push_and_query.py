"""The fleet's figures (docs/fleet.md), on Debian's clickhouse-server started
on loopback with a data directory of its own:

1. a 1M-record profile exported as rows (`passtiming export --to rows`) and
   pushed (`passtiming push`), beside the server's own ingest of the same
   rows (one `INSERT ... FORMAT JSONEachRow` of the exported file, and the
   same in push's batches of 100,000 rows): rows a second, medians of the
   rounds, the variants interleaved;
2. the documented queries over 10M rows (that profile pushed ten times as
   ten runs of ten commits): seconds per query, median of three.

    bench/fleet/push_and_query.sh [ROUNDS]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "fleet"))

import fleet_sql  # noqa: E402
from clickhouse_server import ClickHouse  # noqa: E402
from synthetic_profiles import write_profile  # noqa: E402

RECORDS = 1_000_000
BATCH = 100_000


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def insert_raw(server, table, data: bytes):
    url = server.url + "/?" + urllib.parse.urlencode(
        {"query": f"INSERT INTO {table} FORMAT JSONEachRow"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(urllib.request.Request(url, data=data, method="POST"), timeout=600) as reply:
        reply.read()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", required=True, help="the passtiming command")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    cli = args.cli

    work = pathlib.Path(tempfile.mkdtemp(prefix="passtiming-fleet-bench-"))
    (work / "server").mkdir()
    server = ClickHouse(work / "server")
    server.start()
    try:
        profile = write_profile(work / "profile.json", RECORDS)
        rows_path = work / "rows.jsonl"
        ddl = fleet_sql.schemas()["pass_executions"]
        print(f"clickhouse-server {server.query('SELECT version()').strip()}, "
              f"{RECORDS:,} records in one profile, {args.rounds} rounds")

        results = {"export": [], "push": [], "server, one INSERT": [],
                   f"server, INSERTs of {BATCH:,}": []}
        for round_ in range(args.rounds):
            for table in ("t_push", "t_raw", "t_batches"):
                server.query(f"DROP TABLE IF EXISTS {table}")
                server.query(ddl.replace("pass_executions", table, 1))
            results["export"].append(timed(lambda: subprocess.run(
                [cli, "export", str(profile), "--to", "rows", "-o", str(rows_path)], check=True)))
            data = rows_path.read_bytes()
            lines = data.splitlines(keepends=True)

            def raw():
                insert_raw(server, "t_raw", data)

            def batches():
                for i in range(0, len(lines), BATCH):
                    insert_raw(server, "t_batches", b"".join(lines[i:i + BATCH]))

            def push():
                subprocess.run([cli, "push", str(profile), "--clickhouse", server.url,
                                "--table", "t_push", "--batch-rows", str(BATCH)],
                               check=True, capture_output=True)

            order = [("push", push), ("server, one INSERT", raw),
                     (f"server, INSERTs of {BATCH:,}", batches)]
            order = order[round_ % 3:] + order[:round_ % 3]
            for name, fn in order:
                results[name].append(timed(fn))
            for table in ("t_push", "t_raw", "t_batches"):
                stored = int(server.query(f"SELECT count() FROM {table}"))
                assert stored == RECORDS, (table, stored)
        print(f"{'':28} {'median':>9} {'min':>9} {'rows/s (median)':>16}")
        for name, times in results.items():
            median = statistics.median(times)
            print(f"{name:28} {median:8.3f}s {min(times):8.3f}s {RECORDS / median:16,.0f}")
        push_over_batches = statistics.median(
            p / b for p, b in zip(results["push"], results[f"server, INSERTs of {BATCH:,}"]))
        print(f"push / the server's own INSERTs of {BATCH:,}: {push_over_batches:.3f} "
              "(median of the rounds' ratios)")

        # 10M rows: the profile as ten runs of ten commits.
        server.query("DROP TABLE IF EXISTS pass_executions")
        fill = timed(lambda: [subprocess.run(
            [cli, "push", str(profile), "--clickhouse", server.url, "--create",
             "--meta", f"run_id=run-{k}", "--meta", f"commit=commit-{k}"],
            check=True, capture_output=True) for k in range(10)])
        rows = int(server.query("SELECT count() FROM pass_executions"))
        print(f"\n{rows:,} rows pushed in {fill:.1f} s ({rows / fill:,.0f} rows/s); "
              "each query, median of 3:")
        values = dict(n=2, base_commit="commit-0", new_commit="commit-1",
                      **{"pass": "InstCombinePass"})
        for name, sql in fleet_sql.queries().items():
            query = fleet_sql.fill(sql, **values)
            times = [timed(lambda: server.query(query, timeout=600)) for _ in range(3)]
            print(f"  {name:28} {statistics.median(times):7.3f} s")
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
