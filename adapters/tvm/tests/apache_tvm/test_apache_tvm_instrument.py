"""The native instrument in Apache TVM's own PassContext, on TVM's own passes:
it records exactly the passes TVM runs, in order, with their nesting, exact
self times and the seed's kernel labels."""

from __future__ import annotations

import gc
import time

import pytest
import tvm
from tvm import relax, tirx
from tvm.ir import _ffi_instrument_api

from passtiming import PassTimingRecord
from passtiming.tvm import TileLangPassTimingInstrument
from seed_reference import seed_kernel_label
from tvm_support import (
    RelaxModule,
    ir_module,
    prim_func,
    relax_pipeline,
    tir_module,
    tir_sequential,
)


def ns(seconds: float) -> int:
    """A record's duration in the core's unit: durations are ns / 1e9."""
    return round(seconds * 1e9)


def observed(timing):
    """(name, depth, kernel) of each record, in the order the passes began."""
    return [(r.name, r.depth, r.kernel) for r in timing.records]


def assert_self_times_exact(records):
    """Each record's self time is its inclusive time less its direct
    children's inclusive times, to the nanosecond."""
    for index, parent in enumerate(records):
        children_ns = 0
        for child in records[index + 1 :]:
            if child.depth <= parent.depth:
                break
            if child.depth == parent.depth + 1:
                children_ns += ns(child.duration_s)
        assert ns(parent.self_duration_s) == ns(parent.duration_s) - children_ns, parent
        assert 0 <= ns(parent.self_duration_s) <= ns(parent.duration_s)


def run(instruments, passes, mod, **context):
    with tvm.transform.PassContext(instruments=instruments, **context):
        for p in passes:
            mod = p(mod)
    return mod


# --- the object TVM sees -------------------------------------------------------


def test_instrument_is_tvms_own_pass_instrument_object():
    timing = TileLangPassTimingInstrument()
    instrument = timing.instrument
    assert timing.instrument is instrument  # the same object each time
    assert isinstance(instrument, tvm.runtime.Object)
    assert instrument.__tvm_ffi_type_info__.type_key == "instrument.PassInstrument"
    assert instrument.name == "TileLangPassTimingInstrument"
    # The Python class is whatever TVM gives an object made by its own
    # `instrument.PassInstrument` constructor, which is how the seed makes its
    # instrument too. Apache TVM 0.27 registers both `PassInstrument` and
    # `PassTimingInstrument` for that type key, the latter last, so such an
    # object comes back as a `PassTimingInstrument`, which does not derive
    # from `tvm.ir.instrument.PassInstrument`: the isinstance check gives the
    # same answer (False) for TVM's own object as for ours.
    tvms_own = _ffi_instrument_api.PassInstrument("seed", None, None, None, None, None)
    assert type(instrument) is type(tvms_own)
    assert isinstance(instrument, tvm.ir.instrument.PassInstrument) == isinstance(
        tvms_own, tvm.ir.instrument.PassInstrument
    )


def test_pass_context_holds_the_instrument():
    timing = TileLangPassTimingInstrument()
    with tvm.transform.PassContext(instruments=[timing.instrument]) as context:
        assert len(context.instruments) == 1
        assert context.instruments[0].same_as(timing.instrument)
        assert tvm.transform.PassContext.current().instruments[0].same_as(timing.instrument)


# --- what is recorded ---------------------------------------------------------


@pytest.mark.parametrize("ours_first", [True, False], ids=["ours-first", "recorder-first"])
def test_tir_passes_and_sequential_match_what_tvm_runs(recorder, ours_first):
    timing = TileLangPassTimingInstrument()
    instruments = [timing.instrument, recorder] if ours_first else [recorder, timing.instrument]
    mod = tir_module()
    out = run(
        instruments,
        [tirx.transform.StmtSimplify(), tir_sequential(), tirx.transform.RemoveNoOp()],
        mod,
    )
    assert observed(timing) == recorder.passes
    assert observed(timing) == [
        ("tirx.StmtSimplify", 0, "add_one"),
        ("TirSequential", 0, "add_one"),
        ("tirx.StmtSimplify", 1, "add_one"),
        ("tirx.RemoveNoOp", 1, "add_one"),
        ("tirx.ConvertSSA", 1, "add_one"),
        ("tirx.RemoveNoOp", 0, "add_one"),
    ]
    assert [r.sequence for r in timing.records] == list(range(6))
    assert_self_times_exact(timing.records)
    assert timing.total_duration_s == sum(r.duration_s for r in timing.records if r.depth == 0)
    # The passes really ran: the always-true branch is gone.
    assert "if" not in out["main"].script() and "if" in mod["main"].script()


