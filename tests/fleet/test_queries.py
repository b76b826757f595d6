"""The documented schema and queries (docs/fleet.md) on real profiles, in
two engines: Debian's clickhouse-server (started by conftest.py on
loopback), fed by `passtiming push`, and a current ClickHouse (chdb),
fed by `passtiming export --to rows`. Every answer is checked against
`passtiming summary` over the same files, or against the profiles
themselves where summary has no such view."""

from __future__ import annotations

import collections
import json
import os
import pathlib
import re
import subprocess

import pytest

import fleet_sql

ROOT = pathlib.Path(__file__).resolve().parents[2]
BASE_COMMIT = "base0001"
NEW_COMMIT = "new00002"


def run_cli(cli, *args, **kwargs):
    return subprocess.run([cli, *args], capture_output=True, text=True, check=True, **kwargs)


def tilelang_python() -> str:
    env_dir = subprocess.run(
        [str(ROOT / "scripts" / "python_env.sh"), "tilelang"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    return os.path.join(env_dir, "bin", "python")


@pytest.fixture(scope="session")
def profiles(tmp_path_factory, passtiming_cli):
    """Three real compiles: clang -O2 of examples/c/particles.c as the base
    commit, built "yesterday on another machine"; clang -O3 of it and a
    TileLang GEMM as the new commit."""
    d = tmp_path_factory.mktemp("profiles")
    source = str(ROOT / "examples" / "c" / "particles.c")
    run_cli(passtiming_cli, "run", "--no-report", "-o", str(d / "base.json"), "--",
            "clang-19", "-O2", "-c", source, "-o", os.devnull)
    run_cli(passtiming_cli, "run", "--no-report", "-o", str(d / "new-clang.json"), "--",
            "clang-19", "-O3", "-c", source, "-o", os.devnull)
    run_cli(passtiming_cli, "run", "--no-report", "-o", str(d / "new-tilelang-%n.json"), "--",
            tilelang_python(), str(ROOT / "examples" / "tilelang" / "gemm.py"))
    (d / "new-tilelang-0.json").rename(d / "new-tilelang.json")
    # The base run: another machine, a day earlier (its metadata, not its passes).
    base = json.loads((d / "base.json").read_text())
    base["metadata"]["host"] = "builder-2"
    base["metadata"]["start_time"] = "2026-01-01T00:00:00Z"
    (d / "base.json").write_text(json.dumps(base))
    return {
        "base": [d / "base.json"],
        "new": [d / "new-clang.json", d / "new-tilelang.json"],
    }


def commit_of(path, profiles):
    return BASE_COMMIT if path in profiles["base"] else NEW_COMMIT


class Server:
    """Debian's clickhouse-server, fed by `passtiming push`."""

    name = "clickhouse-server"

    def __init__(self, clickhouse, cli, profiles):
        self.clickhouse = clickhouse
        clickhouse.query("DROP TABLE IF EXISTS pass_executions")
        for path in profiles["base"] + profiles["new"]:
            run_cli(cli, "push", str(path), "--clickhouse", clickhouse.url, "--create",
                    "--meta", f"commit={commit_of(path, profiles)}")

    def query(self, sql):
        return self.clickhouse.query(sql)


class Chdb:
    """A current ClickHouse engine, in process, fed by `passtiming export`."""

    name = "chdb"

    def __init__(self, cli, profiles):
        from chdb import session

        self.session = session.Session()
        self.session.query(fleet_sql.schemas()["pass_executions"])
        for path in profiles["base"] + profiles["new"]:
            rows = run_cli(cli, "export", str(path), "--to", "rows",
                           "--meta", f"commit={commit_of(path, profiles)}").stdout
            self.session.query("INSERT INTO pass_executions FORMAT JSONEachRow\n" + rows)

    def query(self, sql):
        return str(self.session.query(sql, "TabSeparated"))


@pytest.fixture(scope="session", params=["clickhouse-server", "chdb"])
def engine(request, profiles, passtiming_cli):
    if request.param == "chdb":
        return Chdb(passtiming_cli, profiles)
    return Server(request.getfixturevalue("clickhouse"), passtiming_cli, profiles)


def summary(cli, paths, by="pass"):
    text = run_cli(cli, "summary", *map(str, paths), "--by", by, "--format", "json").stdout
    return json.loads(text)


def load(path):
    return json.loads(pathlib.Path(path).read_text())


def test_the_documented_schema_is_the_one_push_creates(passtiming_cli):
    printed = run_cli(passtiming_cli, "push", "--print-schema").stdout
    squash = lambda sql: re.sub(r"\s+", " ", sql).replace("( ", "(").replace(" )", ")").strip()
    assert squash(printed) == squash(fleet_sql.schemas()["pass_executions"])


def test_every_row_is_stored_once(engine, profiles):
    records = sum(len(s["records"]) for p in profiles["base"] + profiles["new"]
                  for s in load(p)["sections"])
    (count, unique), = fleet_sql.rows_of(engine.query(
        "SELECT count(), uniqExact(run_id, section, sequence) FROM pass_executions"))
    assert int(count) == int(unique) == records


@pytest.mark.parametrize("n", [1, 2])
def test_slowest_passes_over_the_last_commits(engine, profiles, passtiming_cli, n):
    files = profiles["new"] if n == 1 else profiles["base"] + profiles["new"]
    expected = sorted(summary(passtiming_cli, files)["rows"],
                      key=lambda r: (-r["total_self_ns"], r["key"]))[:20]
    got = fleet_sql.rows_of(engine.query(fleet_sql.fill(fleet_sql.queries()["slowest_passes"], n=n)))
    assert [(r[0], int(r[1]), fleet_sql.ns(r[2])) for r in got] == [
        (r["key"], r["executions"], r["total_self_ns"]) for r in expected
    ]


def test_percentiles_of_every_pass_are_the_summarys(engine, profiles, passtiming_cli):
    files = profiles["base"] + profiles["new"]
    expected = {r["key"]: r for r in summary(passtiming_cli, files)["rows"]}
    got = fleet_sql.rows_of(engine.query(fleet_sql.queries()["pass_percentiles"]))
    assert len(got) == len(expected)
    for pass_name, executions, self_ms, p50, p95, max_ms in got:
        want = expected[pass_name]
        assert (int(executions), fleet_sql.ns(self_ms), fleet_sql.ns(p50), fleet_sql.ns(p95),
                fleet_sql.ns(max_ms)) == (
            want["executions"], want["total_self_ns"], want["p50_self_ns"],
            want["p95_self_ns"], want["max_self_ns"]), pass_name


def nearest_rank(values, percent):
    ordered = sorted(values)
    return ordered[max(1, (percent * len(ordered) + 99) // 100) - 1]


@pytest.mark.parametrize("pass_name", ["InstCombinePass", "tl.Simplify"])
def test_percentiles_of_a_pass_per_kernel(engine, profiles, pass_name):
    by_kernel = collections.defaultdict(list)
    for path in profiles["base"] + profiles["new"]:
        for section in load(path)["sections"]:
            for record in section["records"]:
                if record["name"] == pass_name:
                    by_kernel[record["kernel"]].append(record["self_ns"])
    assert by_kernel, f"the profiles have no {pass_name}"
    got = fleet_sql.rows_of(engine.query(
        fleet_sql.fill(fleet_sql.queries()["pass_percentiles_by_kernel"], **{"pass": pass_name})))
    assert {r[0]: (int(r[1]), fleet_sql.ns(r[2]), fleet_sql.ns(r[3])) for r in got} == {
        kernel: (len(v), nearest_rank(v, 50), nearest_rank(v, 95)) for kernel, v in by_kernel.items()
    }


def test_passes_that_grew_between_two_commits(engine, profiles, passtiming_cli):
    base = {r["key"]: r["total_self_ns"] / len(profiles["base"])
            for r in summary(passtiming_cli, profiles["base"])["rows"]}
    new = {r["key"]: r["total_self_ns"] / len(profiles["new"])
           for r in summary(passtiming_cli, profiles["new"])["rows"]}
    expected = {p: (base.get(p, 0.0), n) for p, n in new.items() if n > base.get(p, 0.0)}
    got = fleet_sql.rows_of(engine.query(fleet_sql.fill(
        fleet_sql.queries()["passes_that_grew"], base_commit=BASE_COMMIT, new_commit=NEW_COMMIT)))
    assert {r[0] for r in got} == set(expected)
    for pass_name, base_ms, new_ms, growth_ms in got:
        want_base, want_new = expected[pass_name]
        assert float(base_ms) * 1e6 == pytest.approx(want_base, abs=1)
        assert float(new_ms) * 1e6 == pytest.approx(want_new, abs=1)
        assert float(growth_ms) > 0


def test_compile_time_per_host(engine, profiles, passtiming_cli):
    this_host = load(profiles["new"][0])["metadata"]["host"]
    expected = {
        "builder-2": (1, summary(passtiming_cli, profiles["base"])["total_self_ns"]),
        this_host: (2, summary(passtiming_cli, profiles["new"])["total_self_ns"]),
    }
    got = fleet_sql.rows_of(engine.query(fleet_sql.queries()["time_per_host"]))
    assert {r[0]: (int(r[1]), round(float(r[2]) * 1e9)) for r in got} == expected


def test_the_distributed_table_answers_as_the_local_one(profiles, passtiming_cli, clickhouse):
    """docs/fleet.md's Distributed table over a one-shard cluster (the
    session's server itself) gives every query the local table's answer."""
    Server(clickhouse, passtiming_cli, profiles)
    clickhouse.query("DROP TABLE IF EXISTS pass_executions_all")
    clickhouse.query(fleet_sql.schemas()["pass_executions_all"])
    values = dict(n=2, base_commit=BASE_COMMIT, new_commit=NEW_COMMIT, **{"pass": "InstCombinePass"})
    for name, sql in fleet_sql.queries().items():
        local = fleet_sql.fill(sql, **values)
        # Only the table the query reads changes; FINAL is the local tables'.
        distributed = local.replace("pass_executions FINAL", "pass_executions_all").replace(
            "FROM pass_executions\n", "FROM pass_executions_all\n")
        assert "pass_executions_all" in distributed, name
        assert clickhouse.query(distributed) == clickhouse.query(local), name
