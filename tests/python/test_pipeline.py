"""build_pass_instruments and report_pass_timing_on_exit around a pass
pipeline shaped like TVM's PassContext."""

import sys

import pytest

import passtiming
from conftest import PassInfo, module_of
from passtiming import (
    PassTimingRecord,
    TileLangPassTimingInstrument,
    build_pass_instruments,
    report_pass_timing_on_exit,
)


class PassContext:
    """What TVM's PassContext does with Python instruments, in order."""

    def __init__(self, instruments):
        self.instruments = list(instruments)

    def __enter__(self):
        for inst in self.instruments:
            inst.enter_pass_ctx()
        return self

    def __exit__(self, *exc):
        for inst in self.instruments:
            inst.exit_pass_ctx()
        return False

    def run(self, name, mod, body=None):
        info = PassInfo(name)
        for inst in self.instruments:
            inst.run_before_pass(mod, info)
        if body:
            body()
        for inst in self.instruments:
            inst.run_after_pass(mod, info)


class Recorder:
    """A base instrument that logs its calls into a shared journal."""

    def __init__(self, journal):
        self.journal = journal

    def enter_pass_ctx(self):
        self.journal.append("enter")

    def exit_pass_ctx(self):
        self.journal.append("exit")

    def run_before_pass(self, mod, info):
        self.journal.append(f"before {info.name}")

    def run_after_pass(self, mod, info):
        self.journal.append(f"after {info.name}")


def test_no_threshold_means_no_timing_and_a_new_list():
    base = [Recorder([])]
    instruments, timing = build_pass_instruments(base, None)
    assert timing is None
    assert instruments == base
    assert instruments is not base


def test_threshold_puts_timing_first_and_leaves_the_input_alone():
    base = [Recorder([]), Recorder([])]
    instruments, timing = build_pass_instruments(tuple(base), 5.0)
    assert isinstance(timing, TileLangPassTimingInstrument)
    assert timing.threshold_ms == 5.0
    assert instruments == [timing.instrument, *base]
    assert len(base) == 2


def test_a_negative_threshold_is_taken_as_the_seed_takes_it():
    instruments, timing = build_pass_instruments([], -1.0)
    assert timing.threshold_ms == -1.0
    assert instruments == [timing.instrument]


def test_timing_excludes_later_instruments_after_pass_work():
    clock = passtiming.ManualClock()
    clock.script_seconds([0, 1, 4, 9])  # enter, before, after, exit
    journal = []
    instruments, timing = build_pass_instruments([Recorder(journal)], 0.0, clock=clock)
    with PassContext(instruments) as ctx:
        ctx.run("tl.LowerTileOp", module_of("gemm"))
    assert timing.records == [PassTimingRecord("tl.LowerTileOp", 3.0, 0, 3.0, 0, "gemm")]
    assert journal == ["enter", "before tl.LowerTileOp", "after tl.LowerTileOp", "exit"]
    assert clock.reads == 4


def test_report_on_exit_reports_after_a_normal_block(timing_log):
    instruments, timing = build_pass_instruments([], 0.0)
    with report_pass_timing_on_exit(timing, "stage=lower") as entered:
        with PassContext(instruments) as ctx:
            ctx.run("p", None)
    assert entered is None
    (record,) = timing_log.records
    assert record.getMessage() == "\n" + timing.report("stage=lower")
    assert "Context: stage=lower" in record.getMessage()


def test_report_on_exit_reports_and_reraises_the_same_exception(timing_log):
    instruments, timing = build_pass_instruments([], 0.0)
    failure = RuntimeError("pass crashed")
    with pytest.raises(RuntimeError) as caught:
        with report_pass_timing_on_exit(timing, "stage=lower"):
            with PassContext(instruments) as ctx:
                ctx.run("ok", None)
                raise failure
    assert caught.value is failure
    # The traceback still ends where the block raised.
    assert caught.traceback[-1].frame.code.name == "test_report_on_exit_reports_and_reraises_the_same_exception"
    (record,) = timing_log.records
    assert "  1  ok " in record.getMessage()


def test_report_on_exit_with_no_timing_does_nothing(timing_log):
    with report_pass_timing_on_exit(None, "ctx"):
        pass
    with pytest.raises(KeyError):
        with report_pass_timing_on_exit(None, "ctx"):
            raise KeyError("k")
    assert timing_log.records == []


class FailingTiming:
    def print_report(self, context=None):
        raise ValueError("report broke")


def test_a_failing_report_propagates_as_the_seeds_finally_does(timing_log):
    # The seed reports in a `finally:` block: an error raised by the report
    # propagates, with the block's own exception chained as its __context__.
    failure = KeyError("the compile's own error")
    with pytest.raises(ValueError, match="report broke") as caught:
        with report_pass_timing_on_exit(FailingTiming(), "ctx"):
            raise failure
    assert caught.value.__context__ is failure
    assert timing_log.records == []


def test_a_failing_report_fails_a_successful_block_as_in_the_seed(timing_log):
    with pytest.raises(ValueError, match="report broke"):
        with report_pass_timing_on_exit(FailingTiming(), "ctx"):
            pass


def test_module_exports_the_seed_api():
    for name in ("PassTimingRecord", "TileLangPassTimingInstrument", "build_pass_instruments",
                 "report_pass_timing_on_exit", "logger"):
        assert name in passtiming.__all__
        assert hasattr(passtiming, name)
    assert passtiming.logger.name == "tilelang.pass_timing"
    assert sys.modules["passtiming"] is passtiming
