"""The phases of a real TileLang compile, beside its passes.

A 512x512x512 fp16 GEMM is compiled for CUDA (sm_90a) by `tilelang.compile`
with the cython backend while passtiming is enabled: TileLang lowers it,
generates CUDA and builds the kernel library with nvcc, the real compiler of
the environment (pip's `nvidia-cuda-nvcc` in the TileLang environment, or
the user's CUDA_HOME). On a machine without a GPU an empty `libcuda.so`
stands in for the driver library at link time, as the toolkit's `stubs/`
folder does, and the compile then fails at the kernel's initialization,
after the library is built; with a driver, it succeeds. Either way the
profile holds one tree: the compile, the kernel cache, the lowering with its
pass pipeline (whose passes' section lies inside it) and codegen, the
adapter with the wrapper and the nvcc build.

The tests skip, saying why, only when TileLang finds no CUDA toolkit.
"""

from __future__ import annotations

import concurrent.futures
import json
import logging
import os
import subprocess
import sys
import threading
import time

import pytest
import tilelang
import tvm
from tilelang.instrumentation import (
    PassInstrumentationTool,
    compile_pass_instrumentation,
    create_pass_instruments,
    current_compile_pass_instrumentation,
    register_pass_instrumentation_tool,
    unregister_pass_instrumentation_tool,
)

import kernels
import passtiming.tilelang
from timing_helpers import LOGGER, run_cli, seed_report, upstream_instrument_with

SIZE = 512
ARCH = "sm_90a"
PROBE = "passtiming-test-phase-probe"
# What TileLang raises when the library was built but no driver can run it:
# the cython adapter's kernel initialization, NVRTC's loading of the cubin.
NO_DRIVER = ("Initialization failed", "driver")


@pytest.fixture(scope="module")
def cuda_toolkit(tmp_path_factory):
    """TileLang's CUDA_HOME, with an empty libcuda.so on the linker's path
    (LIBRARY_PATH) for the duration of the module."""
    from tilelang import env

    home = env.CUDA_HOME
    nvcc = os.path.join(home or "", "bin", "nvcc")
    if not home or not os.access(nvcc, os.X_OK):
        pytest.skip(
            f"no CUDA toolkit: TileLang found no nvcc (CUDA_HOME={home!r}); the TileLang "
            "environment (scripts/python/tilelang.txt) installs pip's nvidia-cuda-nvcc"
        )
    stubs = tmp_path_factory.mktemp("cuda-stubs")
    stub = str(stubs / "libcuda.so")
    subprocess.run(["cc", "-shared", "-o", stub, "-x", "c", "/dev/null"], check=True)
    saved = os.environ.get("LIBRARY_PATH")
    os.environ["LIBRARY_PATH"] = os.pathsep.join(p for p in (str(stubs), saved) if p)
    try:
        yield home
    finally:
        if saved is None:
            del os.environ["LIBRARY_PATH"]
        else:
            os.environ["LIBRARY_PATH"] = saved


@pytest.fixture(scope="module", autouse=True)
def fresh_kernel_cache(tmp_path_factory):
    """TileLang's kernel cache in a folder of the module's: no compile here
    finds a kernel an earlier run saved (where a driver lets one run)."""
    from tilelang.cache.kernel_cache import KernelCache

    saved = os.environ.get("TILELANG_CACHE_DIR")
    os.environ["TILELANG_CACHE_DIR"] = str(tmp_path_factory.mktemp("tilelang-cache"))
    KernelCache._create_dirs()
    try:
        yield
    finally:
        if saved is None:
            del os.environ["TILELANG_CACHE_DIR"]
        else:
            os.environ["TILELANG_CACHE_DIR"] = saved


@pytest.fixture(autouse=True)
def disabled_afterwards():
    yield
    passtiming.tilelang.disable()
    unregister_pass_instrumentation_tool(PROBE)


class _ToolProbe(PassInstrumentationTool):
    """Keeps the passtiming tools of each compile it is part of."""

    def __init__(self, seen):
        self.seen = seen

    def create_pass_instrument(self):
        session = current_compile_pass_instrumentation()
        for tool in session.tools:
            if isinstance(tool, passtiming.tilelang.PassTimingTool) and tool not in self.seen:
                self.seen.append(tool)
        return None


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages = []

    def emit(self, record):
        self.messages.append((record.levelname, record.getMessage()))


