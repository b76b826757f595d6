"""`passtiming.tilelang.enable()` / `disable()` on real TileLang compiles.

Once enabled, every compile through TileLang's front doors gets a
passtiming tool from TileLang's tool registry: its report is logged once on
`tilelang.pass_timing`, and the JSON profile and event log asked for are
written per compile (`%p`: pid, `%n`: the process's compile number), where
the `passtiming` command reads them. `disable()` stops all of it.

Front doors exercised: `tilelang.lower` (for CUDA: lowering needs no GPU),
and `tilelang.compile` / `@tilelang.jit` for the `c` target, which builds
with the host compiler in a second (test_phases.py builds for CUDA with
nvcc). The kernel cache is disabled around JIT compiles: a cache hit runs no
pass at all.
"""

from __future__ import annotations

import collections
import json
import logging
import os
import re
import sys

import pytest
import tilelang
import tvm
from tilelang.env import CacheState
from tilelang.instrumentation import (
    compile_pass_instrumentation,
    register_pass_instrumentation_tool,
    unregister_pass_instrumentation_tool,
)
from tilelang.jit.kernel import JITKernel
from tilelang.tools import pass_timing as upstream

import kernels
import passtiming.tilelang
from timing_helpers import LOGGER, profile_records, run_cli, seed_report, shape, timing_messages

KERNELS = {"gemm": kernels.gemm, "add": kernels.elementwise_add, "reduce_rows": kernels.row_sum}
PROBE = "passtiming-test-probe"


@pytest.fixture(autouse=True)
def disabled_afterwards():
    yield
    passtiming.tilelang.disable()
    unregister_pass_instrumentation_tool(PROBE)


@pytest.fixture
def no_kernel_cache():
    was_enabled = CacheState.is_enabled()
    tilelang.disable_cache()
    yield
    if was_enabled:
        tilelang.enable_cache()


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append(record)


class Lowering:
    def __init__(self, name, files, logs):
        self.name = name
        self.files = files  # the files this compile created
        self.logs = logs  # (levelname, message) logged during it

    @property
    def profile(self):
        [path] = [f for f in self.files if f.endswith(".json")]
        return path

    @property
    def events(self):
        [path] = [f for f in self.files if f.endswith(".jsonl")]
        return path

    @property
    def report(self):
        [(level, message)] = self.logs
        assert level == "INFO" and message.startswith("\n")
        return message[1:]