def test_relax_pipeline_with_nested_passes_matches_what_tvm_runs(recorder):
    timing = TileLangPassTimingInstrument()
    out = run([timing.instrument, recorder], [relax_pipeline()], RelaxModule)
    assert observed(timing) == recorder.passes
    names_depths = [(name, depth) for name, depth, _ in observed(timing)]
    assert names_depths[:6] == [
        ("RelaxPipeline", 0),
        ("LegalizeOps", 1),
        ("DeadCodeElimination", 1),
        ("FoldConstant", 1),
        ("FuseOps", 1),
        ("FuseTIR", 1),
    ]
    # FuseTIR runs passes of its own, nested deeper.
    assert max(depth for _, depth in names_depths) >= 3
    assert all(depth >= 2 for _, depth in names_depths[6:])
    # LegalizeOps adds PrimFuncs: the label follows the module each pass is given.
    kernels = [kernel for _, _, kernel in observed(timing)]
    assert kernels[:2] == ["main", "main"]
    assert kernels[2] == seed_kernel_label(relax.transform.LegalizeOps()(RelaxModule))
    assert kernels[2].startswith("add +")
    assert_self_times_exact(timing.records)
    # Sequential's children: each parent's self time excludes them exactly.
    top = timing.records[0]
    children = [r for r in timing.records if r.depth == 1]
    assert ns(top.self_duration_s) == ns(top.duration_s) - sum(ns(c.duration_s) for c in children)
    assert "R.call_tir" in out.script()


def test_passes_tvm_does_not_run_are_not_recorded(recorder):
    """A pass above the context's opt_level, and a disabled pass, never reach
    an instrument's callbacks."""

    @tvm.transform.module_pass(opt_level=4, name="TooExpensive")
    def too_expensive(mod, _ctx):
        raise AssertionError("TVM ran a pass above the context's opt_level")

    timing = TileLangPassTimingInstrument()
    seq = tvm.transform.Sequential(
        [tirx.transform.StmtSimplify(), too_expensive, tirx.transform.RemoveNoOp()], name="Seq"
    )
    run(
        [timing.instrument, recorder],
        [seq],
        tir_module(),
        opt_level=2,
        disabled_pass=["tirx.RemoveNoOp"],
    )
    assert observed(timing) == recorder.passes
    assert [(r.name, r.depth) for r in timing.records] == [("Seq", 0), ("tirx.StmtSimplify", 1)]


def test_each_pass_context_starts_afresh(recorder):
    timing = TileLangPassTimingInstrument()
    run([timing.instrument], [tir_sequential()], tir_module())
    assert len(timing.records) == 4
    run([timing.instrument, recorder], [tirx.transform.RemoveNoOp()], tir_module())
    assert observed(timing) == recorder.passes == [("tirx.RemoveNoOp", 0, "add_one")]
    assert timing.records[0].sequence == 0


def test_python_module_pass_with_unusual_name_and_real_duration(recorder):
    name = "Pässe 100% {0} \u6f22"

    @tvm.transform.module_pass(opt_level=0, name=name)
    def slow(mod, _ctx):
        time.sleep(0.02)
        return mod

    timing = TileLangPassTimingInstrument()
    before = time.monotonic()
    run([timing.instrument, recorder], [slow], tir_module())
    elapsed = time.monotonic() - before
    (record,) = timing.records
    assert record.name == name and record.kernel == "add_one"
    assert observed(timing) == recorder.passes
    assert 0.02 <= record.duration_s <= elapsed
    assert record.self_duration_s == record.duration_s
    assert isinstance(record, PassTimingRecord)


def test_pass_names_of_every_length_nested_and_repeated(recorder):
    """The instrument remembers a pass's name by its PassInfo: short and long
    names, a pass run twice, nested Sequentials, and the same pipeline in a
    second context all read as TVM runs them."""
    names = ["a", "x" * 94, "y" * 95, "z" * 400, "Pässe \u6f22"]

    def named(name):
        @tvm.transform.module_pass(opt_level=0, name=name)
        def identity(mod, _ctx):
            return mod

        return identity

    passes = [named(n) for n in names]
    inner = tvm.transform.Sequential(passes[1:3], name="Inner")
    pipeline = [passes[0], inner, passes[3], passes[0], passes[4], inner]
    timing = TileLangPassTimingInstrument()
    for _ in range(2):
        run([timing.instrument, recorder], [tvm.transform.Sequential(pipeline, name="Outer")],
            tir_module())
        assert observed(timing) == recorder.passes
        assert [r.name for r in timing.records] == [
            "Outer", "a", "Inner", names[1], names[2], names[3], "a", names[4], "Inner",
            names[1], names[2]]
        recorder.passes.clear()


