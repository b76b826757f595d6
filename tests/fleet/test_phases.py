"""The phases of a compile in the fleet (docs/fleet.md#phases): `push`
stores them in the phase table beside the pass table, once; `export --to
phase-rows` writes the same rows; OTLP spans nest each section under its
phase. A synthetic profile with phases, in the profile format
(docs/profile-format.md, version 3)."""

import json
import re
import subprocess

import fleet_sql
from test_otlp import parse_otlp_line
from test_push import push, tsv

PHASE_COLUMNS = [
    ("schema_version", "UInt8"), ("run_id", "String"), ("host", "String"),
    ("start_time", "DateTime"), ("command", "String"), ("tool", "String"),
    ("commit", "String"), ("build_id", "String"), ("meta_keys", "Array(String)"),
    ("meta_values", "Array(String)"), ("phase", "UInt32"), ("parent", "Int64"),
    ("path", "String"), ("name", "String"), ("detail", "String"), ("depth", "UInt16"),
    ("thread", "UInt64"), ("start_ns", "Int64"), ("duration_ns", "UInt64"), ("cpu_ns", "Int64"),
    ("failed", "UInt8"), ("section_count", "UInt32"),
]

# compile 0..1000 ns (CPU 900), its front end 0..300, its back end 300..900
# (failed), the back end's one function 400..800; the one section's passes
# ran in the back end.
PHASES = [
    {"name": "compile", "detail": "a.c", "parent": None, "thread": 7, "start_ns": 0,
     "duration_ns": 1000, "cpu_ns": 900},
    {"name": "front end", "parent": 0, "thread": 7, "start_ns": 0, "duration_ns": 300},
    {"name": "back end", "parent": 0, "thread": 7, "start_ns": 300, "duration_ns": 600,
     "failed": True},
    {"name": "function", "detail": "main", "parent": 2, "thread": 7, "start_ns": 400,
     "duration_ns": 400},
]


def write_phased_profile(path, pid):
    metadata = {"tool": "passtiming 0.1.0", "command": "clang -c a.c", "host": "fleet-test",
                "start_time": "2025-03-04T05:06:07Z", "pid": pid}
    with open(path, "w") as f:
        f.write('{"format":"passtiming-profile","version":3,\n"metadata":'
                + json.dumps(metadata, separators=(",", ":")) + ",\n"
                + '"phases":' + json.dumps(PHASES, separators=(",", ":")) + ",\n"
                + '"sections":[\n{"context":"a.c","phase":2,"skipped":0,"threads":[0],'
                + '"records":[\n{"name":"ISel","kernel":"","depth":0,"sequence":0,'
                + '"parent":null,"thread":0,"start_ns":450,"inclusive_ns":100,"self_ns":100}]}\n'
                + "]}\n")
    return path


def test_push_stores_the_phases_beside_the_passes_once(clickhouse, passtiming_cli, tmp_path):
    profile = write_phased_profile(tmp_path / "phased.json", pid=501)
    result = push(passtiming_cli, [profile], clickhouse.url, "--table", "t_phased", "--create")
    assert result.returncode == 0, result.stderr
    assert f"{profile}: 4 phases stored in t_phased_phases" in result.stderr
    described = [tuple(row[:2]) for row in tsv(clickhouse.query("DESCRIBE TABLE t_phased_phases"))]
    assert described == PHASE_COLUMNS
    rows = tsv(clickhouse.query(
        "SELECT phase, parent, path, detail, depth, duration_ns, cpu_ns, failed, section_count "
        "FROM t_phased_phases ORDER BY phase"))
    assert rows == [
        ["0", "-1", "compile", "a.c", "0", "1000", "900", "0", "0"],
        ["1", "0", "compile/front end", "", "1", "300", "-1", "0", "0"],
        ["2", "0", "compile/back end", "", "1", "600", "-1", "1", "1"],
        ["3", "2", "compile/back end/function", "main", "2", "400", "-1", "0", "0"],
    ]
    assert clickhouse.query("SELECT count() FROM t_phased").strip() == "1"
    # Phase schema 2: sorted by the identity of a phase, so that a push's
    # look at a run's stored phases reads a range of the key.
    assert "ORDER BY (run_id, phase)" in clickhouse.query("SHOW CREATE TABLE t_phased_phases")
    assert clickhouse.query("SELECT DISTINCT schema_version FROM t_phased_phases").strip() == "2"

    # Every column is what `export --to phase-rows` writes.
    columns = ", ".join(name for name, _ in PHASE_COLUMNS)
    stored = clickhouse.query(f"SELECT {columns} FROM t_phased_phases FORMAT JSONEachRow",
                              settings={"output_format_json_quote_64bit_integers": 0})
    exported = subprocess.run([passtiming_cli, "export", str(profile), "--to", "phase-rows"],
                              check=True, capture_output=True, text=True).stdout
    assert sorted(json.dumps(json.loads(line), sort_keys=True) for line in stored.splitlines()) \
        == sorted(json.dumps(json.loads(line), sort_keys=True) for line in exported.splitlines())

    # Again: nothing stored twice.
    again = push(passtiming_cli, [profile], clickhouse.url, "--table", "t_phased")
    assert again.returncode == 0, again.stderr
    assert "phases stored" not in again.stderr
    assert clickhouse.query("SELECT count() FROM t_phased_phases").strip() == "4"