@pytest.fixture(scope="module")
def lowerings(tmp_path_factory, cuda_target):
    """The three kernels lowered with `tilelang.lower` while enabled, each
    with the files it created and what was logged on `tilelang.pass_timing`
    meanwhile (a module-scoped handler: caplog is per test)."""
    out = tmp_path_factory.mktemp("enabled")
    logger = logging.getLogger(LOGGER)
    handler, saved_level = _Collect(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    results = []
    passtiming.tilelang.enable(profile=str(out / "p-%p-%n.json"), events=str(out / "e-%p-%n.jsonl"))
    try:
        for name, make in KERNELS.items():
            before, logged = set(os.listdir(out)), len(handler.records)
            prim_func = make()
            with cuda_target:
                artifact = tilelang.lower(prim_func, target=cuda_target)
            assert artifact.kernel_source
            files = sorted(str(out / f) for f in set(os.listdir(out)) - before)
            logs = [(r.levelname, r.getMessage()) for r in handler.records[logged:]]
            results.append(Lowering(name, files, logs))
    finally:
        passtiming.tilelang.disable()
        logger.removeHandler(handler)
        logger.setLevel(saved_level)
    return results


def test_each_compile_writes_one_profile_and_one_event_log(lowerings):
    numbers = []
    for lowering in lowerings:
        assert len(lowering.files) == 2
        profile, events = (os.path.basename(f) for f in (lowering.profile, lowering.events))
        match = re.fullmatch(rf"p-{os.getpid()}-(\d+)\.json", profile)
        assert match, profile
        assert events == f"e-{os.getpid()}-{match.group(1)}.jsonl"
        numbers.append(int(match.group(1)))
    assert numbers == sorted(set(numbers))  # a new number per compile


def test_report_is_logged_once_per_compile(lowerings):
    for lowering in lowerings:
        report = lowering.report
        assert report.count("TileLang Pass Timing Report") == 1
        assert "Context:" not in report  # tilelang.lower's PassContext has none
        assert re.search(r"^Total: \d+\.\d{4}s \(\d+ passes\)$", report, re.MULTILINE)


def test_profile_has_the_compiles_one_section(lowerings):
    for lowering in lowerings:
        [(context, records)] = profile_records(lowering.profile)
        assert context == ""
        passes = int(re.search(r"\((\d+) passes\)", lowering.report).group(1))
        assert len(records) == passes
        assert sorted(r["sequence"] for r in records) == list(range(passes))
        assert records[0]["kernel"] == lowering.name


def test_cli_report_of_the_profile_is_the_logged_report(lowerings, passtiming_cli):
    for lowering in lowerings:
        report = run_cli(passtiming_cli, "report", lowering.profile).stdout
        assert seed_report(report) == lowering.report + "\n"


def test_cli_report_of_the_event_log_equals_the_profiles(lowerings, passtiming_cli):
    for lowering in lowerings:
        from_events = run_cli(passtiming_cli, "report", lowering.events).stdout
        assert from_events == run_cli(passtiming_cli, "report", lowering.profile).stdout


def test_cli_summary_by_pass_adds_up_the_profiles(lowerings, passtiming_cli):
    profiles = [lowering.profile for lowering in lowerings]
    runs, inclusive, self_ns = collections.Counter(), collections.Counter(), collections.Counter()
    for profile in profiles:
        for _, records in profile_records(profile):
            for r in records:
                runs[r["name"]] += 1
                inclusive[r["name"]] += r["inclusive_ns"]
                self_ns[r["name"]] += r["self_ns"]

    summary = json.loads(run_cli(passtiming_cli, "summary", *profiles, "--by", "pass", "--format", "json").stdout)
    assert summary["by"] == "pass" and summary["profiles"] == 3
    rows = {row["key"]: row for row in summary["rows"]}
    assert set(rows) == set(runs)
    for name, row in rows.items():
        assert (row["executions"], row["total_inclusive_ns"], row["total_self_ns"]) == (
            runs[name],
            inclusive[name],
            self_ns[name],
        )
    assert summary["total_self_ns"] == sum(self_ns.values())

    text = run_cli(passtiming_cli, "summary", *profiles, "--by", "pass").stdout
    assert "Profiles: 3" in text
    table = re.findall(r"^\s*\d+\s+(\S+)\s+(\d+)\s", text, re.MULTILINE)
    assert {name: int(count) for name, count in table} == dict(runs)


def test_summary_of_event_logs_equals_summary_of_profiles(lowerings, passtiming_cli):
    profiles = [lowering.profile for lowering in lowerings]
    events = [lowering.events for lowering in lowerings]
    by_profiles = run_cli(passtiming_cli, "summary", *profiles, "--by", "pass", "--format", "json").stdout
    by_events = run_cli(passtiming_cli, "summary", *events, "--by", "pass", "--format", "json").stdout
    assert by_events == by_profiles


def test_disable_stops_timing_later_compiles(tmp_path, cuda_target, pass_timing_log):
    passtiming.tilelang.enable(profile=str(tmp_path / "p-%n.json"), events=str(tmp_path / "e-%n.jsonl"))
    passtiming.tilelang.disable()
    with cuda_target:
        tilelang.lower(kernels.elementwise_add(), target=cuda_target)
    assert os.listdir(tmp_path) == []
    assert timing_messages(pass_timing_log) == []


def _default_tools():
    with compile_pass_instrumentation(name="probe") as session:
        return [t for t in session.tools if isinstance(t, passtiming.tilelang.PassTimingTool)]


def test_enable_registers_one_tool_and_replaces_its_settings():
    assert _default_tools() == []
    passtiming.tilelang.enable(threshold_ms=1.5)
    passtiming.tilelang.enable(threshold_ms=2.5)
    [tool] = _default_tools()
    assert tool.threshold_ms == 2.5
    passtiming.tilelang.disable()
    assert _default_tools() == []
    passtiming.tilelang.disable()  # disabling twice is harmless


def _both_tools_as_default_tools():
    """passtiming's and upstream's tools registered as two default tools,
    passtiming's first; returns the lists of tools the compiles make."""
    ours, theirs = [], []

    def make_ours():
        ours.append(passtiming.tilelang.PassTimingTool())
        return ours[-1]

    def make_theirs():
        theirs.append(upstream.PassTimingTool())
        return theirs[-1]

    register_pass_instrumentation_tool(PROBE, make_ours)
    register_pass_instrumentation_tool(PROBE + "-upstream", make_theirs)
    return ours, theirs


@pytest.fixture
def both_registered():
    ours, theirs = _both_tools_as_default_tools()
    yield ours, theirs
    unregister_pass_instrumentation_tool(PROBE + "-upstream")


def test_tilelang_lower_gives_one_section_without_context(both_registered, cuda_target):
    ours, theirs = both_registered
    assert tilelang.lower is sys.modules["tilelang.engine.lower"].lower
    with cuda_target:
        tilelang.lower(kernels.elementwise_add(), target=cuda_target)
    [our_tool], [their_tool] = ours, theirs
    assert our_tool.contexts == their_tool.contexts == (None,)
    assert shape(our_tool.records) == shape(their_tool.records)
    assert our_tool.records[0].kernel == "add"


def _jit(prim_func, target):
    @tilelang.jit(target=target)
    def kernel_factory():
        return prim_func

    return kernel_factory()


@pytest.mark.parametrize("front_door", ["tilelang.compile", "tilelang.jit"])
def test_jit_compile_gives_the_jit_lower_context(both_registered, no_kernel_cache, front_door):
    ours, theirs = both_registered
    if front_door == "tilelang.compile":
        kernel = tilelang.compile(kernels.elementwise_add(), target="c")
    else:
        kernel = _jit(kernels.elementwise_add(), "c")
    assert isinstance(kernel, JITKernel)
    [our_tool], [their_tool] = ours, theirs
    expected = f"stage=jit-lower, kernel=add, backend={kernel.execution_backend}"
    assert our_tool.contexts == their_tool.contexts == (expected,)
    assert shape(our_tool.records) == shape(their_tool.records)


def test_enabled_jit_compile_writes_its_files(tmp_path, no_kernel_cache, passtiming_cli, pass_timing_log):
    passtiming.tilelang.enable(profile=str(tmp_path / "p-%n.json"), events=str(tmp_path / "e-%n.jsonl"))
    kernel = tilelang.compile(kernels.elementwise_add(), target="c")
    files = sorted(os.listdir(tmp_path))
    assert len(files) == 2
    [events, profile] = (str(tmp_path / f) for f in files)
    [(context, records)] = profile_records(profile)
    assert context == f"stage=jit-lower, kernel=add, backend={kernel.execution_backend}"
    [(level, message)] = timing_messages(pass_timing_log)
    assert level == "INFO" and f"Context: {context}\n" in message
    assert re.search(rf"\({len(records)} passes\)", message)
    assert seed_report(run_cli(passtiming_cli, "report", profile).stdout) == message[1:] + "\n"
    assert seed_report(run_cli(passtiming_cli, "report", events).stdout) == message[1:] + "\n"


def test_failing_compile_reports_and_writes_and_raises_its_own_error(
    tmp_path, both_registered, no_kernel_cache, passtiming_cli, pass_timing_log
):
    # TileLang 0.1.15 cannot infer the reduction's fragment layout for the
    # `c` target: tl.LayoutInference raises in the middle of the compile.
    ours, theirs = both_registered
    passtiming.tilelang.enable(profile=str(tmp_path / "p-%n.json"))
    with pytest.raises(tvm.error.InternalError, match="can not be inferred"):
        tilelang.compile(kernels.row_sum(), target="c")
    [our_tool], [their_tool] = ours, theirs
    assert shape(our_tool.records) == shape(their_tool.records)
    assert our_tool.records and our_tool.records[-1].name != "tl.LayoutInference"

    discarded = ("WARNING", "Discarding 1 incomplete pass timing frame(s): tl.LayoutInference")
    messages = timing_messages(pass_timing_log)
    # Three instruments (the enabled tool's, the probe's, upstream's) each
    # discard the open frame, and each tool logs its report once.
    assert messages.count(discarded) == 3
    reports = [m for level, m in messages if level == "INFO"]
    assert len(reports) == 3 and all("TileLang Pass Timing Report" in m for m in reports)
    [profile] = os.listdir(tmp_path)
    [(context, records)] = profile_records(str(tmp_path / profile))
    assert context.startswith("stage=jit-lower, kernel=reduce_rows, backend=")
    assert [r["name"] for r in records] == [r.name for r in our_tool.records]
    assert run_cli(passtiming_cli, "report", str(tmp_path / profile)).stdout.count("TileLang Pass Timing Report") == 1