def test_labels_follow_the_module_as_passes_change_it(recorder):
    """The instrument remembers a label by the function's attribute
    dictionary: passes that rename the function, keep its attributes while
    rewriting its body, drop its symbol, add a function or remove one, each
    in one context, give the labels the seed computes before each pass."""

    def module_pass(name, change):
        @tvm.transform.module_pass(opt_level=0, name=name)
        def rewrite(mod, _ctx):
            return change(mod)

        return rewrite

    def only(mod):
        ((gv, func),) = mod.functions.items()
        return gv, func

    def rename(mod):
        gv, func = only(mod)
        return ir_module((gv.name_hint, func.with_attr("global_symbol", "renamed")))

    def new_body(mod):
        gv, func = only(mod)
        body = tirx.PrimFunc(func.params, func.body, attrs=func.attrs)  # the same DictAttrs
        return ir_module((gv.name_hint, body))

    def drop_symbol(mod):
        gv, func = only(mod)
        return ir_module(("hinted", func.without_attr("global_symbol")))

    def add_one_more(mod):
        ((gv, func),) = mod.functions.items()
        return ir_module((gv.name_hint, func), ("extra", prim_func("extra")))

    def keep_first(mod):
        items = sorted(mod.functions.items(), key=lambda kv: kv[0].name_hint)
        gv, func = items[-1]
        return ir_module((gv.name_hint, func))

    passes = [
        module_pass("Rename", rename),
        module_pass("NewBody", new_body),
        module_pass("Keep", lambda mod: mod),
        module_pass("DropSymbol", drop_symbol),
        module_pass("AddOne", add_one_more),
        module_pass("KeepOne", keep_first),
        module_pass("Last", lambda mod: mod),
    ]
    timing = TileLangPassTimingInstrument()
    run([timing.instrument, recorder], passes, tir_module())
    assert observed(timing) == recorder.passes
    assert [r.kernel for r in timing.records] == [
        "add_one", "renamed", "renamed", "renamed", "hinted", "hinted +1 more", "hinted"]


def test_many_functions_and_many_passes(recorder):
    """A module of 50 PrimFuncs through 100 real passes: labels and order hold."""
    mod = ir_module(*[(f"gv{i}", prim_func(f"kernel_{i:02d}")) for i in range(50)])
    passes = [tirx.transform.RemoveNoOp() for _ in range(100)]
    timing = TileLangPassTimingInstrument()
    run([timing.instrument, recorder], [tvm.transform.Sequential(passes, name="Many")], mod)
    assert observed(timing) == recorder.passes
    assert len(timing.records) == 101
    assert {r.kernel for r in timing.records} == {"kernel_00 +49 more"}
    assert_self_times_exact(timing.records)


def test_instrument_outlives_its_wrapper():
    """The callbacks hold the timing state, not the Python wrapper: a
    PassContext may keep the instrument after the wrapper is gone."""
    instrument = TileLangPassTimingInstrument().instrument
    gc.collect()
    run([instrument], [tir_sequential()], tir_module())
    run([instrument], [relax_pipeline()], RelaxModule)


def test_two_instruments_in_one_context_record_the_same_passes(recorder):
    first, second = TileLangPassTimingInstrument(), TileLangPassTimingInstrument()
    run([first.instrument, recorder, second.instrument], [tir_sequential()], tir_module())
    assert observed(first) == observed(second) == recorder.passes
    assert_self_times_exact(first.records)
    assert_self_times_exact(second.records)


def test_recorder_sees_every_callback_in_pairs(recorder):
    """The recorder itself: TVM pairs each before with an after, inside one
    enter/exit (what the comparisons above rely on)."""
    run([TileLangPassTimingInstrument().instrument, recorder], [tir_sequential()], tir_module())
    assert recorder.events[0] == ("enter",) and recorder.events[-1] == ("exit",)
    assert sum(1 for e in recorder.events if e[0] == "before") == sum(
        1 for e in recorder.events if e[0] == "after"
    )