def test_without_the_phase_table_the_passes_are_stored_and_a_warning_says_so(
        clickhouse, passtiming_cli, tmp_path):
    clickhouse.query(subprocess.run([passtiming_cli, "push", "--print-schema", "--table",
                                     "t_no_phases"], check=True, capture_output=True,
                                    text=True).stdout)
    profile = write_phased_profile(tmp_path / "phased.json", pid=502)
    result = push(passtiming_cli, [profile], clickhouse.url, "--table", "t_no_phases")
    assert result.returncode == 0, result.stderr
    assert ("passtiming push: warning: table t_no_phases_phases does not exist (--create makes "
            "it, --print-phase-schema prints it): the phases are not stored") in result.stderr
    assert clickhouse.query("SELECT count() FROM t_no_phases").strip() == "1"
    # The statement --print-phase-schema prints makes it.
    clickhouse.query(subprocess.run([passtiming_cli, "push", "--print-phase-schema", "--table",
                                     "t_no_phases"], check=True, capture_output=True,
                                    text=True).stdout)
    result = push(passtiming_cli, [profile], clickhouse.url, "--table", "t_no_phases")
    assert result.returncode == 0, result.stderr
    assert clickhouse.query("SELECT count() FROM t_no_phases_phases").strip() == "4"


def test_otlp_nests_each_section_under_its_phase(passtiming_cli, tmp_path):
    profile = write_phased_profile(tmp_path / "phased.json", pid=503)
    line = subprocess.run([passtiming_cli, "export", str(profile), "--to", "otlp"], check=True,
                          capture_output=True, text=True).stdout
    traces = parse_otlp_line(line)
    spans = list(traces.resource_spans[0].scope_spans[0].spans)
    assert len({span.trace_id for span in spans}) == 1  # the compile is one trace
    by_id = {span.span_id: span for span in spans}
    names = [span.name for span in spans]
    assert names == ["compile", "front end", "back end", "function", "a.c", "ISel"]
    compile_, front, back, function, section, isel = spans
    assert not compile_.parent_span_id
    assert front.parent_span_id == compile_.span_id
    assert back.parent_span_id == compile_.span_id
    assert function.parent_span_id == back.span_id
    assert section.parent_span_id == back.span_id
    assert isel.parent_span_id == section.span_id
    assert back.status.code == 2  # failed
    assert compile_.end_time_unix_nano - compile_.start_time_unix_nano == 1000
    # The passes on the phases' clock: ISel began 450 ns into the compile.
    assert isel.start_time_unix_nano - compile_.start_time_unix_nano == 450
    attributes = {a.key: a.value for a in compile_.attributes}
    assert attributes["passtiming.kind"].string_value == "phase"
    assert attributes["passtiming.detail"].string_value == "a.c"
    assert attributes["passtiming.cpu_ns"].int_value == 900
    assert by_id[isel.parent_span_id].name == "a.c"


def test_the_documented_phase_schema_is_the_one_push_creates(passtiming_cli):
    printed = subprocess.run([passtiming_cli, "push", "--print-phase-schema"], check=True,
                             capture_output=True, text=True).stdout
    squash = lambda sql: re.sub(r"\s+", " ", sql).replace("( ", "(").replace(" )", ")").strip()
    assert squash(printed) == squash(fleet_sql.schemas()["pass_executions_phases"])
