"""`passtiming.tilelang.PassTimingTool` as TileLang's session drives it, and
`create_pass_timing_tool`, each against upstream's
(`tilelang.tools.pass_timing`): turning on from pass configs and TileLang's
environment variables, a tool that saw no PassContext, and a report that
raises while the session finishes.

The compiles here run one real TVM pass (`tirx.Simplify` on a real TileLang
kernel) under `compile_pass_instrumentation`, the way TileLang's own compile
sessions finish their tools.
"""

from __future__ import annotations

import os

import pytest
import tvm
from tilelang.instrumentation import compile_pass_instrumentation, create_pass_instruments
from tilelang.tools import pass_timing as upstream
from tilelang.transform import PassConfigKey

import kernels
import passtiming.tilelang
from timing_helpers import profile_records, run_cli, seed_report, timing_messages

ENV_VARS = ("TILELANG_PASS_PROFILE", "TILELANG_PASS_PROFILE_THRESHOLD_MS", "PASSTIMING_PROFILE", "PASSTIMING_EVENTS")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def mod():
    return tvm.IRModule({"main": kernels.elementwise_add()})


def compile_with(tool, mod):
    with compile_pass_instrumentation(name="lifecycle", tools=[tool], include_default_tools=False):
        with tvm.transform.PassContext(instruments=create_pass_instruments(context="stage=lifecycle")):
            tvm.tirx.transform.Simplify()(mod)


CREATORS = {"passtiming": passtiming.tilelang.create_pass_timing_tool, "upstream": upstream.create_pass_timing_tool}
TOOL_TYPES = {"passtiming": passtiming.tilelang.PassTimingTool, "upstream": upstream.PassTimingTool}


def test_config_keys_are_tilelangs():
    assert PassConfigKey.TL_PASS_PROFILE == "tl.pass_profile"
    assert PassConfigKey.TL_PASS_PROFILE_THRESHOLD_MS == "tl.pass_profile_threshold_ms"


@pytest.mark.parametrize("configs", [None, {}, {"tl.pass_profile": False}, {"tl.pass_profile_threshold_ms": 2.5}])
@pytest.mark.parametrize("side", CREATORS)
def test_no_tool_without_config_or_environment(side, configs):
    assert CREATORS[side](configs) is None


@pytest.mark.parametrize("side", CREATORS)
def test_pass_config_turns_it_on_with_its_threshold(side):
    tool = CREATORS[side]({"tl.pass_profile": True, "tl.pass_profile_threshold_ms": 2.5})
    assert type(tool) is TOOL_TYPES[side]
    assert tool.threshold_ms == 2.5
    assert CREATORS[side]({PassConfigKey.TL_PASS_PROFILE: True}).threshold_ms == 0.0


@pytest.mark.parametrize("side", CREATORS)
def test_environment_turns_it_on_with_its_threshold(side, monkeypatch):
    monkeypatch.setenv("TILELANG_PASS_PROFILE", "1")
    tool = CREATORS[side](None)
    assert type(tool) is TOOL_TYPES[side] and tool.threshold_ms == 0.0
    monkeypatch.setenv("TILELANG_PASS_PROFILE_THRESHOLD_MS", "7.5")
    assert CREATORS[side]({}).threshold_ms == 7.5
    # A pass config threshold wins over the environment's.
    assert CREATORS[side]({"tl.pass_profile_threshold_ms": 2.5}).threshold_ms == 2.5
    monkeypatch.setenv("TILELANG_PASS_PROFILE", "0")
    assert CREATORS[side]({}) is None


@pytest.mark.parametrize(
    "configs, env_threshold",
    [
        ({"tl.pass_profile": True, "tl.pass_profile_threshold_ms": -1}, None),
        ({"tl.pass_profile": True, "tl.pass_profile_threshold_ms": "abc"}, None),
        ({"tl.pass_profile": True, "tl.pass_profile_threshold_ms": float("nan")}, None),
        ({"tl.pass_profile": True}, "abc"),
        ({"tl.pass_profile": True}, "inf"),
    ],
)
def test_bad_threshold_raises_upstreams_error(configs, env_threshold, monkeypatch):
    if env_threshold is not None:
        monkeypatch.setenv("TILELANG_PASS_PROFILE_THRESHOLD_MS", env_threshold)
    with pytest.raises(ValueError) as theirs:
        upstream.create_pass_timing_tool(configs)
    with pytest.raises(ValueError) as ours:
        passtiming.tilelang.create_pass_timing_tool(configs)
    assert str(ours.value) == str(theirs.value)
    assert "must be a finite non-negative number" in str(ours.value)


