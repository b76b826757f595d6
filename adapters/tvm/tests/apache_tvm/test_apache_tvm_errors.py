"""Failures: a pass that raises under the native instrument, a process
where TVM's `instrument.PassInstrument` constructor is not registered, and a
threshold that is not a number."""

from __future__ import annotations

import logging
import math
import os
import subprocess
import sys
import textwrap

import pytest
import tvm
from tvm import tirx

from passtiming.tvm import TileLangPassTimingInstrument
from tvm_support import tir_module


class _PassFailed(ValueError):
    pass


def raising_pass(message):
    @tvm.transform.module_pass(opt_level=0, name="Raiser")
    def raiser(_mod, _ctx):
        raise ValueError(message)

    return raiser


def run_failing(instruments, nested: bool, message: str):
    """The exception a failing compile raises, with these instruments."""
    passes = [tirx.transform.RemoveNoOp(), raising_pass(message)]
    if nested:
        passes = [tvm.transform.Sequential(passes, name="Outer")]
    with pytest.raises(Exception) as caught:
        with tvm.transform.PassContext(instruments=instruments):
            mod = tir_module()
            for p in passes:
                mod = p(mod)
    return caught.value


@pytest.mark.parametrize(
    "nested, frames",
    [
        (True, "2 incomplete pass timing frame(s): Outer, Raiser"),
        (False, "1 incomplete pass timing frame(s): Raiser"),
    ],
    ids=["inside-sequential", "top-level"],
)
def test_raising_pass_propagates_unchanged_and_frames_are_discarded(
    timing_log, recorder, nested, frames
):
    bare = run_failing([], nested, "bad IR in pass 7")
    timing = TileLangPassTimingInstrument()
    timing_log.clear()
    error = run_failing([timing.instrument, recorder], nested, "bad IR in pass 7")

    # The exception is the one TVM raises without any instrument.
    assert type(error) is type(bare) is ValueError
    assert error.args == bare.args == ("bad IR in pass 7",)
    assert error.__cause__ is None and error.__context__ is None

    # The seed's warning, once, on the seed's logger.
    warnings = [r for r in timing_log.records if r.levelno >= logging.WARNING]
    assert [(r.name, r.levelno, r.getMessage()) for r in warnings] == [
        ("tilelang.pass_timing", logging.WARNING, f"Discarding {frames}")
    ]

    # The pass that completed is kept; the unfinished frames are not.
    assert [(r.name, r.depth) for r in timing.records] == [
        ("tirx.RemoveNoOp", 1 if nested else 0)
    ]
    assert recorder.events[-1] == ("exit",)

    # The instrument works in the next PassContext.
    timing_log.clear()
    with tvm.transform.PassContext(instruments=[timing.instrument]):
        tirx.transform.RemoveNoOp()(tir_module())
    assert [r.name for r in timing.records] == ["tirx.RemoveNoOp"]
    assert not [r for r in timing_log.records if r.levelno >= logging.WARNING]


def test_exception_type_is_kept_as_tvm_keeps_it(timing_log):
    """A subclass TVM's FFI does not know comes back as TVM turns it, with or
    without the instrument."""

    def compile_with(instruments):
        @tvm.transform.module_pass(opt_level=0, name="Raiser")
        def raiser(_mod, _ctx):
            raise _PassFailed("subclass")

        with pytest.raises(Exception) as caught:
            with tvm.transform.PassContext(instruments=instruments):
                raiser(tir_module())
        return caught.value

    bare = compile_with([])
    timed = compile_with([TileLangPassTimingInstrument().instrument])
    assert type(timed) is type(bare)
    assert timed.args == bare.args


# --- a TVM without the registered constructor ----------------------------------

_NO_TVM_SCRIPT = textwrap.dedent(
    """
    import sys
    import tvm_ffi
    sys.modules["tvm"] = None  # `import tvm` now fails with ImportError
    import passtiming.tvm
    assert sys.modules["tvm"] is None, "importing passtiming.tvm imported tvm"
    assert tvm_ffi.get_global_func("instrument.PassInstrument", allow_missing=True) is None
    for make in (lambda: passtiming.tvm.TileLangPassTimingInstrument(),
                 lambda: passtiming.tvm.TileLangPassTimingInstrument(threshold_ms=1.0),
                 lambda: passtiming.tvm.kernel_label(None)):
        try:
            make()
        except RuntimeError as error:
            print("RuntimeError:", error)
        else:
            print("no error")
    # Once TVM is loaded, the same process makes the instrument.
    del sys.modules["tvm"]
    import tvm
    timing = passtiming.tvm.TileLangPassTimingInstrument()
    with tvm.transform.PassContext(instruments=[timing.instrument]):
        tvm.tirx.transform.RemoveNoOp()(tvm.IRModule())
    print("then:", [r.name for r in timing.records])
    """
)

_NOT_REGISTERED = (
    "RuntimeError: passtiming.tvm: TVM's function 'instrument.PassInstrument' is not "
    "registered in this process; import tvm (or tilelang) before creating the instrument"
)


def test_tvm_without_the_registered_function_raises_runtime_error():
    result = subprocess.run(
        [sys.executable, "-c", _NO_TVM_SCRIPT],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [_NOT_REGISTERED] * 3 + ["then: ['tirx.RemoveNoOp']"]


@pytest.mark.parametrize("threshold", ["1", "0.5", True, None])
def test_a_threshold_that_is_not_a_number_is_refused_naming_the_class(threshold):
    # Upstream's threshold_ms is a float; float() would take these, silently.
    with pytest.raises(TypeError, match=r"^passtiming\.tvm\.TileLangPassTimingInstrument: threshold_ms"):
        TileLangPassTimingInstrument(threshold)


@pytest.mark.parametrize("threshold", [0, 1, 2.5, -1.0, float("nan"), float("inf")])
def test_every_real_threshold_is_taken(threshold):
    timing = TileLangPassTimingInstrument(threshold)
    assert timing.threshold_ms == threshold or math.isnan(threshold)
