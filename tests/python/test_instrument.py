"""The instrument: TVM's Python protocol over the core's state machine, with
exact durations from a scripted clock."""

import gc
import threading
import weakref

import pytest

import passtiming
from conftest import Function, GlobalVar, Module, PassInfo, module_of, run_pass
from passtiming import PassTimingRecord, TileLangPassTimingInstrument


def nested_run(clock, context_label=None):
    """parent 0..5 s containing child 1..3 s on module `matmul`."""
    clock.script_seconds([0, 0, 1, 3, 5, 5])  # enter, before, before, after, after, exit
    timing = TileLangPassTimingInstrument(clock=clock)
    inst = timing.instrument
    inst.enter_pass_ctx()
    run_pass(inst, "parent", body=lambda: run_pass(inst, "child", module_of("matmul")))
    inst.exit_pass_ctx()
    return timing


def test_nested_passes_give_inclusive_and_self_time(clock):
    timing = nested_run(clock)
    assert timing.records == [
        PassTimingRecord("parent", 5.0, 0, 3.0, 0, ""),
        PassTimingRecord("child", 2.0, 1, 2.0, 1, "matmul"),
    ]
    assert timing.total_duration_s == 5.0
    assert clock.reads == 6


def test_records_are_sorted_by_sequence_not_completion(clock):
    timing = nested_run(clock)
    assert [r.sequence for r in timing.records] == [0, 1]


def test_total_sums_only_top_level_passes(clock):
    clock.script_seconds([0, 0, 0.5, 0.75, 1, 2, 2.25, 3])
    timing = TileLangPassTimingInstrument(clock=clock)
    inst = timing.instrument
    inst.enter_pass_ctx()
    run_pass(inst, "a", body=lambda: run_pass(inst, "a.inner"))
    run_pass(inst, "b")
    inst.exit_pass_ctx()
    assert [(r.name, r.duration_s, r.self_duration_s) for r in timing.records] == [
        ("a", 1.0, 0.75),
        ("a.inner", 0.25, 0.25),
        ("b", 0.25, 0.25),
    ]
    assert timing.total_duration_s == 1.25


def test_entering_a_context_clears_the_previous_one_and_exit_keeps_records(clock):
    timing = nested_run(clock)
    assert len(timing.records) == 2  # kept after exit_pass_ctx
    clock.script_seconds([10, 10, 10.5, 11])
    inst = timing.instrument
    inst.enter_pass_ctx()
    run_pass(inst, "only")
    inst.exit_pass_ctx()
    assert timing.records == [PassTimingRecord("only", 0.5, 0, 0.5, 0, "")]


def test_unmatched_after_is_ignored_with_a_warning(clock, timing_log):
    timing = TileLangPassTimingInstrument(clock=clock)
    inst = timing.instrument
    inst.enter_pass_ctx()
    inst.run_before_pass(None, PassInfo("A"))
    inst.run_after_pass(None, PassInfo("B"))
    inst.run_after_pass(None, PassInfo("A"))
    inst.exit_pass_ctx()
    assert timing.records == []
    assert [(r.levelname, r.name, r.getMessage()) for r in timing_log.records] == [
        ("WARNING", "tilelang.pass_timing", "Ignoring unmatched pass timing callback for B (expected A)"),
        ("WARNING", "tilelang.pass_timing", "Ignoring unmatched pass timing callback for A (expected <none>)"),
    ]


def test_incomplete_frames_are_discarded_on_exit_with_a_warning(clock, timing_log):
    timing = TileLangPassTimingInstrument(clock=clock)
    inst = timing.instrument
    inst.enter_pass_ctx()
    run_pass(inst, "done")
    inst.run_before_pass(None, PassInfo("outer"))
    inst.run_before_pass(None, PassInfo("inner"))
    inst.exit_pass_ctx()
    assert [r.name for r in timing.records] == ["done"]
    assert [r.getMessage() for r in timing_log.records] == [
        "Discarding 2 incomplete pass timing frame(s): outer, inner"
    ]


