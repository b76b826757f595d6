"""The report of a real Apache TVM run, line by line. (Its bytes are held
against upstream TileLang's own report in adapters/tvm/tests/tilelang, where
upstream is installed.)"""

from __future__ import annotations

import logging
import time

import pytest
import tvm
from tvm import tirx

from passtiming.tvm import TileLangPassTimingInstrument
from tvm_support import RelaxModule, relax_pipeline, tir_module, tir_sequential


def sleeping_pass(seconds, name):
    @tvm.transform.module_pass(opt_level=0, name=name)
    def sleeper(mod, _ctx):
        time.sleep(seconds)
        return mod

    return sleeper


def timed_run(threshold_ms=0.0):
    """A Sequential of real passes around a 50 ms one, then a Relax pipeline."""
    timing = TileLangPassTimingInstrument(threshold_ms=threshold_ms)
    with tvm.transform.PassContext(instruments=[timing.instrument]):
        seq = tvm.transform.Sequential(
            [
                tirx.transform.StmtSimplify(),
                sleeping_pass(0.05, "Sleep50ms"),
                tirx.transform.RemoveNoOp(),
            ],
            name="Outer",
        )
        seq(tir_module())
        relax_pipeline()(RelaxModule)
    return timing


def test_report_structure():
    timing = timed_run()
    records = timing.records
    lines = timing.report("stage=lower").split("\n")
    width = len(lines[0])
    name_width = width - 53
    assert name_width >= 43
    assert lines[0] == "=" * width
    assert lines[1] == "TileLang Pass Timing Report"
    assert lines[2] == "Context: stage=lower"
    assert lines[3] == "=" * width
    assert lines[4] == f"Total: {timing.total_duration_s:.4f}s ({len(records)} passes)"
    assert lines[5] == "-" * width
    assert lines[6] == f"  #  {'Pass Name':<{name_width}}  Inclusive       Self   Incl %  Self %"
    assert lines[7] == "-" * width
    rows = lines[8 : 8 + len(records)]
    for index, (row, record) in enumerate(zip(rows, records), 1):
        shown = f"{record.name}({record.kernel})" if record.kernel else record.name
        name = "  " * record.depth + shown
        assert row.startswith(f"{index:>3}  {name:<{name_width}} "), row
        assert row.endswith("%")
    assert lines[8 + len(records)] == "-" * width
    top = min(10, len(records))
    assert lines[9 + len(records)] == f"Top {top} Slowest Passes by Inclusive Time:"
    ranked = lines[10 + len(records) : 10 + len(records) + top]
    assert ranked[0].startswith("   1. Outer(add_one) ")  # the 50 ms pass's parent
    assert ranked[1].startswith("   2. Sleep50ms(add_one) ")
    assert lines[10 + len(records) + top :] == ["=" * width]
    # Rows: "Outer" at depth 0, its children indented by two spaces.
    assert rows[0][5:].startswith("Outer(add_one) ")
    assert rows[1][5:].startswith("  tirx.StmtSimplify(add_one) ")


def test_threshold_lines():
    timing = timed_run(threshold_ms=40.0)
    lines = timing.report().split("\n")
    assert lines[1] == "TileLang Pass Timing Report"
    assert not any(line.startswith("Context:") for line in lines)
    assert lines[4] == "(inclusive threshold: 40.0ms)"
    shown = [line for line in lines if line[:3].strip().isdigit()]
    assert [line[5:].split()[0] for line in shown] == ["Outer(add_one)", "Sleep50ms(add_one)"]
    hidden = len(timing.records) - 2
    assert lines[-2] == f"({hidden} passes skipped - under 40.0ms inclusive threshold)"
    assert lines[-3] == ""


def test_no_passes_recorded():
    timing = TileLangPassTimingInstrument()
    with tvm.transform.PassContext(instruments=[timing.instrument]):
        pass
    assert timing.records == []
    assert timing.report() == "[tilelang pass timing] No passes recorded."
    assert timing.report("ctx") == "[tilelang pass timing] No passes recorded. Context: ctx"


def test_print_report_logs_the_report(timing_log):
    timing = timed_run()
    timing_log.clear()
    timing.print_report("stage=lower")
    (record,) = timing_log.records
    assert (record.name, record.levelno) == ("tilelang.pass_timing", logging.INFO)
    assert record.getMessage() == "\n" + timing.report("stage=lower")
