"""Bad settings for `passtiming.tilelang.enable()` fail at once, naming the
setting; an output file that cannot be written when a compile ends never
breaks that compile: it returns normally and an ERROR naming the file is
logged on `tilelang.pass_timing`.

The unwritable cases are made portably (root can write almost anywhere):
the output directory is removed after `enable()`, or replaced by a regular
file.
"""

from __future__ import annotations

import math
import os
import re
import shutil

import pytest
import tilelang
import tvm
from tilelang.instrumentation import compile_pass_instrumentation, create_pass_instruments

import kernels
import passtiming.tilelang
from timing_helpers import timing_messages


@pytest.fixture(autouse=True)
def disabled_afterwards():
    yield
    passtiming.tilelang.disable()


def registered_tools():
    with compile_pass_instrumentation(name="probe") as session:
        return [t for t in session.tools if isinstance(t, passtiming.tilelang.PassTimingTool)]


@pytest.mark.parametrize("threshold", [-1, -0.5, "abc", math.nan, math.inf, None])
def test_bad_threshold_raises_naming_threshold_ms(threshold):
    with pytest.raises(ValueError, match=r"threshold_ms") as error:
        passtiming.tilelang.enable(threshold_ms=threshold)
    assert repr(threshold) in str(error.value)
    assert registered_tools() == []  # nothing was enabled


def test_good_thresholds_are_taken():
    for threshold in (0, 0.0, 2.5, "1.5"):
        passtiming.tilelang.enable(threshold_ms=threshold)
        [tool] = registered_tools()
        assert tool.threshold_ms == float(threshold)


@pytest.mark.parametrize("setting", ["profile", "events"])
def test_missing_directory_raises_naming_the_path(setting):
    with pytest.raises(ValueError) as error:
        passtiming.tilelang.enable(**{setting: "/nonexistent/dir/x.json"})
    message = str(error.value)
    assert "/nonexistent/dir/x.json" in message and setting in message
    assert registered_tools() == []


@pytest.mark.parametrize("setting", ["profile", "events"])
def test_empty_path_raises_naming_the_setting(setting):
    with pytest.raises(ValueError, match=setting):
        passtiming.tilelang.enable(**{setting: ""})


def test_directory_as_profile_raises(tmp_path):
    with pytest.raises(ValueError, match=re.escape(str(tmp_path))):
        passtiming.tilelang.enable(profile=str(tmp_path))


def lower_add(target):
    with target:
        artifact = tilelang.lower(kernels.elementwise_add(), target=target)
    assert artifact.kernel_source  # the compile's own result, complete
    return artifact


def unwritable(directory, how):
    if how == "removed":
        shutil.rmtree(directory)
    else:
        shutil.rmtree(directory)
        directory.write_text("a regular file where the directory was\n")


@pytest.mark.parametrize("how", ["removed", "replaced-by-a-file"])
def test_unwritable_outputs_never_break_the_compile(tmp_path, cuda_target, pass_timing_log, how):
    out = tmp_path / "out"
    out.mkdir()
    passtiming.tilelang.enable(profile=str(out / "p-%p-%n.json"), events=str(out / "e-%p-%n.jsonl"))
    unwritable(out, how)

    lower_add(cuda_target)

    errors = [message for level, message in timing_messages(pass_timing_log, "ERROR")]
    assert len(errors) == 2
    pid = os.getpid()
    events_error, profile_error = errors  # the event log is opened as the compile starts
    assert re.search(rf"{re.escape(str(out))}/e-{pid}-\d+\.jsonl", events_error), events_error
    assert re.search(rf"{re.escape(str(out))}/p-{pid}-\d+\.json", profile_error), profile_error
    # The report is logged all the same.
    reports = timing_messages(pass_timing_log, "INFO")
    assert len(reports) == 1 and "TileLang Pass Timing Report" in reports[0][1]


def test_unwritable_profile_of_a_tool_never_breaks_its_session(tmp_path, cuda_target, pass_timing_log):
    out = tmp_path / "gone"
    out.mkdir()
    tool = passtiming.tilelang.PassTimingTool(profile=str(out / "p.json"))
    out.rmdir()
    with compile_pass_instrumentation(name="direct", tools=[tool], include_default_tools=False):
        with tvm.transform.PassContext(opt_level=3, instruments=create_pass_instruments()):
            lower_add(cuda_target)
    assert tool.records  # the compile was timed
    errors = [message for level, message in timing_messages(pass_timing_log, "ERROR")]
    assert len(errors) == 1 and str(out / "p.json") in errors[0]
