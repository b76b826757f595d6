"""`passtiming pull` against a real ClickHouse server (the `clickhouse`
fixture): runs pushed by `passtiming push` read back into profile files by
`--run`, `--where` and `--last`; `export --to rows` of a pulled file gives
the rows of the original byte for byte; `diff --gate --measure wall` reads
pulled files as a base; and how it fails — no run matched, a pattern that
would write several runs to one file, a server away or refusing, without
ever showing a password.

Profiles are real: clang-19 compiles timed by `passtiming run --repeat`,
and one synthetic profile (docs/profile-format.md) pushed with --meta pairs.
"""

import json
import os
import shutil
import subprocess
import urllib.parse
from pathlib import Path

import pytest

from clickhouse_server import PUSHER_PASSWORD, free_port
from synthetic_profiles import write_profile

REPO = Path(__file__).resolve().parents[2]
TABLE = "t_pull"
META = ["--meta", "commit=abc123", "--meta", "build_id=77", "--meta", "team=compilers"]


def run(cli, *args, timeout=120):
    return subprocess.run([cli, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def pull(cli, url, *args):
    return run(cli, "pull", "--clickhouse", url, "--table", TABLE, *args)


def export_rows(cli, path, *meta):
    result = run(cli, "export", path, "--to", "rows", *meta)
    assert result.returncode == 0, result.stderr
    return result.stdout


def run_id(cli, path, *meta):
    return json.loads(export_rows(cli, path, *meta).splitlines()[0])["run_id"]


def compiles(cli, directory, name, repeat):
    """`repeat` real profiles of clang-19 -O2 on particles.c."""
    clang = os.environ.get("PASSTIMING_CLANG") or shutil.which("clang-19")
    if clang is None:
        pytest.fail("clang-19 is not installed")
    result = run(cli, "run", "--no-report", "--repeat", repeat, "-o",
                 directory / f"{name}-%r.json", "--", clang, "-O2", "-c",
                 REPO / "examples" / "c" / "particles.c", "-o", os.devnull, timeout=600)
    assert result.returncode == 0, result.stderr
    paths = [directory / f"{name}-{i}.json" for i in range(1, repeat + 1)]
    assert all(p.exists() for p in paths), result.stderr
    return paths


@pytest.fixture(scope="module")
def stored(clickhouse, passtiming_cli, particles_profile, tmp_path_factory):
    """The table t_pull with the particles profile, four more compiles of
    it (the base) and a synthetic profile pushed with --meta pairs; four
    compiles not pushed (the new side)."""
    directory = tmp_path_factory.mktemp("pull")
    base = compiles(passtiming_cli, directory, "base", 4)
    new = compiles(passtiming_cli, directory, "new", 4)
    synthetic = write_profile(directory / "synthetic.json", 300, sections=3, pid=5151)
    result = run(passtiming_cli, "push", particles_profile, *base, "--clickhouse",
                 clickhouse.url, "--table", TABLE, "--create")
    assert result.returncode == 0, result.stderr
    result = run(passtiming_cli, "push", synthetic, "--clickhouse", clickhouse.url, "--table",
                 TABLE, *META)
    assert result.returncode == 0, result.stderr
    return {"particles": particles_profile, "base": base, "new": new, "synthetic": synthetic}


def test_pull_by_run_gives_the_rows_of_the_original(clickhouse, passtiming_cli, stored,
                                                    tmp_path):
    original = stored["particles"]
    rid = run_id(passtiming_cli, original)
    out = tmp_path / "pulled.json"
    result = pull(passtiming_cli, clickhouse.url, "--run", rid, "-o", out)
    assert result.returncode == 0, result.stderr
    rows = export_rows(passtiming_cli, original)
    assert result.stderr == (
        f"passtiming pull: wrote {out} (run {rid}, {len(rows.splitlines())} rows)\n")
    # The same rows, byte for byte: the run id (its pid found again), the
    # start time, the records in completion order, every column.
    assert export_rows(passtiming_cli, out) == rows
    pulled = json.loads(out.read_text())
    recorded = json.loads(original.read_text())
    for key in ("command", "host", "start_time", "pid", "source"):
        assert pulled["metadata"][key] == recorded["metadata"][key], key
    # What the rows do not hold, the pulled profile does not claim.
    assert "metrics" not in pulled and "phases" not in pulled
    # Pushed again, it stores nothing: the same run, the same rows.
    count = clickhouse.query(f"SELECT count() FROM {TABLE}")
    result = run(passtiming_cli, "push", out, "--clickhouse", clickhouse.url, "--table", TABLE)
    assert result.returncode == 0, result.stderr
    assert "already stored" in result.stderr, result.stderr
    assert clickhouse.query(f"SELECT count() FROM {TABLE}") == count
    # Read as any profile.
    for command in (["summary", out], ["report", out]):
        result = run(passtiming_cli, *command)
        assert result.returncode == 0, (command, result.stderr)


def test_columns_no_profile_holds_are_given_back_as_meta(clickhouse, passtiming_cli, stored,
                                                         tmp_path):
    original = stored["synthetic"]
    rid = run_id(passtiming_cli, original, *META)
    out = tmp_path / "synthetic.json"
    result = pull(passtiming_cli, clickhouse.url, "--run", rid, "-o", out)
    assert result.returncode == 0, result.stderr
    assert result.stderr.endswith(
        "; its rows again with --meta 'commit=abc123' --meta 'build_id=77' "
        "--meta 'team=compilers'\n"), result.stderr
    assert export_rows(passtiming_cli, out, *META) == export_rows(passtiming_cli, original, *META)
    # Without them, only commit, build_id and the meta columns differ.
    held = ("commit", "build_id", "meta_keys", "meta_values")

    def without_meta(text):
        return [{k: v for k, v in json.loads(line).items() if k not in held}
                for line in text.splitlines()]

    bare = export_rows(passtiming_cli, out)
    assert without_meta(bare) == without_meta(export_rows(passtiming_cli, original, *META))
    assert all(json.loads(line)["meta_keys"] == [] for line in bare.splitlines())


def test_pull_by_where(clickhouse, passtiming_cli, stored, tmp_path):
    result = pull(passtiming_cli, clickhouse.url, "--where", "commit = 'abc123'", "-o",
                  tmp_path / "w-%r.json")
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w-1.json"]
    assert run_id(passtiming_cli, tmp_path / "w-1.json", *META) == run_id(
        passtiming_cli, stored["synthetic"], *META)
    # A --meta pair, as docs/fleet.md selects a branch's runs.
    result = pull(passtiming_cli, clickhouse.url, "--where",
                  "meta_values[indexOf(meta_keys, 'team')] = 'compilers'", "--last", "10", "-o",
                  tmp_path / "m-%i.json")
    assert result.returncode == 0, result.stderr
    rid = run_id(passtiming_cli, stored["synthetic"], *META)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m-%s.json" % rid, "w-1.json"]


def test_pull_the_last_runs_newest_first(clickhouse, passtiming_cli, stored, tmp_path):
    # The compiles (not the synthetic run of 2025): newest first, ties by id.
    compiles_only = "command LIKE '%particles.c%'"
    originals = [stored["particles"], *stored["base"]]
    starts = {}
    for path in originals:
        row = json.loads(export_rows(passtiming_cli, path).splitlines()[0])
        starts[row["run_id"]] = row["start_time"]
    newest = sorted(starts, key=lambda rid: rid)
    newest.sort(key=lambda rid: starts[rid], reverse=True)
    result = pull(passtiming_cli, clickhouse.url, "--where", compiles_only, "--last", "3", "-o",
                  tmp_path / "last-%r-%i.json")
    assert result.returncode == 0, result.stderr
    written = [tmp_path / f"last-{i + 1}-{rid}.json" for i, rid in enumerate(newest[:3])]
    assert sorted(tmp_path.iterdir()) == sorted(written)
    assert [line.split(" ")[3] for line in result.stderr.splitlines()] == list(map(str, written))
    by_id = {run_id(passtiming_cli, p): p for p in originals}
    for path in written:
        assert export_rows(passtiming_cli, path) == export_rows(
            passtiming_cli, by_id[run_id(passtiming_cli, path)])


def test_diff_gate_reads_a_pulled_base(clickhouse, passtiming_cli, stored, tmp_path):
    base_ids = [run_id(passtiming_cli, p) for p in stored["base"]]
    args = []
    for rid in base_ids:
        args += ["--run", rid]
    result = pull(passtiming_cli, clickhouse.url, *args, "-o", tmp_path / "base-%r.json")
    assert result.returncode == 0, result.stderr
    pulled = [tmp_path / f"base-{i}.json" for i in range(1, 5)]
    # In the --run order.
    assert [run_id(passtiming_cli, p) for p in pulled] == base_ids
    gate = run(passtiming_cli, "diff", "--gate", "--measure", "wall", "--format", "json",
               "--base", *pulled, "--new", *stored["new"])
    # 0 or 1 (a slower machine moment is a verdict too); 2 only when 4 runs
    # per side are too few for the passes this compile's timings leave to
    # test (the gate's check of its power), never for reading the files.
    assert gate.returncode in (0, 1, 2), gate.stderr
    if gate.returncode == 2:
        assert "so none could be flagged" in gate.stderr, gate.stderr
    else:
        assert json.loads(gate.stdout), gate.stdout
    # The same verdict as the original files give, to the byte.
    direct = run(passtiming_cli, "diff", "--gate", "--measure", "wall", "--format", "json",
                 "--base", *stored["base"], "--new", *stored["new"])
    assert direct.returncode == gate.returncode, direct.stderr
    assert direct.stdout == gate.stdout
    if gate.returncode == 2:
        assert direct.stderr == gate.stderr


def test_no_run_matched(clickhouse, passtiming_cli, stored, tmp_path):
    for args in (["--where", "commit = 'no such commit'"], ["--run", "0123456789abcdef"]):
        result = pull(passtiming_cli, clickhouse.url, *args, "-o", tmp_path / "x-%r.json")
        assert result.returncode == 2, result.stderr
        assert result.stderr.startswith("passtiming pull: no run"), result.stderr
    assert list(tmp_path.iterdir()) == []


def test_bad_selections_and_patterns(clickhouse, passtiming_cli, stored, tmp_path):
    cases = [
        # Several runs, one file.
        (["--last", "2", "-o", tmp_path / "one.json"], "would be written to one file"),
        (["--last", "2", "-o", "-"], "stdout takes one"),
        # No selection: never the whole table.
        (["-o", tmp_path / "all-%r.json"], "say which runs"),
        (["--last", "1"], "-o PATTERN is required"),
        (["--last", "1", "-o", tmp_path / "%q.json"], "'%q' is not a pattern"),
    ]
    for args, message in cases:
        result = pull(passtiming_cli, clickhouse.url, *args)
        assert result.returncode == 2, (args, result.stderr)
        assert message in result.stderr, (args, result.stderr)
    assert list(tmp_path.iterdir()) == []
    # SQL the server refuses: its message, status 3.
    result = pull(passtiming_cli, clickhouse.url, "--where", "no_such_column = 1", "-o",
                  tmp_path / "x.json")
    assert result.returncode == 3, result.stderr
    assert "the server refused a query" in result.stderr and "no_such_column" in result.stderr


def test_no_message_shows_a_secret(clickhouse, passtiming_cli, stored, tmp_path):
    secret = PUSHER_PASSWORD
    quoted = urllib.parse.quote(secret)
    refused_port = free_port()
    cases = [
        # Nothing listens.
        (f"http://pusher:{secret}@127.0.0.1:{refused_port}", 3),
        (f"http://127.0.0.1:{refused_port}/?user=pusher&password={quoted}", 3),
        # A wrong password.
        (f"http://pusher:wrong-{secret}@127.0.0.1:{clickhouse.port}", 3),
        (f"http://127.0.0.1:{clickhouse.port}/?user=pusher&password=wrong-{quoted}", 3),
        # Not a URL at all.
        (f"pusher:{secret}@127.0.0.1:{clickhouse.port}", 2),
    ]
    for url, status in cases:
        result = pull(passtiming_cli, url, "--last", "1", "-o", tmp_path / "s.json")
        assert result.returncode == status, (url, result.stderr)
        for text in (result.stdout, result.stderr):
            assert secret not in text and quoted not in text, (url, text)
        assert result.stderr.startswith("passtiming pull:"), (url, result.stderr)
    # The right password reads.
    result = pull(passtiming_cli, f"http://pusher:{secret}@127.0.0.1:{clickhouse.port}",
                  "--last", "1", "-o", tmp_path / "s.json")
    assert result.returncode == 0, result.stderr
    assert secret not in result.stderr