def test_warnings_from_another_thread_reach_python_logging(clock, timing_log):
    inst = TileLangPassTimingInstrument(clock=clock).instrument
    worker = threading.Thread(target=inst.run_after_pass, args=(None, PassInfo("stray")))
    worker.start()
    worker.join()
    assert [r.getMessage() for r in timing_log.records] == [
        "Ignoring unmatched pass timing callback for stray (expected <none>)"
    ]


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_failing_log_filter_neither_raises_nor_loses_the_message(clock, capfd):
    def explode(record):
        raise RuntimeError("broken filter")

    logger = passtiming.logger
    logger.addFilter(explode)
    try:
        TileLangPassTimingInstrument(clock=clock).instrument.run_after_pass(None, PassInfo("x"))
    finally:
        logger.removeFilter(explode)
    assert (
        "WARNING:tilelang.pass_timing:Ignoring unmatched pass timing callback for x (expected <none>)"
        in capfd.readouterr().err
    )


def label_of(mod):
    """The kernel label the instrument attaches to a pass run on `mod`."""
    timing = TileLangPassTimingInstrument()
    inst = timing.instrument
    inst.enter_pass_ctx()
    run_pass(inst, "p", mod)
    (record,) = timing.records
    return record.kernel


class MapLike:
    """A mapping that is not a dict (TVM's Map): only items() and len()."""

    def __init__(self, pairs):
        self._pairs = list(pairs)

    def __len__(self):
        return len(self._pairs)

    def items(self):
        return iter(self._pairs)


class AttrsWithGet:
    """TVM's DictAttrs: a get() method."""

    def __init__(self, values):
        self._values = values

    def get(self, key, default=None):
        return self._values.get(key, default)


class AttrsWithGetItem:
    """Attributes that only support subscription."""

    def __init__(self, values):
        self._values = values

    def __getitem__(self, key):
        return self._values[key]


class Symbol:
    def __str__(self):
        return "from_str"


class Exploding:
    def __getattr__(self, name):
        raise RuntimeError("boom")


@pytest.mark.parametrize(
    "mod, label",
    [
        (None, ""),
        (object(), ""),
        (Module({}), ""),
        (Module(None), ""),
        (module_of("matmul_kernel"), "matmul_kernel"),
        (module_of("a", "b", "c"), "a +2 more"),
        (module_of("a", "b", "a"), "a +1 more"),
        (module_of("same", "same"), "same"),
        (Module({GlobalVar("main"): Function(attrs=None)}), "main"),
        (Module({GlobalVar("main"): Function(attrs={"other": 1})}), "main"),
        (Module({"no_hint": Function(attrs=None)}), ""),
        (Module({GlobalVar("gv"): Function(attrs=AttrsWithGet({"global_symbol": "k"}))}), "k"),
        (Module({GlobalVar("gv"): Function(attrs=AttrsWithGetItem({"global_symbol": "k"}))}), "k"),
        (Module({GlobalVar("gv"): Function(attrs=AttrsWithGetItem({}))}), "gv"),
        (Module(MapLike([(GlobalVar("x"), Function("k1")), (GlobalVar("y"), Function("k2"))])), "k1 +1 more"),
        (Module({GlobalVar("gv"): Function(Symbol())}), "from_str"),
        (Module({GlobalVar("gv"): Function("m\u00e4t\u00b5l")}), "m\u00e4t\u00b5l"),
        (Module({GlobalVar("gv"): Exploding()}), ""),
        (Module({GlobalVar("gv"): Function(attrs=Exploding())}), ""),
        (Module(MapLike([("not a pair",)])), ""),
    ],
)
def test_kernel_label_follows_the_seed(mod, label):
    assert label_of(mod) == label


def test_kernel_label_of_a_module_whose_functions_raise_is_empty():
    class Broken:
        @property
        def functions(self):
            raise ValueError("no functions today")

    assert label_of(Broken()) == ""


def test_pass_names_may_be_str_subclasses_or_other_objects():
    class TvmString(str):
        pass

    class Named:
        def __str__(self):
            return "named"

    timing = TileLangPassTimingInstrument()
    inst = timing.instrument
    inst.enter_pass_ctx()
    run_pass(inst, TvmString("sub"))
    run_pass(inst, Named())
    run_pass(inst, "lone\udcff")
    assert [r.name for r in timing.records] == ["sub", "named", "lone\\udcff"]


