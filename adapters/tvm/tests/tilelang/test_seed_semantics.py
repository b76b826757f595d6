"""The seed's timing semantics, on real TVM: `passtiming.tvm`'s native
instrument in real `tvm.transform.PassContext`s running real passes
(`tirx.Simplify`, `Sequential`, Python module and prim_func passes), side by
side with upstream's instrument (tilelang.tools.pass_timing) in the same
PassContext wherever the two must agree.

How the odd cases are made through TVM itself:
- a raising pass: a Python module pass raises; TVM never calls the
  after-pass callbacks of it or of the passes enclosing it, and the
  PassContext's exit finds their frames still open;
- an unmatched after-pass callback: an outer Python pass runs an inner pass
  that raises and catches the error, so TVM calls "after" for the outer pass
  while the inner pass's frame is still open.
"""

from __future__ import annotations

import dataclasses
import gc
import time
import weakref

import pytest
import tvm
from tilelang.instrumentation import compile_pass_instrumentation, create_pass_instruments
from tilelang.tools import pass_timing as upstream

import kernels
import passtiming
import passtiming.tilelang
from passtiming.tvm import TileLangPassTimingInstrument
from timing_helpers import children_of, shape, timing_messages, to_ns, upstream_instrument_with

SLEEP_S = 0.05


@pytest.fixture(scope="module")
def mod():
    """A real TileLang kernel as an IRModule; its kernel label is "add"."""
    return tvm.IRModule({"main": kernels.elementwise_add()})


@tvm.transform.module_pass(opt_level=0, name="Custom")
def custom(m, ctx):
    time.sleep(0.002)
    return m


@tvm.transform.module_pass(opt_level=0, name="Quick")
def quick(m, ctx):
    return m


@tvm.tirx.transform.prim_func_pass(opt_level=0, name="PrimFuncPass")
def prim_func_noop(f, m, ctx):
    return f


@tvm.transform.module_pass(opt_level=0, name="Boom")
def boom(m, ctx):
    raise ValueError("boom: the pass failed")


@tvm.transform.module_pass(opt_level=0, name="Catcher")
def catcher(m, ctx):
    try:
        boom(m)
    except ValueError:
        pass
    return m


def both():
    """passtiming's instrument and upstream's, for one PassContext."""
    return TileLangPassTimingInstrument(), upstream.TileLangPassTimingInstrument()


def run(instruments, pass_, mod):
    with tvm.transform.PassContext(instruments=[t.instrument for t in instruments]):
        return pass_(mod)


def outer_sequential():
    return tvm.transform.Sequential([tvm.tirx.transform.Simplify(), custom, prim_func_noop], name="Outer")


def test_sequential_nests_its_passes(mod):
    ours, theirs = both()
    run([ours, theirs], outer_sequential(), mod)
    expected = [
        ("Outer", 0, "add", 0),
        ("tirx.Simplify", 1, "add", 1),
        ("Custom", 1, "add", 2),
        ("PrimFuncPass", 1, "add", 3),
    ]
    assert shape(ours.records) == shape(theirs.records) == expected


def test_sequential_self_time_is_inclusive_minus_children(mod):
    ours = TileLangPassTimingInstrument()
    run([ours], outer_sequential(), mod)
    outer = ours.records[0]
    children = children_of(ours.records, outer)
    assert [c.name for c in children] == ["tirx.Simplify", "Custom", "PrimFuncPass"]
    assert to_ns(outer.self_duration_s) == to_ns(outer.duration_s) - sum(to_ns(c.duration_s) for c in children)
    assert 0 < outer.self_duration_s < outer.duration_s
    for child in children:
        assert child.self_duration_s == child.duration_s > 0
    assert ours.total_duration_s == outer.duration_s
    assert ours.records[2].duration_s >= 0.002  # Custom sleeps


