"""`passtiming export --to otlp` read with the OpenTelemetry protocol's own
definitions (the opentelemetry-proto package): every line is a valid
`TracesData` of at most 1 MiB (what the OpenTelemetry Collector's
`otlpjsonfile` receiver reads a line by default), and the spans of all
lines are the profile's tree."""

from __future__ import annotations

import base64
import json
import os
import pathlib
import subprocess

import pytest
from google.protobuf import json_format
from opentelemetry.proto.trace.v1 import trace_pb2

from synthetic_profiles import write_profile

ROOT = pathlib.Path(__file__).resolve().parents[2]
MIB = 1 << 20


@pytest.fixture(scope="module")
def compile_profile(tmp_path_factory, passtiming_cli):
    """A real compile: clang -O2 of examples/c/particles.c."""
    path = tmp_path_factory.mktemp("otlp") / "particles.json"
    subprocess.run([passtiming_cli, "run", "--no-report", "-o", str(path), "--", "clang-19", "-O2",
                    "-c", str(ROOT / "examples" / "c" / "particles.c"), "-o", os.devnull],
                   check=True, capture_output=True)
    return path


def parse_otlp_line(line: str) -> trace_pb2.TracesData:
    """OTLP JSON differs from the Protobuf JSON mapping in one place: ids are
    hex, not base64. Turned into base64, the document is Protobuf JSON."""
    doc = json.loads(line)
    for resource_spans in doc["resourceSpans"]:
        for scope_spans in resource_spans["scopeSpans"]:
            for span in scope_spans["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    return json_format.ParseDict(doc, trace_pb2.TracesData())


def export_otlp(passtiming_cli, profile, *args) -> list[str]:
    """The output's lines, each with its newline."""
    text = subprocess.run([passtiming_cli, "export", str(profile), "--to", "otlp", *args],
                          check=True, capture_output=True, text=True).stdout
    return text.splitlines(keepends=True)


def test_every_line_is_traces_data_and_the_tree_is_the_profiles(compile_profile, passtiming_cli):
    lines = export_otlp(passtiming_cli, compile_profile, "--meta", "commit=abc")
    # The compile's spans take about 1.4 MiB: more than a line holds.
    assert len(lines) >= 2
    assert all(len(line.encode()) <= MIB for line in lines)
    spans = []
    for line in lines:
        traces = parse_otlp_line(line)
        (resource_spans,) = traces.resource_spans
        resource = {a.key: a.value for a in resource_spans.resource.attributes}
        assert resource["service.name"].string_value == "passtiming"
        assert resource["passtiming.commit"].string_value == "abc"
        assert resource["passtiming.tool"].string_value == "clang"
        (scope_spans,) = resource_spans.scope_spans
        assert scope_spans.scope.name == "passtiming"
        spans += scope_spans.spans

    profile = json.loads(compile_profile.read_text())
    (section,) = profile["sections"]
    records = section["records"]
    assert len(spans) == len(records) + 1  # the PassContext's root span, then one per pass

    by_id = {s.span_id: s for s in spans}
    assert len(by_id) == len(spans)
    (root,) = [s for s in spans if not s.parent_span_id]
    assert all(s.trace_id == root.trace_id for s in spans)
    attrs = lambda s: {a.key: a.value for a in s.attributes}
    by_sequence = {attrs(s)["passtiming.sequence"].int_value: s for s in spans if s is not root}
    for record in records:
        span = by_sequence[record["sequence"]]
        assert span.name == record["name"]
        assert span.kind == trace_pb2.Span.SPAN_KIND_INTERNAL
        assert span.end_time_unix_nano - span.start_time_unix_nano == record["inclusive_ns"]
        a = attrs(span)
        assert a["passtiming.self_ns"].int_value == record["self_ns"]
        assert a["passtiming.depth"].int_value == record["depth"]
        assert a["passtiming.kernel"].string_value == record["kernel"]
        parent = by_id[span.parent_span_id]
        if record.get("parent") is None:
            assert parent is root
        else:
            assert parent is by_sequence[record["parent"]]


def test_a_limit_of_a_line_splits_the_spans_and_loses_none(compile_profile, passtiming_cli):
    whole = export_otlp(passtiming_cli, compile_profile, "--max-line-bytes", str(64 * MIB))
    assert len(whole) == 1
    lines = export_otlp(passtiming_cli, compile_profile, "--max-line-bytes", "65536")
    assert all(len(line.encode()) <= 65536 for line in lines)
    spans = lambda text: [span for line in text
                          for span in json.loads(line)["resourceSpans"][0]["scopeSpans"][0]["spans"]]
    assert spans(lines) == spans(whole)


def test_a_bad_limit_is_a_usage_error(compile_profile, passtiming_cli):
    for args in (["--to", "otlp", "--max-line-bytes", "100"],
                 ["--to", "otlp", "--max-line-bytes", "lots"],
                 ["--to", "rows", "--max-line-bytes", "65536"]):
        result = subprocess.run([passtiming_cli, "export", str(compile_profile), *args],
                                capture_output=True, text=True)
        assert result.returncode == 2, args
        assert "--max-line-bytes" in result.stderr, result.stderr
        assert result.stdout == ""


def test_400k_records_come_in_lines_of_at_most_1_mib(passtiming_cli, tmp_path):
    records = 400_000
    profile = write_profile(tmp_path / "large.json", records, sections=2)
    out = tmp_path / "spans.jsonl"
    subprocess.run([passtiming_cli, "export", str(profile), "--to", "otlp", "-o", str(out)],
                   check=True, capture_output=True)
    ids, parents, count, lines = set(), [], 0, 0
    with open(out, "rb") as f:
        for line in f:
            lines += 1
            assert len(line) <= MIB and line.endswith(b"\n")
            doc = json.loads(line)
            for span in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]:
                count += 1
                ids.add(span["spanId"])
                if "parentSpanId" in span:
                    parents.append(span["parentSpanId"])
            if lines == 1:
                parse_otlp_line(line.decode())  # the protocol's own reading, on one line
    assert lines > 100
    assert count == len(ids) == records + 2  # a root span per section, a span per record
    assert len(parents) == records and all(parent in ids for parent in parents)
