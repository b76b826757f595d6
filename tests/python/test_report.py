"""report() and print_report(): the seed's text, byte for byte."""

import logging

import pytest

from conftest import module_of, run_pass
from passtiming import TileLangPassTimingInstrument

# docs/report-format.md, first example.
SPEC_EXAMPLE_WITH_CONTEXT = """\
================================================================================================
TileLang Pass Timing Report
Context: stage=jit-lower, kernel=matmul
================================================================================================
Total: 5.0000s (2 passes)
------------------------------------------------------------------------------------------------
  #  Pass Name                                    Inclusive       Self   Incl %  Self %
------------------------------------------------------------------------------------------------
  1  parent                                         5.0000s    3.0000s  100.0%   60.0%
  2    child(matmul)                                2.0000s    2.0000s   40.0%   40.0%
------------------------------------------------------------------------------------------------
Top 2 Slowest Passes by Inclusive Time:
   1. parent                                           5.0000s 100.0%
   2. child(matmul)                                    2.0000s  40.0%
================================================================================================"""

THRESHOLD_REPORT = """\
================================================================================================
TileLang Pass Timing Report
================================================================================================
Total: 0.0200s (2 passes)
(inclusive threshold: 10.0ms)
------------------------------------------------------------------------------------------------
  #  Pass Name                                    Inclusive       Self   Incl %  Self %
------------------------------------------------------------------------------------------------
  1  slow                                           0.0200s    0.0150s  100.0%   75.0%
------------------------------------------------------------------------------------------------
Top 1 Slowest Passes by Inclusive Time:
   1. slow                                             0.0200s 100.0%

(1 passes skipped - under 10.0ms inclusive threshold)
================================================================================================"""


def spec_example(clock, threshold_ms=0.0):
    clock.script_seconds([0, 0, 1, 3, 5, 5])
    timing = TileLangPassTimingInstrument(threshold_ms, clock=clock)
    inst = timing.instrument
    inst.enter_pass_ctx()
    run_pass(inst, "parent", body=lambda: run_pass(inst, "child", module_of("matmul")))
    inst.exit_pass_ctx()
    return timing


def test_report_matches_the_spec_example(clock):
    timing = spec_example(clock)
    assert timing.report("stage=jit-lower, kernel=matmul") == SPEC_EXAMPLE_WITH_CONTEXT
    assert timing.report(context="stage=jit-lower, kernel=matmul") == SPEC_EXAMPLE_WITH_CONTEXT


@pytest.mark.parametrize("context", [None, ""])
def test_no_or_empty_context_omits_the_context_line(clock, context):
    timing = spec_example(clock)
    expected = SPEC_EXAMPLE_WITH_CONTEXT.replace("Context: stage=jit-lower, kernel=matmul\n", "")
    assert timing.report(context) == expected
    assert timing.report() == expected


def test_threshold_hides_fast_passes_and_keeps_their_numbers(clock):
    clock.script_seconds([0, 0, 0.005, 0.010, 0.020, 0.020])
    timing = TileLangPassTimingInstrument(10.0, clock=clock)
    inst = timing.instrument
    inst.enter_pass_ctx()
    run_pass(inst, "slow", body=lambda: run_pass(inst, "fast"))
    inst.exit_pass_ctx()
    assert timing.report() == THRESHOLD_REPORT


def test_no_passes_recorded():
    timing = TileLangPassTimingInstrument()
    assert timing.report() == "[tilelang pass timing] No passes recorded."
    assert timing.report("stage=lower") == (
        "[tilelang pass timing] No passes recorded. Context: stage=lower"
    )


def test_print_report_logs_the_report_at_info(clock, timing_log):
    timing = spec_example(clock)
    timing.print_report("stage=jit-lower, kernel=matmul")
    (record,) = timing_log.records
    assert record.name == "tilelang.pass_timing"
    assert record.levelno == logging.INFO
    assert record.getMessage() == "\n" + SPEC_EXAMPLE_WITH_CONTEXT


def test_print_report_respects_the_python_logger_level(clock, caplog):
    caplog.set_level(logging.WARNING, logger="tilelang.pass_timing")
    spec_example(clock).print_report()
    assert caplog.records == []


def test_report_text_with_percent_signs_is_logged_verbatim(timing_log):
    timing = TileLangPassTimingInstrument()
    timing.print_report("100%s %d")
    (record,) = timing_log.records
    assert record.getMessage() == "\n[tilelang pass timing] No passes recorded. Context: 100%s %d"