def test_raising_pass_propagates_unchanged(mod):
    failing = tvm.transform.Sequential(
        [custom, tvm.transform.Sequential([custom, boom], name="Inner")], name="Outer"
    )
    with pytest.raises(ValueError) as bare:
        failing(mod)  # TVM alone: what the error looks like without timing
    ours, theirs = both()
    with pytest.raises(ValueError) as timed:
        run([ours, theirs], failing, mod)
    assert type(timed.value) is type(bare.value) is ValueError
    assert timed.value.args == bare.value.args == ("boom: the pass failed",)


def test_raising_pass_discards_open_frames_and_keeps_completed_records(mod, pass_timing_log):
    failing = tvm.transform.Sequential(
        [custom, tvm.transform.Sequential([custom, boom], name="Inner")], name="Outer"
    )
    ours, theirs = both()
    with pytest.raises(ValueError, match="boom: the pass failed"):
        run([ours, theirs], failing, mod)
    warning = ("WARNING", "Discarding 3 incomplete pass timing frame(s): Outer, Inner, Boom")
    assert timing_messages(pass_timing_log) == [warning, warning]  # one per instrument
    assert shape(ours.records) == shape(theirs.records) == [("Custom", 1, "add", 1), ("Custom", 2, "add", 3)]
    assert ours.total_duration_s == 0.0  # no top-level pass completed
    assert ours.report("ctx") == upstream_report_of(ours, "ctx")


def upstream_report_of(ours, context):
    return upstream_instrument_with(ours.records, ours.threshold_ms).report(context)


def test_unmatched_after_pass_is_ignored_with_a_warning(mod, pass_timing_log):
    ours, theirs = both()
    run([ours, theirs], tvm.transform.Sequential([custom, catcher, custom], name="Outer"), mod)
    catcher_warning = ("WARNING", "Ignoring unmatched pass timing callback for Catcher (expected Boom)")
    outer_warning = ("WARNING", "Ignoring unmatched pass timing callback for Outer (expected <none>)")
    # Each callback is seen by passtiming's instrument, then upstream's.
    assert timing_messages(pass_timing_log) == [catcher_warning, catcher_warning, outer_warning, outer_warning]
    # The mismatch clears the stack: the last Custom is then top-level.
    expected = [("Custom", 1, "add", 1), ("Custom", 0, "add", 4)]
    assert shape(ours.records) == shape(theirs.records) == expected


def sleeper(phase):
    """A Python PassInstrument that sleeps in run_`phase`_pass."""

    @tvm.instrument.pass_instrument
    class Sleeper:
        def run_before_pass(self, mod, info):
            if phase == "before":
                time.sleep(SLEEP_S)

        def run_after_pass(self, mod, info):
            if phase == "after":
                time.sleep(SLEEP_S)

    return Sleeper()


def quick_duration(instruments, ours, mod):
    with tvm.transform.PassContext(instruments=instruments):
        quick(mod)
    [record] = ours.records
    assert record.name == "Quick"
    return record.duration_s


def test_later_instruments_after_pass_work_is_not_timed(mod):
    ours = TileLangPassTimingInstrument()
    assert quick_duration([ours.instrument, sleeper("after")], ours, mod) < SLEEP_S


def test_earlier_instruments_after_pass_work_is_timed(mod):
    ours = TileLangPassTimingInstrument()
    assert quick_duration([sleeper("after"), ours.instrument], ours, mod) >= SLEEP_S


def test_before_pass_work_is_timed_only_for_later_instruments(mod):
    # TVM calls every instrument's "before" in order, then the pass, then
    # every "after" in order: the timing starts at its own "before", so a
    # later instrument's "before" falls inside it, an earlier one's outside.
    ours = TileLangPassTimingInstrument()
    assert quick_duration([ours.instrument, sleeper("before")], ours, mod) >= SLEEP_S
    ours = TileLangPassTimingInstrument()
    assert quick_duration([sleeper("before"), ours.instrument], ours, mod) < SLEEP_S