def test_created_tool_writes_the_profile_named_by_the_environment(tmp_path, monkeypatch, mod):
    monkeypatch.setenv("TILELANG_PASS_PROFILE", "1")
    monkeypatch.setenv("PASSTIMING_PROFILE", str(tmp_path / "env-%p-%n.json"))
    tool = passtiming.tilelang.create_pass_timing_tool(None)
    assert tool.profile_path is None  # nothing is opened before the first PassContext
    compile_with(tool, mod)
    assert os.path.dirname(tool.profile_path) == str(tmp_path)
    assert os.path.basename(tool.profile_path).startswith(f"env-{os.getpid()}-")
    assert tool.events_path is None
    [(context, records)] = profile_records(tool.profile_path)
    assert context == "stage=lifecycle"
    assert [r["name"] for r in records] == ["tirx.Simplify"]


def test_a_compile_that_runs_no_pass_writes_no_file(tmp_path, monkeypatch):
    monkeypatch.setenv("PASSTIMING_PROFILE", str(tmp_path / "p-%n.json"))
    monkeypatch.setenv("PASSTIMING_EVENTS", str(tmp_path / "e-%n.jsonl"))
    tool = passtiming.tilelang.PassTimingTool()
    with compile_pass_instrumentation(name="idle", tools=[tool], include_default_tools=False):
        pass
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("side", TOOL_TYPES)
def test_tool_without_sections_reports_and_logs_nothing(side, pass_timing_log):
    tool = TOOL_TYPES[side]()
    assert tool.report() == ""
    assert tool.timings == () and tool.contexts == () and tool.records == []
    tool.print_report()
    tool.finish(None)
    assert timing_messages(pass_timing_log) == []


@pytest.mark.parametrize("side", TOOL_TYPES)
def test_session_with_no_pass_context_logs_nothing(side, pass_timing_log):
    with compile_pass_instrumentation(name="idle", tools=[TOOL_TYPES[side]()], include_default_tools=False):
        pass
    assert timing_messages(pass_timing_log) == []


@pytest.mark.parametrize("side", TOOL_TYPES)
def test_finish_logs_the_report_once(side, mod, pass_timing_log):
    tool = TOOL_TYPES[side]()
    compile_with(tool, mod)
    tool.finish(None)  # the session already finished it
    [(level, message)] = timing_messages(pass_timing_log)
    assert (level, message) == ("INFO", "\n" + tool.report())
    assert "Context: stage=lifecycle\n" in message


class ReportFailed(Exception):
    pass


def failing_report():
    raise ReportFailed("report failed")


@pytest.mark.parametrize("side", TOOL_TYPES)
def test_report_error_propagates_from_finish(side, mod, monkeypatch, pass_timing_log):
    tool = TOOL_TYPES[side]()
    monkeypatch.setattr(tool, "report", failing_report)
    with pytest.raises(ReportFailed, match="report failed"):
        compile_with(tool, mod)
    assert timing_messages(pass_timing_log) == []
    tool.finish(None)  # finished once: no second attempt


def test_report_error_still_writes_the_files(tmp_path, mod, monkeypatch, passtiming_cli):
    tool = passtiming.tilelang.PassTimingTool(profile=str(tmp_path / "p.json"), events=str(tmp_path / "e.jsonl"))
    monkeypatch.setattr(tool, "report", failing_report)
    with pytest.raises(ReportFailed):
        compile_with(tool, mod)
    [(context, records)] = profile_records(str(tmp_path / "p.json"))
    assert (context, [r["name"] for r in records]) == ("stage=lifecycle", ["tirx.Simplify"])
    from_profile = run_cli(passtiming_cli, "report", str(tmp_path / "p.json")).stdout
    assert run_cli(passtiming_cli, "report", str(tmp_path / "e.jsonl")).stdout == from_profile
    monkeypatch.undo()  # the tool's own report again
    assert seed_report(from_profile) == tool.report() + "\n"


def test_compile_error_wins_over_a_report_error(mod, monkeypatch):
    # TileLang's session never lets a tool's error hide the compile's own.
    tool = passtiming.tilelang.PassTimingTool()
    monkeypatch.setattr(tool, "report", failing_report)

    @tvm.transform.module_pass(opt_level=0, name="Boom")
    def boom(m, ctx):
        raise ValueError("the compile failed")

    with pytest.raises(ValueError, match="the compile failed"):
        with compile_pass_instrumentation(name="failing", tools=[tool], include_default_tools=False):
            with tvm.transform.PassContext(instruments=create_pass_instruments()):
                boom(mod)
