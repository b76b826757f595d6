"""Metrics per pass (PASSTIMING_METRICS, the `metrics` option) on real
TileLang lowerings: CPU time, resident memory and the IR module's size and
change, in the profile (version 3) and on the instruments.

Records are checked against what the machine makes true of every pass:
a thread's CPU time does not exceed the wall time of the same interval, a
pass's own CPU time does not exceed its inclusive CPU time, a process has
resident memory, and every pass of TileLang's lowering runs on a module with
nodes in it."""

from __future__ import annotations

import json
import os
import sys

import pytest
import tilelang
import tvm

import kernels
import passtiming
import passtiming.tilelang
import passtiming.tvm
from test_run_command import TWO_COMPILES, run, write_script
from timing_helpers import profile_records

# The sampler's reads sit just after the clock's at each event: the CPU time
# of a pass may exceed its wall time by the cost of those reads, never more.
READING_SLACK_NS = 200_000


@pytest.fixture(autouse=True)
def disabled_afterwards():
    yield
    passtiming.tilelang.disable()


@pytest.fixture(scope="module")
def gemm_profile(tmp_path_factory):
    """The GEMM lowered once with metrics cpu, rss and ir: its profile."""
    out = tmp_path_factory.mktemp("metrics")
    passtiming.tilelang.enable(profile=str(out / "p-%n.json"), metrics="cpu,rss,ir")
    try:
        target = tvm.target.Target("cuda")
        with target:
            tilelang.lower(kernels.gemm(), target=target)
    finally:
        passtiming.tilelang.disable()
    [name] = os.listdir(out)
    with open(out / name, encoding="utf-8") as f:
        return json.load(f)


def test_the_profile_is_version_3_and_names_the_metrics(gemm_profile):
    assert gemm_profile["version"] == 3
    assert gemm_profile["metrics"] == {"recorded": ["cpu", "rss", "ir"], "unavailable": {}}


def all_records(profile):
    return [r for section in profile["sections"] for r in section["records"]]


def test_cpu_time_is_within_wall_time_and_self_within_inclusive(gemm_profile):
    records = all_records(gemm_profile)
    assert len(records) > 20
    for r in records:
        assert 0 <= r["cpu_self_ns"] <= r["cpu_ns"], r
        assert r["cpu_ns"] <= r["inclusive_ns"] + READING_SLACK_NS, r
    # Lowering a GEMM is CPU work, on the thread that runs the passes.
    assert sum(r["cpu_ns"] for r in records if r["depth"] == 0) > 0


def test_resident_memory_is_recorded_at_both_ends(gemm_profile):
    for r in all_records(gemm_profile):
        assert r["rss_start_bytes"] > 0 and r["rss_end_bytes"] > 0, r
        assert r["rss_peak_bytes"] > 0, r


def test_every_pass_sees_a_module_with_nodes_and_knows_whether_it_changed_it(gemm_profile):
    records = all_records(gemm_profile)
    for r in records:
        assert r["ir_before"] > 0 and r["ir_after"] > 0, r
        assert isinstance(r["ir_changed"], bool), r
    # The pipeline both rewrites the module and leaves it alone.
    assert any(r["ir_changed"] for r in records)
    assert any(not r["ir_changed"] for r in records)
    # A size counts distinct objects: a pass that leaves the module
    # structurally equal may still share fewer of them (tirx.Simplify
    # rebuilds constants), so no size is implied by "unchanged".


def test_the_instrument_counts_what_ir_node_count_counts(cuda_target):
    """The native instrument on its own, `metrics` as an iterable: the sizes
    it records around a Sequential are those of the module going in and the
    module coming out."""
    timing = passtiming.tvm.TileLangPassTimingInstrument(metrics=["ir", "cpu"])
    assert timing.metrics == {"recorded": ("cpu", "ir"), "unavailable": {}}
    mod = tvm.IRModule({"main": kernels.elementwise_add()})
    pipeline = tvm.transform.Sequential(
        [tvm.tirx.transform.Simplify(), tvm.tirx.transform.RemoveNoOp(),
         tvm.tirx.transform.ConvertSSA()],
        name="Pipeline",
    )
    with cuda_target, tvm.transform.PassContext(instruments=[timing.instrument]):
        lowered = pipeline(mod)
    records, metrics = timing.records, timing.record_metrics
    assert [r.name for r in records][:1] == ["Pipeline"] and len(records) == len(metrics) == 4
    assert metrics[0]["ir_before"] == passtiming.tvm.ir_node_count(mod) > 0
    assert metrics[0]["ir_after"] == passtiming.tvm.ir_node_count(lowered)
    assert metrics[-1]["ir_after"] == metrics[0]["ir_after"]
    assert all(set(m) == {"cpu_ns", "cpu_self_ns", "ir_before", "ir_after", "ir_changed"}
               for m in metrics)


def test_without_metrics_nothing_but_time_is_recorded(cuda_target, monkeypatch):
    monkeypatch.delenv("PASSTIMING_METRICS", raising=False)
    timing = passtiming.tvm.TileLangPassTimingInstrument()
    assert timing.metrics == {"recorded": (), "unavailable": {}}
    with cuda_target, tvm.transform.PassContext(instruments=[timing.instrument]):
        tvm.tirx.transform.Simplify()(tvm.IRModule({"main": kernels.elementwise_add()}))
    assert timing.record_metrics == [{}]