def test_records_reflect_only_the_last_pass_context(mod):
    ours = TileLangPassTimingInstrument()
    run([ours], outer_sequential(), mod)
    assert len(ours.records) == 4
    run([ours], quick, mod)
    assert shape(ours.records) == [("Quick", 0, "add", 0)]
    with tvm.transform.PassContext(instruments=[ours.instrument]):
        pass
    assert ours.records == []
    assert ours.report() == "[tilelang pass timing] No passes recorded."
    assert ours.report("stage=x") == "[tilelang pass timing] No passes recorded. Context: stage=x"


def test_tool_has_one_section_per_pass_context(mod):
    ours, theirs = passtiming.tilelang.PassTimingTool(), upstream.PassTimingTool()
    with compile_pass_instrumentation(name="two-contexts", tools=[ours, theirs], include_default_tools=False):
        with tvm.transform.PassContext(instruments=create_pass_instruments(context="stage=first, kernel=add")):
            outer_sequential()(mod)
        with tvm.transform.PassContext(instruments=create_pass_instruments()):
            quick(mod)
    assert ours.contexts == theirs.contexts == ("stage=first, kernel=add", None)
    first, second = ours.timings
    assert first is not second and first.instrument is not second.instrument
    assert [r.name for r in first.records] == ["Outer", "tirx.Simplify", "Custom", "PrimFuncPass"]
    assert shape(second.records) == [("Quick", 0, "add", 0)]
    assert ours.records == first.records + second.records
    assert shape(ours.records) == shape(theirs.records)
    report = ours.report()
    assert report == first.report("stage=first, kernel=add") + "\n\n" + second.report(None)
    assert report.count("TileLang Pass Timing Report") == 2
    assert report.count("Context: ") == 1


def test_instrument_is_one_native_tvm_pass_instrument(mod):
    ours, theirs = both()
    assert ours.instrument is ours.instrument
    # TVM's own object type: the one upstream's instrument has. (This TVM
    # registers tvm.ir.instrument.PassTimingInstrument under the same type
    # key as PassInstrument, so both come back as that class, and the
    # isinstance answer against PassInstrument is the same for both.)
    assert type(ours.instrument) is type(theirs.instrument)
    assert type(ours.instrument).__tvm_ffi_type_info__.type_key == "instrument.PassInstrument"
    assert isinstance(ours.instrument, tvm.ir.instrument.PassInstrument) == isinstance(
        theirs.instrument, tvm.ir.instrument.PassInstrument
    )
    assert ours.instrument.name == theirs.instrument.name == "TileLangPassTimingInstrument"
    context = tvm.transform.PassContext(instruments=[ours.instrument])
    [held] = context.instruments
    assert held.same_as(ours.instrument)


def test_pass_context_does_not_keep_the_wrapper_alive(mod):
    ours = TileLangPassTimingInstrument()
    context = tvm.transform.PassContext(instruments=[ours.instrument])
    wrapper = weakref.ref(ours)
    del ours
    gc.collect()
    assert wrapper() is None
    with context:  # the native callbacks still run, on state they own
        outer_sequential()(mod)


def test_records_are_dataclasses(mod):
    ours = TileLangPassTimingInstrument()
    run([ours], quick, mod)
    [record] = ours.records
    assert isinstance(record, passtiming.PassTimingRecord)
    fields = dataclasses.asdict(record)
    assert list(fields) == ["name", "duration_s", "depth", "self_duration_s", "sequence", "kernel"]
    assert fields["name"] == "Quick" and fields["kernel"] == "add"
    assert fields["duration_s"] == record.duration_s == record.self_duration_s
    renamed = dataclasses.replace(record, name="Renamed", depth=3)
    assert type(renamed) is passtiming.PassTimingRecord
    assert (renamed.name, renamed.depth, renamed.duration_s) == ("Renamed", 3, record.duration_s)
    assert record.name == "Quick"  # replace made a copy
    assert upstream.PassTimingRecord(**fields) == upstream.PassTimingRecord(**dataclasses.asdict(record))