class Build:
    """One compile: its wall time, TileLang's error (None if it ran), the
    profile written, the passtiming tool that timed it and what it logged."""

    def __init__(self, wall, error, profile, tool, logged, phases_logged=()):
        self.phases_logged = list(phases_logged)
        self.wall = wall
        self.error = error
        self.profile = profile
        self.tool = tool
        self.logged = logged

    @property
    def phases(self):
        return self.profile["phases"]

    def named(self, name):
        return [i for i, p in enumerate(self.phases) if p["name"] == name]

    def children(self, parent):
        return [i for i, p in enumerate(self.phases) if p.get("parent") == parent]

    def root(self):
        [root] = [i for i, p in enumerate(self.phases) if p.get("parent") is None]
        return root


def _cuda_compile(out, prim_func, *, backend="cython", compile_flags=None, name="p"):
    """Compiles `prim_func` for CUDA with passtiming enabled (profile under
    `out`), TileLang's log collected; returns the Build."""
    seen = []
    register_pass_instrumentation_tool(PROBE, lambda: _ToolProbe(seen))
    logger = logging.getLogger(LOGGER)
    handler, saved_level = _Collect(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    phase_logger = logging.getLogger("passtiming.tilelang.phases")
    phase_handler, saved_phase_level = _Collect(), phase_logger.level
    phase_logger.addHandler(phase_handler)
    phase_logger.setLevel(logging.INFO)
    passtiming.tilelang.enable(
        profile=str(out / f"{name}-%n.json"), events=str(out / f"{name}-%n.jsonl")
    )
    target = tvm.target.Target({"kind": "cuda", "arch": ARCH})
    error = None
    start = time.perf_counter()
    try:
        with target:  # NVRTC reads the architecture from the target in scope
            tilelang.compile(
                prim_func,
                out_idx=[2],
                target=target,
                execution_backend=backend,
                compile_flags=compile_flags,
            )
    except Exception as exc:
        error = exc
    finally:
        wall = time.perf_counter() - start
        passtiming.tilelang.disable()
        unregister_pass_instrumentation_tool(PROBE)
        logger.removeHandler(handler)
        logger.setLevel(saved_level)
        phase_logger.removeHandler(phase_handler)
        phase_logger.setLevel(saved_phase_level)
    [profile_path] = [f for f in os.listdir(out) if f.startswith(name) and f.endswith(".json")]
    with open(out / profile_path, encoding="utf-8") as f:
        profile = json.load(f)
    profile["path"] = str(out / profile_path)
    [tool] = [t for t in seen if t._role is not None]
    return Build(wall, error, profile, tool, handler.messages, phase_handler.messages)


@pytest.fixture(scope="module")
def gemm(cuda_toolkit, tmp_path_factory):
    """The GEMM built by nvcc, once for the module."""
    prim_func = kernels.gemm(SIZE, SIZE, SIZE, 128, 128, 32)
    return _cuda_compile(tmp_path_factory.mktemp("gemm"), prim_func)


def _assert_no_driver_or_none(error):
    assert error is None or (
        isinstance(error, Exception) and any(word in str(error) for word in NO_DRIVER)
    ), f"the compile failed before the kernel could run: {error!r}"


def _within(inner, outer):
    """Whether the phase or record `inner` ran within the phase `outer`."""
    length = inner["duration_ns"] if "duration_ns" in inner else inner["inclusive_ns"]
    return outer["start_ns"] <= inner["start_ns"] and inner["start_ns"] + length <= (
        outer["start_ns"] + outer["duration_ns"]
    )


def test_the_gemm_is_one_tree_under_the_compile(gemm):
    _assert_no_driver_or_none(gemm.error)
    phases = gemm.phases
    root = gemm.root()
    assert phases[root]["name"] == "compile" and phases[root]["detail"] == "gemm"
    top = [phases[i]["name"] for i in gemm.children(root)]
    for name in ("kernel cache key", "kernel cache lookup", "lower", "adapter"):
        assert top.count(name) == 1, top
    assert top.index("kernel cache key") < top.index("lower") < top.index("adapter")
    # Every phase lies within its parent, on the compile's thread.
    for phase in phases:
        if phase.get("parent") is not None:
            assert _within(phase, phases[phase["parent"]]), phase
        assert phase["thread"] == phases[root]["thread"]

    [lower] = gemm.named("lower")
    pipelines = [i for i in gemm.children(lower) if phases[i]["name"].startswith("pipeline_")]
    codegen = [i for i in gemm.children(lower) if phases[i]["name"] == "codegen"]
    assert pipelines and codegen
    assert all(phases[i]["detail"].startswith("target.build.") for i in codegen)

    [adapter] = gemm.named("adapter")
    assert phases[adapter]["detail"] == "cython"
    [nvcc] = gemm.named("nvcc")
    assert phases[nvcc]["parent"] == adapter and phases[nvcc]["detail"] == ARCH
    assert not phases[nvcc].get("failed")
    assert phases[nvcc]["duration_ns"] > 0.5e9  # nvcc really compiled the CUDA source
    assert gemm.named("wrapper") and phases[gemm.named("wrapper")[0]]["parent"] == adapter


def test_the_passes_run_inside_their_pipeline(gemm):
    phases = gemm.phases
    [lower] = gemm.named("lower")
    pipelines = [
        phases[i] for i in gemm.children(lower) if phases[i]["name"].startswith("pipeline_")
    ]
    [section] = gemm.profile["sections"]
    assert section["context"] == "stage=jit-lower, kernel=gemm, backend=cython"
    assert section["phase"] == lower  # made in the lowering, on its thread
    top_level = [r for r in section["records"] if r["depth"] == 0]
    assert len(top_level) > 50
    # Every pass in the lowering; all but the few TileLang runs around its
    # backend pipeline (the host/device split, the device module's last
    # passes before codegen) inside the pipeline.
    assert all(_within(record, phases[lower]) for record in top_level)
    in_pipeline = [r for r in top_level if any(_within(r, pipeline) for pipeline in pipelines)]
    assert len(in_pipeline) >= 0.8 * len(top_level)
    assert "tl.LowerTileOp" in {r["name"] for r in in_pipeline}


def test_the_phases_cover_the_compile(gemm):
    phases = gemm.phases
    root = gemm.root()
    covered = sum(phases[i]["duration_ns"] for i in gemm.children(root)) * 1e-9
    root_s = phases[root]["duration_ns"] * 1e-9
    assert root_s <= gemm.wall
    assert covered >= 0.95 * gemm.wall, (covered, gemm.wall)


def test_the_report_is_still_the_seeds(gemm, passtiming_cli):
    tool = gemm.tool
    [context] = tool.contexts
    [timing] = tool.timings
    # Logged once, and rendered as upstream renders the same records.
    [(level, message)] = [m for m in gemm.logged if m[0] == "INFO"]
    assert level == "INFO" and message == "\n" + tool.report()
    assert tool.report() == upstream_instrument_with(timing.records, 0.0).report(context=context)
    for phase in ("nvcc", "adapter", "pipeline_", "kernel cache"):
        assert phase not in message
    # The profile's sections read back to the same report.
    printed = run_cli(passtiming_cli, "report", gemm.profile["path"]).stdout
    assert seed_report(printed) == message[1:] + "\n"


def test_the_tool_shows_the_profiles_phases(gemm):
    assert [(p["name"], p["detail"]) for p in gemm.tool.phases] == [
        (p["name"], p.get("detail", "")) for p in gemm.phases
    ]
    table = gemm.tool.phase_table()
    assert "compile" in table and "nvcc" in table


def test_the_phase_table_is_logged_beside_the_report_once_the_compile_ends(gemm):
    # On a logger of its own: TileLang's keeps the seed's one report.
    assert gemm.phases_logged == [("INFO", "\n" + gemm.tool.phase_table())]
    table = gemm.tool.phase_table()
    assert table.startswith("Phases\nPhase ")
    root = gemm.phases[gemm.root()]
    seconds = f"{root['duration_ns'] / 1e9:.4f}"
    assert "compile" in table.splitlines()[2] and seconds in table.splitlines()[2], table


def test_a_failing_nvcc_build_names_its_phase_and_keeps_tilelangs_error(cuda_toolkit, tmp_path):
    prim_func = kernels.gemm(256, 256, 256, 64, 64, 32)
    build = _cuda_compile(tmp_path, prim_func, compile_flags=["--passtiming-no-such-flag"])
    # TileLang's own error, as it raises it.
    assert isinstance(build.error, RuntimeError)
    assert str(build.error).startswith("Compilation Failed!")
    assert "--passtiming-no-such-flag" in str(build.error)
    phases = build.phases
    failed = [p["name"] for p in phases if p.get("failed")]
    # The innermost failed phase is the build; its ancestors failed with it.
    assert failed == ["compile", "adapter", "nvcc"]
    assert not phases[build.named("lower")[0]].get("failed")
    # What completed before it is kept: the lowering's passes.
    [section] = build.profile["sections"]
    assert len(section["records"]) > 50


def test_a_failing_pass_names_its_phase_and_keeps_the_error(cuda_toolkit, tmp_path, monkeypatch):
    """A pass that raises, as a pass that rejects its input does: the
    compile's error is TileLang's, the phases it stopped in are failed, and
    the passes that completed are written."""

    def fail(mod, ctx):
        raise RuntimeError("passtiming: the pass failed on purpose")

    failing = tvm.transform.module_pass(fail, opt_level=0, name="passtiming.FailingPass")
    monkeypatch.setattr(tilelang.transform, "HoistBroadcastValues", lambda: failing)
    build = _cuda_compile(tmp_path, kernels.gemm(256, 256, 256, 64, 64, 32))
    assert build.error is not None
    assert "the pass failed on purpose" in str(build.error)
    phases = build.phases
    failed = [p["name"] for p in phases if p.get("failed")]
    assert failed and failed[0] == "compile", failed
    # The innermost failed phase holds the failing pass's start; no nvcc ran.
    assert not build.named("nvcc")
    [section] = build.profile["sections"]
    assert len(section["records"]) > 20
    innermost = phases[max(i for i, p in enumerate(phases) if p.get("failed"))]
    assert innermost["name"] != "compile", failed


def test_a_compile_in_each_of_two_threads_keeps_its_own_tree(cuda_toolkit, tmp_path):
    """As the autotuner compiles its configurations: one compile per worker
    thread, at the same time, each its own profile and tree."""
    passtiming.tilelang.enable(profile=str(tmp_path / "t-%n.json"))
    target = tvm.target.Target({"kind": "cuda", "arch": ARCH})
    started = threading.Barrier(2)

    def compile_one(block):
        started.wait()
        prim_func = kernels.gemm(256, 256, 256, block, block, 32)
        with target:
            try:
                tilelang.compile(prim_func, out_idx=[2], target=target, execution_backend="cython")
            except Exception as exc:
                _assert_no_driver_or_none(exc)
        return threading.get_native_id()

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        threads = list(pool.map(compile_one, (64, 128)))
    assert len(set(threads)) == 2
    profiles = []
    for name in sorted(os.listdir(tmp_path)):
        with open(tmp_path / name, encoding="utf-8") as f:
            profiles.append(json.load(f))
    assert len(profiles) == 2
    assert {p["phases"][0]["thread"] for p in profiles} == set(threads)
    for profile in profiles:
        phases = profile["phases"]
        [root] = [p for p in phases if p.get("parent") is None]
        assert root["name"] == "compile"
        # The whole tree on the thread of its root, the passes in its lowering.
        assert {p["thread"] for p in phases} == {root["thread"]}
        assert [p["name"] for p in phases].count("nvcc") == 1
        [section] = profile["sections"]
        assert phases[section["phase"]]["name"] == "lower"
    # The two compiles overlapped in time: they ran at once.
    (a, b) = ([p for p in prof["phases"] if p["name"] == "nvcc"][0] for prof in profiles)
    assert a["start_ns"] < b["start_ns"] + b["duration_ns"]
    assert b["start_ns"] < a["start_ns"] + a["duration_ns"]


def test_nvrtc_builds_the_cubin_in_its_own_phase(cuda_toolkit, tmp_path):
    build = _cuda_compile(tmp_path, kernels.gemm(256, 256, 256, 64, 64, 32), backend="nvrtc")
    _assert_no_driver_or_none(build.error)
    phases = build.phases
    [adapter] = build.named("adapter")
    [nvrtc] = build.named("nvrtc")
    assert phases[adapter]["detail"] == "nvrtc" and phases[nvrtc]["parent"] == adapter
    assert phases[nvrtc]["detail"] == ARCH and not phases[nvrtc].get("failed")
    assert not build.named("nvcc")


def test_a_kernel_cache_hit_is_its_own_phase(tmp_path, monkeypatch):
    """The `c` target runs here, so its kernel is saved to the cache and the
    second compile loads it."""
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path / "cache"))
    from tilelang.cache import _dispatch_map
    from tilelang.cache.kernel_cache import KernelCache

    KernelCache._create_dirs()
    out = tmp_path / "profiles"
    out.mkdir()
    passtiming.tilelang.enable(profile=str(out / "c-%n.json"))
    kernel = kernels.elementwise_add()
    tilelang.compile(kernel, target="c")
    for cache in _dispatch_map.values():
        cache._memory_cache.clear()  # the second compile reads the disk
    tilelang.compile(kernel, target="c")
    first, second = (json.loads((out / name).read_text()) for name in sorted(os.listdir(out)))
    names = [p["name"] for p in first["phases"]]
    assert "kernel cache save" in names and "lower" in names and "kernel cache hit" not in names
    hit = second["phases"]
    names = [p["name"] for p in hit]
    assert "lower" not in names and not second["sections"]
    [lookup] = [i for i, p in enumerate(hit) if p["name"] == "kernel cache lookup"]
    [loaded] = [p for p in hit if p["name"] == "kernel cache hit"]
    assert loaded["parent"] == lookup


