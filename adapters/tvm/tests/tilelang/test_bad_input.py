"""Bad settings for `passtiming.tilelang.enable()` and `PassTimingTool` fail
at once, naming the public name called and the setting (or the variable it
was read from); a threshold is taken of the types upstream's `threshold_ms:
float` takes. An output file that cannot be written when a compile ends
never breaks that compile: it returns normally and an ERROR naming the file
is logged on `tilelang.pass_timing`.

The unwritable cases are made portably (root can write almost anywhere):
the output directory is removed after `enable()`, or replaced by a regular
file.
"""

from __future__ import annotations

import fractions
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
import passtiming.tvm
from timing_helpers import timing_messages


@pytest.fixture(autouse=True)
def disabled_afterwards():
    yield
    passtiming.tilelang.disable()


def registered_tools():
    with compile_pass_instrumentation(name="probe") as session:
        return [t for t in session.tools if isinstance(t, passtiming.tilelang.PassTimingTool)]


@pytest.mark.parametrize("threshold", [-1, -0.5, math.nan, math.inf])
def test_bad_threshold_raises_naming_threshold_ms(threshold):
    with pytest.raises(ValueError, match=r"threshold_ms") as error:
        passtiming.tilelang.enable(threshold_ms=threshold)
    assert repr(threshold) in str(error.value)
    assert registered_tools() == []  # nothing was enabled


# Upstream's threshold_ms is a float: real numbers are taken; a string or a
# bool, which float() would turn into one, is a mistake and is refused.
NOT_A_FLOAT = ["1", "1.5", "abc", True, False, None, b"1", [1.0]]


@pytest.mark.parametrize("threshold", NOT_A_FLOAT)
def test_threshold_that_is_not_a_number_raises_type_error_naming_enable(threshold):
    with pytest.raises(TypeError, match=r"^passtiming\.tilelang\.enable: threshold_ms must be a float") as error:
        passtiming.tilelang.enable(threshold_ms=threshold)
    assert repr(threshold) in str(error.value)
    assert registered_tools() == []


def test_good_thresholds_are_taken():
    for threshold in (0, 0.0, 2.5, 3, fractions.Fraction(3, 2)):
        passtiming.tilelang.enable(threshold_ms=threshold)
        [tool] = registered_tools()
        assert tool.threshold_ms == float(threshold)


@pytest.mark.parametrize("threshold", NOT_A_FLOAT)
def test_tool_threshold_that_is_not_a_number_raises_type_error_naming_the_class(threshold):
    with pytest.raises(TypeError, match=r"^PassTimingTool: threshold_ms must be a float") as error:
        passtiming.tilelang.PassTimingTool(threshold)
    assert "_Session" not in str(error.value)
    with pytest.raises(TypeError, match=r"^passtiming\.tvm\.TileLangPassTimingInstrument: threshold_ms"):
        passtiming.tvm.TileLangPassTimingInstrument(threshold)


@pytest.mark.parametrize("threshold", [0, 2, 2.5, -1.0, math.nan, math.inf])
def test_tool_takes_every_float_as_upstream(threshold, cuda_target):
    tool = passtiming.tilelang.PassTimingTool(threshold)
    with compile_pass_instrumentation(name="direct", tools=[tool], include_default_tools=False):
        with tvm.transform.PassContext(opt_level=3, instruments=create_pass_instruments()):
            with cuda_target:
                tvm.tirx.transform.Simplify()(tvm.IRModule({"main": kernels.elementwise_add()}))
    assert [r.name for r in tool.records] == ["tirx.Simplify"]
    assert "TileLang Pass Timing Report" in tool.report()


PATH_VARIABLES = ["PASSTIMING_PROFILE", "PASSTIMING_EVENTS"]


@pytest.mark.parametrize("variable", PATH_VARIABLES)
def test_variable_naming_a_missing_directory_fails_enable(variable, monkeypatch):
    monkeypatch.setenv(variable, "/nonexistent/dir/x-%n.json")
    with pytest.raises(ValueError) as error:
        passtiming.tilelang.enable()
    message = str(error.value)
    assert message.startswith(f"passtiming.tilelang.enable: {variable}='/nonexistent/dir/x-%n.json'")
    assert "'/nonexistent/dir' does not exist" in message
    assert registered_tools() == []


@pytest.mark.parametrize("variable", PATH_VARIABLES)
def test_variable_naming_a_missing_directory_fails_the_tool(variable, monkeypatch):
    monkeypatch.setenv(variable, "/nonexistent/dir/x.json")
    with pytest.raises(ValueError, match=rf"^PassTimingTool: {variable}='/nonexistent/dir/x\.json'"):
        passtiming.tilelang.PassTimingTool()
    # The drop-in, as TileLang's switch makes it, fails as the switch is read.
    monkeypatch.setenv("TILELANG_PASS_PROFILE", "1")
    with pytest.raises(ValueError, match=variable):
        passtiming.tilelang.create_pass_timing_tool(None)


def test_variable_naming_a_directory_fails_enable(tmp_path, monkeypatch):
    monkeypatch.setenv("PASSTIMING_PROFILE", str(tmp_path))
    with pytest.raises(ValueError, match=r"^passtiming\.tilelang\.enable: PASSTIMING_PROFILE=.* is a directory"):
        passtiming.tilelang.enable()


@pytest.mark.parametrize("setting", ["profile", "events", "report_file"])
def test_tool_argument_naming_a_missing_directory_fails_the_tool(setting):
    with pytest.raises(ValueError, match=rf"^PassTimingTool: {setting}='/nonexistent/dir/x'"):
        passtiming.tilelang.PassTimingTool(**{setting: "/nonexistent/dir/x"})


def test_an_argument_is_checked_in_place_of_its_variable(tmp_path, monkeypatch):
    monkeypatch.setenv("PASSTIMING_PROFILE", "/nonexistent/dir/x.json")
    passtiming.tilelang.enable(profile=str(tmp_path / "p-%n.json"))
    assert len(registered_tools()) == 1
    assert passtiming.tilelang.PassTimingTool(profile="") is not None  # "": no file


@pytest.mark.parametrize("setting", ["profile", "events", "report_file"])
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