def test_info_without_a_name_raises_attribute_error():
    inst = TileLangPassTimingInstrument().instrument
    with pytest.raises(AttributeError):
        inst.run_before_pass(None, object())


def test_callbacks_accept_keywords_and_reject_wrong_arguments(clock):
    clock.script_seconds([0, 0, 2])
    timing = TileLangPassTimingInstrument(clock=clock)
    inst = timing.instrument
    inst.enter_pass_ctx()
    inst.run_before_pass(mod=None, info=PassInfo("kw"))
    inst.run_after_pass(None, info=PassInfo("kw"))
    assert timing.records == [PassTimingRecord("kw", 2.0, 0, 2.0, 0, "")]
    with pytest.raises(TypeError):
        inst.run_before_pass(None)
    with pytest.raises(TypeError):
        inst.run_after_pass(None, PassInfo("x"), 3)
    with pytest.raises(TypeError):
        inst.run_before_pass(None, PassInfo("x"), mod=None)
    with pytest.raises(TypeError):
        inst.run_before_pass(module=None, info=PassInfo("x"))


def test_instrument_is_one_object_with_tvm_protocol():
    timing = TileLangPassTimingInstrument()
    inst = timing.instrument
    assert inst is timing.instrument
    assert inst.name == "TileLangPassTimingInstrument"
    for method in ("enter_pass_ctx", "exit_pass_ctx", "run_before_pass", "run_after_pass"):
        assert callable(getattr(inst, method))
    with pytest.raises(TypeError):
        type(inst)()


def test_instrument_does_not_keep_the_wrapper_alive(clock):
    clock.script_seconds([0, 0, 1, 1])
    timing = TileLangPassTimingInstrument(clock=clock)
    inst = timing.instrument
    wrapper = weakref.ref(timing)
    del timing
    gc.collect()
    assert wrapper() is None
    # The instrument still works on its own, as a PassContext would use it.
    inst.enter_pass_ctx()
    run_pass(inst, "after_wrapper_died")
    inst.exit_pass_ctx()


@pytest.mark.parametrize("threshold", [-1.0, float("nan"), float("inf"), 3])
def test_any_float_threshold_is_taken_as_the_seed_takes_it(threshold, clock):
    timing = TileLangPassTimingInstrument(threshold, clock=clock)
    clock.script_seconds([0, 0, 0.002, 0.002])
    inst = timing.instrument
    inst.enter_pass_ctx()
    run_pass(inst, "p")
    inst.exit_pass_ctx()
    text = timing.report()
    shown = "  1  p " in text
    if threshold == float("inf") or threshold == 3:
        assert not shown and f"(1 passes skipped - under {float(threshold):.1f}ms" in text
    else:
        # Negative and NaN hide nothing; NaN also ranks nothing, as in the seed.
        assert shown and "skipped" not in text
        assert ("Top 1 Slowest" in text) == (threshold == -1.0)


@pytest.mark.parametrize("threshold", ["1", "0.5", True, False, None, b"1"])
def test_a_threshold_that_is_not_a_number_is_refused_naming_the_class(threshold):
    # The seed's threshold_ms is a float; float() would take these, silently.
    message = r"^TileLangPassTimingInstrument: threshold_ms must be a float, not "
    with pytest.raises(TypeError, match=message):
        TileLangPassTimingInstrument(threshold)
    if threshold is not None:  # None: no timing at all, as the seed's
        with pytest.raises(TypeError, match=message):
            passtiming.build_pass_instruments([], threshold)


def test_threshold_and_repr():
    timing = TileLangPassTimingInstrument(threshold_ms=2.5)
    assert timing.threshold_ms == 2.5
    assert repr(timing) == "<TileLangPassTimingInstrument threshold_ms=2.5 records=0>"
    assert TileLangPassTimingInstrument().threshold_ms == 0.0


def test_messages_logged_by_a_cpp_thread_without_the_gil_reach_python(timing_log):
    passtiming._passtiming._log_from_native_thread("from a worker")
    (record,) = timing_log.records
    assert (record.levelname, record.getMessage()) == ("WARNING", "from a worker")
    assert record.thread != threading.get_ident()
