"""TileLang's own switch while passtiming is enabled.

TileLang's JIT and autotuner make their timing tool with
`create_pass_timing_tool`, imported by name from `tilelang.tools.pass_timing`,
when `tl.pass_profile` or `TILELANG_PASS_PROFILE=1` asks for it (upstream's
testing/python/debug/test_pass_timing.py: the JIT's compile session owns a
timing tool with the configured threshold). Once passtiming is enabled, by
`enable()` or by `passtiming run`, that switch makes passtiming's tool, and a
compile it turns on is reported once, by passtiming, with TileLang's
threshold; `disable()` gives the names back.
"""

from __future__ import annotations

import os
import re
import sys

import pytest
import tilelang
from tilelang.env import CacheState
from tilelang.instrumentation import (
    PassInstrumentationTool,
    current_compile_pass_instrumentation,
    register_pass_instrumentation_tool,
    unregister_pass_instrumentation_tool,
)
from tilelang.tools import pass_timing as upstream
from tilelang.transform import PassConfigKey

import kernels
import passtiming.tilelang
from test_run_command import run, write_script
from timing_helpers import profile_records, run_cli, seed_report, timing_messages

PROBE = "passtiming-switch-probe"
UPSTREAM_SWITCH = upstream.create_pass_timing_tool
# The modules of TileLang 0.1.15 that import the switch's function by name.
IMPORTERS = ("tilelang.tools.pass_timing", "tilelang.jit.kernel", "tilelang.autotuner.grouped_compile")


class _SessionProbe(PassInstrumentationTool):
    """Records the tools of each compile session it is made for."""

    seen: list[tuple] = []

    def create_pass_instrument(self):
        session = current_compile_pass_instrumentation()
        if session is not None and all(tools is not session.tools for tools in self.seen):
            self.seen.append(session.tools)
        return None


@pytest.fixture
def sessions():
    _SessionProbe.seen = []
    register_pass_instrumentation_tool(PROBE, _SessionProbe)
    yield _SessionProbe.seen
    unregister_pass_instrumentation_tool(PROBE)


@pytest.fixture(autouse=True)
def clean(monkeypatch):
    for name in ("TILELANG_PASS_PROFILE", "TILELANG_PASS_PROFILE_THRESHOLD_MS", "PASSTIMING_PROFILE",
                 "PASSTIMING_EVENTS", "PASSTIMING_METRICS"):
        monkeypatch.delenv(name, raising=False)
    was_enabled = CacheState.is_enabled()
    tilelang.disable_cache()  # a cache hit runs no pass
    yield
    passtiming.tilelang.disable()
    if was_enabled:
        tilelang.enable_cache()


def reports_of(caplog):
    return [m for level, m in timing_messages(caplog) if level == "INFO"]


SWITCHES = {
    "tl.pass_profile": ({PassConfigKey.TL_PASS_PROFILE: True, PassConfigKey.TL_PASS_PROFILE_THRESHOLD_MS: 3.0}, {}),
    "TILELANG_PASS_PROFILE": ({}, {"TILELANG_PASS_PROFILE": "1", "TILELANG_PASS_PROFILE_THRESHOLD_MS": "3"}),
}


