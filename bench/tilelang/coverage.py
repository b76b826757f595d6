"""How much of a real TileLang compile passtiming's phases cover.

Compiles the 512x512x512 fp16 GEMM of examples/tilelang/gemm.py for CUDA
(sm_90a) with `tilelang.compile`, RUNS times per backend, with passtiming
enabled, and prints side by side: the wall time of the whole
`tilelang.compile` call, the root phase passtiming recorded, the sum of the
top-level phases under it, their coverage of the wall time, the share the
passes alone have (all a pass timing tool saw before phases), and each
phase's time. The library is built for real: nvcc for the cython backend, NVRTC for
the nvrtc one. On a machine without a GPU the compile then fails at the
kernel's initialization (or, for NVRTC, the cubin's loading), for lack of a
driver; the outcome column says so, and the build before it is complete.

CUDA is TileLang's (`CUDA_HOME`, else pip's `nvidia-cuda-nvcc`, else
/usr/local/cuda). An empty `libcuda.so`, made here, stands in for the
driver library at link time, as the toolkit's `stubs/` folder does.

    bench/tilelang/coverage.sh [--runs N] [--backends cython,nvrtc] [--size 512]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

_ROOT = pathlib.Path(__file__).resolve().parents[2]


def _arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="compiles per backend (3)")
    parser.add_argument("--backends", default="cython,nvrtc", help="cython,nvrtc (both)")
    parser.add_argument("--size", type=int, default=512, help="M = N = K of the GEMM (512)")
    parser.add_argument("--arch", default="sm_90a", help="the CUDA target's arch (sm_90a)")
    return parser.parse_args()


def _phase_paths(phases):
    """{index: "parent > child"} of every phase."""
    paths = {}
    for index, phase in enumerate(phases):
        name = phase["name"]
        parent = phase.get("parent")
        paths[index] = name if parent is None else f"{paths[parent]} > {name}"
    return paths


def _one_compile(tilelang, tvm, prim_func, backend, arch, profile_dir, number):
    target = tvm.target.Target({"kind": "cuda", "arch": arch})
    before = set(os.listdir(profile_dir))
    start = time.perf_counter()
    outcome = "built"
    try:
        # NVRTC's compile reads the architecture from the target in scope.
        with target:
            tilelang.compile(prim_func, out_idx=[2], target=target, execution_backend=backend)
    except Exception as error:  # the driver, absent here: the library was built before it
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        outcome = f"{type(error).__name__}: {first[:48]}"
    wall = time.perf_counter() - start
    written = sorted(set(os.listdir(profile_dir)) - before)
    assert len(written) == 1, f"expected one profile from compile {number}, found {written}"
    with open(os.path.join(profile_dir, written[0]), encoding="utf-8") as f:
        profile = json.load(f)
    return wall, outcome, profile


def main() -> int:
    args = _arguments()
    work = tempfile.mkdtemp(prefix="passtiming-coverage-")
    # Before TileLang is imported: its kernel cache, in a folder of its own.
    os.environ["TILELANG_CACHE_DIR"] = os.path.join(work, "tilelang-cache")
    stub_dir = os.path.join(work, "stubs")
    os.makedirs(stub_dir)
    subprocess.run(
        ["cc", "-shared", "-o", os.path.join(stub_dir, "libcuda.so"), "-x", "c", "/dev/null"],
        check=True,
    )
    os.environ["LIBRARY_PATH"] = os.pathsep.join(
        p for p in (stub_dir, os.environ.get("LIBRARY_PATH", "")) if p
    )

    import tilelang
    import tvm
    from tilelang import env

    import passtiming.tilelang

    sys.path.insert(0, str(_ROOT / "examples" / "tilelang"))
    from gemm import matmul

    nvcc = os.path.join(env.CUDA_HOME or "", "bin", "nvcc")
    if not os.path.exists(nvcc):
        print(f"coverage: no CUDA toolkit (CUDA_HOME={env.CUDA_HOME!r})", file=sys.stderr)
        return 2
    version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
    print(f"CUDA_HOME {env.CUDA_HOME}")
    print(f"nvcc {version.strip().splitlines()[-1]}")
    print(f"GEMM {args.size}^3 fp16, target cuda {args.arch}, tilelang {tilelang.__version__}")
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores\n")

    profile_dir = os.path.join(work, "profiles")
    os.makedirs(profile_dir)
    passtiming.tilelang.enable(
        profile=os.path.join(profile_dir, "p-%n.json"), report_file=os.path.join(work, "r-%n.txt")
    )
    size = args.size
    rows, phase_times = [], {}
    number = 0
    for backend in args.backends.split(","):
        for run in range(1, args.runs + 1):
            # An empty kernel cache every time: no run is a cache hit.
            for cache in {id(c): c for c in tilelang.cache._dispatch_map.values()}.values():
                cache.clear_cache()
            prim_func = matmul(size, size, size, 128, 128, 32)
            wall, outcome, profile = _one_compile(
                tilelang, tvm, prim_func, backend, args.arch, profile_dir, number
            )
            number += 1
            phases = profile["phases"]
            [root] = [i for i, p in enumerate(phases) if p.get("parent") is None]
            top = [p for p in phases if p.get("parent") == root]
            covered = sum(p["duration_ns"] for p in top) * 1e-9
            root_s = phases[root]["duration_ns"] * 1e-9
            records = [r for section in profile["sections"] for r in section["records"]]
            passes = sum(r["inclusive_ns"] for r in records if r["depth"] == 0) * 1e-9
            share = covered / wall
            rows.append((backend, run, wall, root_s, covered, share, passes / wall, outcome))
            paths = _phase_paths(phases)
            for index, phase in enumerate(phases):
                times = phase_times.setdefault((backend, paths[index]), {})
                times[run] = times.get(run, 0.0) + phase["duration_ns"] * 1e-9

    print(
        f"{'backend':8} {'run':>3} {'compile':>9} {'root':>9} {'phases':>9} {'coverage':>9}"
        f" {'passes':>7}  outcome"
    )
    print(f"{'':8} {'':>3} {'wall (s)':>9} {'(s)':>9} {'(s)':>9} {'':>9} {'alone':>7}")
    for backend, run, wall, root_s, covered, share, passes, outcome in rows:
        print(
            f"{backend:8} {run:>3} {wall:9.3f} {root_s:9.3f} {covered:9.3f}"
            f" {share * 100:8.1f}% {passes * 100:6.1f}%  {outcome}"
        )
    print()
    for backend in args.backends.split(","):
        runs = range(1, args.runs + 1)
        print(f"{backend}: each phase's time (s), summed over phases of one path")
        print(f"  {'phase':58}" + "".join(f" {'run ' + str(r):>8}" for r in runs))
        for (owner, path), times in phase_times.items():
            if owner != backend:
                continue
            depth = path.count(" > ")
            label = "  " * depth + path.rsplit(" > ", 1)[-1]
            cells = (f"{times[r]:8.3f}" if r in times else f"{'-':>8}" for r in runs)
            print(f"  {label:58}" + "".join(f" {cell}" for cell in cells))
        print()
    passtiming.tilelang.disable()
    return 0


if __name__ == "__main__":
    sys.exit(main())