def test_a_tool_of_its_own_times_its_compile_and_the_users_phase(cuda_target):
    """Without enable(): a tool given to TileLang's compile session records
    the compile from its first callback, the pipelines, codegen, and a phase
    of the user's."""
    tool = passtiming.tilelang.PassTimingTool()
    with compile_pass_instrumentation(name="mine", tools=[tool], include_default_tools=False):
        with passtiming.tilelang.phase("prepare", "inputs"):
            pass
        instruments = create_pass_instruments(context="stage=mine")
        with tvm.transform.PassContext(opt_level=3, instruments=instruments), cuda_target:
            tilelang.lower(kernels.elementwise_add(), target=cuda_target)
    phases = tool.phases
    assert phases[0]["name"] == "compile" and phases[0]["detail"] == "mine"
    names = [p["name"] for p in phases]
    assert names[1] == "prepare" and phases[1]["detail"] == "inputs"
    assert any(n.startswith("pipeline_") for n in names) and "codegen" in names
    assert all(p["parent"] == 0 for p in phases if p["name"].startswith("pipeline_"))
    assert not any(p["failed"] for p in phases)
    assert tool.records and phases[0]["duration_s"] > 0


def test_a_phase_outside_a_timed_compile_does_nothing():
    with passtiming.tilelang.phase("nothing"):
        pass