@pytest.mark.parametrize("switch", SWITCHES)
def test_tilelangs_switch_gives_one_passtiming_report_per_compile(
    switch, tmp_path, monkeypatch, sessions, pass_timing_log, passtiming_cli
):
    configs, environment = SWITCHES[switch]
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    passtiming.tilelang.enable(threshold_ms=0.5, profile=str(tmp_path / "p-%n.json"))

    for _ in range(2):
        tilelang.compile(kernels.elementwise_add(), target="c", pass_configs=configs)

    reports = reports_of(pass_timing_log)
    assert len(reports) == 2, [r[:200] for r in reports]
    # Each compile's session holds passtiming's tools only: the switch's, which
    # timed it with TileLang's threshold, and enable()'s, which stood aside.
    assert len(sessions) == 2
    for tools in sessions:
        assert not any(isinstance(t, upstream.PassTimingTool) for t in tools)
        ours = [t for t in tools if isinstance(t, passtiming.tilelang.PassTimingTool)]
        assert len(ours) == 2
        [timed] = [t for t in ours if t.timings]
        assert timed.threshold_ms == 3.0
    # Each report is the one passtiming wrote the compile's profile of.
    profiles = sorted(tmp_path.iterdir(), key=lambda p: int(p.stem.split("-")[-1]))  # by %n
    assert len(profiles) == 2
    for report, profile in zip(reports, profiles):
        assert "(inclusive threshold: 3.0ms)" in report
        [(context, _)] = profile_records(str(profile))
        assert f"Context: {context}\n" in report
        printed = run_cli(passtiming_cli, "report", str(profile), "--threshold-ms", "3").stdout
        assert seed_report(printed) == report[1:] + "\n"


def test_without_tilelangs_threshold_enables_threshold_is_used(monkeypatch, sessions, pass_timing_log):
    monkeypatch.setenv("TILELANG_PASS_PROFILE", "1")
    passtiming.tilelang.enable(threshold_ms=0.5)
    tilelang.compile(kernels.elementwise_add(), target="c")
    [report] = reports_of(pass_timing_log)
    assert "(inclusive threshold: 0.5ms)" in report


def test_the_names_tilelang_looks_up_are_passtimings_until_disable():
    modules = [sys.modules[name] for name in IMPORTERS]
    assert all(m.create_pass_timing_tool is UPSTREAM_SWITCH for m in modules)
    passtiming.tilelang.enable()
    passtiming.tilelang.enable(threshold_ms=1.0)  # again: still patched once
    configs = {PassConfigKey.TL_PASS_PROFILE: True, PassConfigKey.TL_PASS_PROFILE_THRESHOLD_MS: 4.0}
    for module in modules:
        assert module.create_pass_timing_tool is not UPSTREAM_SWITCH
        tool = module.create_pass_timing_tool(configs)
        assert isinstance(tool, passtiming.tilelang.PassTimingTool) and tool.threshold_ms == 4.0
        assert module.create_pass_timing_tool({}) is None
    passtiming.tilelang.disable()
    assert all(m.create_pass_timing_tool is UPSTREAM_SWITCH for m in modules)
    assert isinstance(upstream.create_pass_timing_tool(configs), upstream.PassTimingTool)


def test_after_disable_the_switch_runs_upstreams_tool_alone(tmp_path, sessions, pass_timing_log):
    passtiming.tilelang.enable(profile=str(tmp_path / "p-%n.json"))
    passtiming.tilelang.disable()
    tilelang.compile(kernels.elementwise_add(), target="c", pass_configs={PassConfigKey.TL_PASS_PROFILE: True})
    assert len(reports_of(pass_timing_log)) == 1
    [tools] = sessions
    assert [type(t) for t in tools if not isinstance(t, _SessionProbe)] == [upstream.PassTimingTool]
    assert os.listdir(tmp_path) == []


def test_passtiming_run_reports_a_switched_on_compile_once(tmp_path, passtiming_cli):
    script = write_script(
        tmp_path,
        """\
        import tilelang
        import kernels
        tilelang.disable_cache()
        tilelang.compile(kernels.elementwise_add(), target="c")
        tilelang.compile(kernels.elementwise_add(), target="c")
        print("script done")
        """,
    )
    out = tmp_path / "out"
    out.mkdir()
    result = run(
        passtiming_cli, "-o", str(out / "p-%n.json"), "--", sys.executable, str(script),
        env={"TILELANG_PASS_PROFILE": "1"},
    )
    assert result.returncode == 0, result.stderr
    assert "script done" in result.stdout
    output = result.stdout + result.stderr
    assert output.count("TileLang Pass Timing Report") == 2, output
    assert len(re.findall(r"Context: stage=jit-lower, kernel=add", output)) == 2
    assert len(list(out.iterdir())) == 2  # both reports are passtiming's, with their profiles
