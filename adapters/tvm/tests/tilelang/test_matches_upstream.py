"""passtiming's TileLang tool against upstream's (tilelang.tools.pass_timing)
on real compiles: each kernel is lowered once, for CUDA, with passtiming's
tool and upstream's attached to the same compile session, so both see the
very same pass callbacks.

Each compile has two PassContexts, as TileLang's own compiles may: the
lowering (context "stage=test-lower, kernel=NAME", made the way TileLang's
JIT path makes its context) and a `tirx.Simplify` of the lowered device
module (no context, as `tilelang.lower` gives).

Durations differ between the two tools (they read the clock at different
moments), so the records must agree on everything else exactly; the report
renderer is compared byte for byte by giving upstream's instrument
passtiming's own records.
"""

from __future__ import annotations

import dataclasses
import math

import pytest
import tilelang
import tvm
from tilelang.instrumentation import (
    PassInstrumentationTool,
    compile_pass_instrumentation,
    create_pass_instruments,
)
from tilelang.tools import pass_timing as upstream

import kernels
import passtiming
import passtiming.tilelang
import passtiming.tvm
from timing_helpers import children_of, completion_order, shape, to_ns, upstream_instrument_with

THRESHOLDS_MS = (0.0, 0.05, 1.0, -1.0, float("nan"), float("inf"))
KERNELS = {"gemm": kernels.gemm, "add": kernels.elementwise_add, "reduce_rows": kernels.row_sum}


@dataclasses.dataclass
class Compile:
    ours: passtiming.tilelang.PassTimingTool
    theirs: upstream.PassTimingTool
    ours_by_threshold: dict  # threshold (repr) -> a passtiming tool with that threshold
    instrument_order: list  # the instruments of the lowering's PassContext, in order
    artifact: object


def _compile(name, prim_func, target):
    ours = passtiming.tilelang.PassTimingTool()
    theirs = upstream.PassTimingTool()
    by_threshold = {repr(t): passtiming.tilelang.PassTimingTool(threshold_ms=t) for t in THRESHOLDS_MS}
    tools = [ours, theirs, *by_threshold.values()]
    with compile_pass_instrumentation(name=name, tools=tools, include_default_tools=False):
        instruments = create_pass_instruments(context=f"stage=test-lower, kernel={name}")
        with tvm.transform.PassContext(opt_level=3, instruments=instruments), target:
            artifact = tilelang.lower(prim_func, target=target)
        with tvm.transform.PassContext(instruments=create_pass_instruments()):
            tvm.tirx.transform.Simplify()(artifact.device_mod)
    return Compile(ours, theirs, by_threshold, instruments, artifact)


@pytest.fixture(scope="module")
def compiles(cuda_target):
    """name -> Compile, each kernel lowered once with every tool attached."""
    return {name: _compile(name, make(), cuda_target) for name, make in KERNELS.items()}


@pytest.fixture(params=list(KERNELS))
def compiled(request, compiles):
    return compiles[request.param]


def test_same_sections_and_contexts(compiled):
    assert len(compiled.ours.timings) == len(compiled.theirs.timings) == 2
    assert compiled.ours.contexts == compiled.theirs.contexts
    assert compiled.ours.contexts[0].startswith("stage=test-lower, kernel=")
    assert compiled.ours.contexts[1] is None


def test_same_passes_depths_kernels_and_sequences(compiled):
    for ours, theirs in zip(compiled.ours.timings, compiled.theirs.timings, strict=True):
        assert ours.records, "a real lowering runs passes"
        assert shape(ours.records) == shape(theirs.records)
    assert shape(compiled.ours.records) == shape(compiled.theirs.records)


def test_records_are_in_sequence_order_from_zero(compiled):
    for timing in compiled.ours.timings:
        assert [r.sequence for r in timing.records] == list(range(len(timing.records)))


def test_lowering_records_name_the_kernel(compiled, compiles):
    name = next(n for n, c in compiles.items() if c is compiled)
    lowering, simplify = compiled.ours.timings
    # The first pass sees the module as given: one function, the kernel.
    assert lowering.records[0].kernel == name
    assert all(r.kernel for r in lowering.records)
    assert [(r.name, r.depth, r.kernel) for r in simplify.records] == [("tirx.Simplify", 0, f"{name}_kernel")]


def test_self_time_is_inclusive_minus_children(compiled):
    for timing in compiled.ours.timings:
        for record in timing.records:
            children = children_of(timing.records, record)
            assert to_ns(record.self_duration_s) == to_ns(record.duration_s) - sum(
                to_ns(c.duration_s) for c in children
            )
        top_level = [to_ns(r.duration_s) for r in timing.records if r.depth == 0]
        assert to_ns(timing.total_duration_s) == sum(top_level)