def test_passtiming_run_times_the_whole_compile_of_an_unchanged_script(tmp_path, passtiming_cli):
    """`passtiming run -- python`: the start-up hook's enable() wraps the
    front doors, so the script's `tilelang.compile` is one tree."""
    script = tmp_path / "script.py"
    script.write_text(
        f"import sys\nsys.path.insert(0, {os.path.dirname(__file__)!r})\n"
        "import tilelang, kernels\n"
        "tilelang.disable_cache()\n"
        "tilelang.compile(kernels.elementwise_add(), target='c')\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PASSTIMING_PYTHON_PATH"] = os.environ["PASSTIMING_PYTHON_MODULE_DIR"]
    command = [passtiming_cli, "run", "--no-report", "-o", str(tmp_path / "p-%n.json")]
    command += ["--", sys.executable, str(script)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    [profile] = [json.loads(p.read_text()) for p in tmp_path.glob("p-*.json")]
    names = [p["name"] for p in profile["phases"]]
    assert names[0] == "compile" and profile["phases"][0]["detail"] == "add"
    assert "lower" in names and "adapter" in names and "c++" in names
    assert not any(p.get("failed") for p in profile["phases"])
    [section] = profile["sections"]
    assert profile["phases"][section["phase"]]["name"] == "lower"