def test_passtiming_metrics_is_honoured_like_passtiming_profile(cuda_target, monkeypatch):
    monkeypatch.setenv("PASSTIMING_METRICS", "rss")
    timing = passtiming.tvm.TileLangPassTimingInstrument()
    with cuda_target, tvm.transform.PassContext(instruments=[timing.instrument]):
        tvm.tirx.transform.Simplify()(tvm.IRModule({"main": kernels.elementwise_add()}))
    [m] = timing.record_metrics
    assert set(m) == {"rss_start_bytes", "rss_end_bytes", "rss_peak_bytes"}
    # The option replaces the variable.
    timing = passtiming.tvm.TileLangPassTimingInstrument(metrics="")
    assert timing.metrics["recorded"] == ()


def test_instructions_are_recorded_or_marked_unavailable_with_the_reason(cuda_target):
    """Where the machine has the hardware counter, every pass has its count;
    where it has none (this one, a container), the profile says why and no
    record carries a count: never a zero."""
    timing = passtiming.tvm.TileLangPassTimingInstrument(metrics="instructions")
    with cuda_target, tvm.transform.PassContext(instruments=[timing.instrument]):
        tvm.tirx.transform.Simplify()(tvm.IRModule({"main": kernels.elementwise_add()}))
    [m] = timing.record_metrics
    info = timing.metrics
    if "instructions" in info["recorded"]:
        assert info["unavailable"] == {}
        assert 0 < m["instructions_self"] <= m["instructions"]
    else:
        assert info["recorded"] == ()
        assert info["unavailable"]["instructions"].startswith("perf_event_open")
        assert m == {}


@pytest.mark.parametrize(
    "make, setting",
    [
        (lambda: passtiming.tilelang.enable(metrics="cpu,memory"),
         "passtiming.tilelang.enable: metrics"),
        (lambda: passtiming.tilelang.PassTimingTool(metrics=["cpu", "memory"]),
         "PassTimingTool: metrics"),
        (lambda: passtiming.tvm.TileLangPassTimingInstrument(metrics="memory"),
         "TileLangPassTimingInstrument: metrics"),
        (lambda: passtiming.TileLangPassTimingInstrument(metrics="memory"),
         "TileLangPassTimingInstrument: metrics"),
    ],
)
def test_an_unknown_metric_raises_naming_the_option(make, setting):
    with pytest.raises(ValueError) as error:
        make()
    assert str(error.value).startswith(f"{setting}: unknown metric 'memory'")


def test_an_unknown_metric_in_the_environment_raises_naming_the_variable(monkeypatch):
    monkeypatch.setenv("PASSTIMING_METRICS", "cpu,memory")
    with pytest.raises(ValueError, match=r"^PASSTIMING_METRICS: unknown metric 'memory'"):
        passtiming.tilelang.enable()
    with pytest.raises(ValueError, match=r"^PASSTIMING_METRICS: unknown metric 'memory'"):
        passtiming.tvm.TileLangPassTimingInstrument()


def test_a_metrics_option_that_is_no_list_raises():
    with pytest.raises(ValueError, match=r"^passtiming.tilelang.enable: metrics: expected"):
        passtiming.tilelang.enable(metrics=3)


def test_passtiming_run_metrics_reaches_the_script(tmp_path, passtiming_cli):
    script = write_script(tmp_path, TWO_COMPILES)
    result = run(
        passtiming_cli, "--metrics", "cpu,rss", "-o", str(tmp_path / "p-%n.json"), "--no-report",
        "--", sys.executable, str(script),
    )
    assert result.returncode == 3, result.stderr
    profiles = sorted(tmp_path.glob("p-*.json"))
    assert len(profiles) == 2
    for path in profiles:
        profile = json.loads(path.read_text())
        assert profile["version"] == 3
        assert profile["metrics"]["recorded"] == ["cpu", "rss"]
        for _, records in profile_records(path):
            assert all(r["cpu_ns"] >= r["cpu_self_ns"] >= 0 for r in records)
            assert all("ir_before" not in r for r in records)


def test_passtiming_run_rejects_an_unknown_metric(tmp_path, passtiming_cli):
    script = write_script(tmp_path, "print('never runs')\n")
    result = run(passtiming_cli, "--metrics", "cpu,memory", "--", sys.executable, str(script))
    assert result.returncode == 2
    assert "--metrics: unknown metric 'memory'" in result.stderr
    assert "never runs" not in result.stdout


def test_passtiming_run_rejects_an_unknown_metric_it_would_hand_on(tmp_path, passtiming_cli):
    # Without --metrics the command inherits PASSTIMING_METRICS: a bad value
    # is refused before anything runs, naming the variable.
    script = write_script(tmp_path, "print('never runs')\n")
    result = run(
        passtiming_cli, "--", sys.executable, str(script), env={"PASSTIMING_METRICS": "cpu,cycles"}
    )
    assert result.returncode == 2
    assert result.stderr == (
        "passtiming run: PASSTIMING_METRICS: unknown metric 'cycles' "
        "(known: cpu, rss, ir, instructions, all, none)\n"
    )
    assert "never runs" not in result.stdout