def test_completion_order_helper_matches_upstreams_own_record_order(compiled):
    # Upstream stores records as passes finish; the helper that refills it
    # with passtiming's records must rebuild that order.
    for ours, theirs in zip(compiled.ours.timings, compiled.theirs.timings, strict=True):
        assert shape(completion_order(ours.records)) == shape(theirs._records)


@pytest.mark.parametrize("threshold_ms", THRESHOLDS_MS, ids=repr)
def test_report_is_upstreams_report_of_the_same_records(compiled, threshold_ms):
    tool = compiled.ours_by_threshold[repr(threshold_ms)]
    sections = []
    for context, timing in zip(tool.contexts, tool.timings, strict=True):
        reference = upstream_instrument_with(timing.records, threshold_ms).report(context)
        assert timing.report(context) == reference
        assert timing.report(None) == upstream_instrument_with(timing.records, threshold_ms).report(None)
        sections.append(reference)
    assert tool.report() == "\n\n".join(sections)


def test_thresholded_tools_saw_the_same_passes(compiled):
    for tool in compiled.ours_by_threshold.values():
        assert shape(tool.records) == shape(compiled.ours.records)
        assert tool.contexts == compiled.ours.contexts


def test_total_matches_upstreams_total_of_the_same_records(compiled):
    for timing in compiled.ours.timings:
        reference = upstream_instrument_with(timing.records, 0.0).total_duration_s
        assert math.isclose(timing.total_duration_s, reference, rel_tol=1e-12, abs_tol=1e-15)


def test_records_are_passtiming_dataclasses_with_upstreams_fields(compiled):
    record = compiled.ours.records[0]
    assert type(record) is passtiming.PassTimingRecord
    assert [f.name for f in dataclasses.fields(passtiming.PassTimingRecord)] == [
        f.name for f in dataclasses.fields(upstream.PassTimingRecord)
    ]


def test_kernel_label_matches_upstream_on_lowered_modules(compiled):
    artifact = compiled.artifact
    for mod in (artifact.host_mod, artifact.device_mod):
        assert passtiming.tvm.kernel_label(mod) == upstream._extract_kernel_label(mod)
    both = tvm.IRModule({**dict(artifact.host_mod.functions.items()), **dict(artifact.device_mod.functions.items())})
    label = passtiming.tvm.kernel_label(both)
    assert label == upstream._extract_kernel_label(both)
    assert label.endswith(" +1 more")


class _PythonInstrumentTool(PassInstrumentationTool):
    """A tool at the default priority (0) making a Python PassInstrument."""

    def create_pass_instrument(self):
        @tvm.instrument.pass_instrument
        class Noop:
            def run_before_pass(self, mod, info):
                pass

        return Noop()


def _session_order(tools):
    with compile_pass_instrumentation(name="order", tools=tools, include_default_tools=False) as session:
        return session.create_pass_instruments(context="stage=order")


def _made_by(tool, instrument):
    return instrument is tool.timings[-1].instrument


def test_priority_equals_upstreams():
    assert passtiming.tilelang.PassTimingTool.pass_instrument_priority == -100
    assert upstream.PassTimingTool.pass_instrument_priority == -100


def test_equal_priority_keeps_tool_order_and_default_priority_comes_later():
    # TileLang sorts by (priority, position): passtiming's and upstream's
    # tools share -100, so the one listed first is first; a tool at the
    # default priority 0 comes after both wherever it is listed.
    ours, theirs, python = passtiming.tilelang.PassTimingTool(), upstream.PassTimingTool(), _PythonInstrumentTool()
    first, second, third = _session_order([python, ours, theirs])
    assert _made_by(ours, first) and _made_by(theirs, second)
    assert not _made_by(ours, third) and not _made_by(theirs, third)

    ours, theirs = passtiming.tilelang.PassTimingTool(), upstream.PassTimingTool()
    first, second = _session_order([theirs, ours])
    assert _made_by(theirs, first) and _made_by(ours, second)


def test_real_compile_had_ours_first_in_its_pass_context(compiles):
    # The compiles listed passtiming's tool first: its instrument opened the
    # lowering's PassContext instrument list, then upstream's.
    for compiled in compiles.values():
        first, second = compiled.instrument_order[:2]
        assert first.same_as(compiled.ours.timings[0].instrument)
        assert second.same_as(compiled.theirs.timings[0].instrument)
        assert len(compiled.instrument_order) == 2 + len(THRESHOLDS_MS)
