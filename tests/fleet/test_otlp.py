"""`passtiming export --to otlp` read with the OpenTelemetry protocol's own
definitions (the opentelemetry-proto package): every line is a valid
`TracesData`, and its span tree is the profile's."""

from __future__ import annotations

import base64
import json
import os
import pathlib
import subprocess

import pytest
from google.protobuf import json_format
from opentelemetry.proto.trace.v1 import trace_pb2

ROOT = pathlib.Path(__file__).resolve().parents[2]


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


def test_every_line_is_traces_data_and_the_tree_is_the_profiles(compile_profile, passtiming_cli):
    text = subprocess.run([passtiming_cli, "export", str(compile_profile), "--to", "otlp",
                           "--meta", "commit=abc"], check=True, capture_output=True,
                          text=True).stdout
    lines = text.splitlines()
    assert len(lines) == 1
    traces = parse_otlp_line(lines[0])
    (resource_spans,) = traces.resource_spans
    resource = {a.key: a.value for a in resource_spans.resource.attributes}
    assert resource["service.name"].string_value == "passtiming"
    assert resource["passtiming.commit"].string_value == "abc"
    assert resource["passtiming.tool"].string_value == "clang"
    (scope_spans,) = resource_spans.scope_spans
    spans = list(scope_spans.spans)

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
