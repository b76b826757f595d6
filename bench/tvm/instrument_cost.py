"""What a pass timing instrument adds to real TVM, per pass execution.

Two modes, each measuring its variants side by side in one process, the
variants interleaved (one measurement of each per round, the order rotated
from round to round):

``sequential`` (default): a ``tvm.transform.Sequential`` of PASSES cheap
real passes (``tirx.transform.RemoveNoOp`` on a one-function module;
``--pass identity``: a Python ``module_pass`` returning its input, each with
a name of its own unless ``--same-name``), run in CONTEXTS fresh
``PassContext``s per measurement with no instrument (``bare``), with a
native instrument whose four callbacks do nothing (``null``: TVM's own price
of calling an instrument), with upstream TileLang's pure-Python instrument
(``tilelang.tools.pass_timing.TileLangPassTimingInstrument``, when tilelang
is installed) and with passtiming's native one
(``passtiming.tvm.TileLangPassTimingInstrument``). Each figure is a
measurement's time divided by its pass executions (PASSES + 1: the
Sequential is a pass too); "added" is a variant's time less bare's in the
same round. Quoted: medians and minima over the rounds, and the ratio
passtiming added / upstream added.

``gemm``: TileLang's own lowering of the tiled GEMM of
adapters/tvm/tests/tilelang/kernels.py for CUDA (no GPU needed), under
``tilelang.instrumentation.compile_pass_instrumentation(tools=[...])`` with
no tool, upstream's ``PassTimingTool`` and passtiming's; wall and CPU time
of each lowering, medians over the rounds. The tools' reports are built (as
``finish`` does) but not shown: the ``tilelang.pass_timing`` logger is set
to WARNING. ``--metrics LIST`` (repeatable) adds a variant of passtiming's
tool recording those metrics (``PassTimingTool(metrics=LIST)``), whose cost
is also given per pass over passtiming's without metrics, and for ``ir`` the
mean module size the passes saw.

Run by bench/tvm/instrument_cost.sh, which picks the interpreter and puts
the built ``passtiming`` on ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]

try:
    import tilelang  # TileLang first: it puts its own TVM on sys.path
except ImportError:
    tilelang = None

import tvm  # noqa: E402
import tvm_ffi  # noqa: E402
from tvm import tirx  # noqa: E402
from tvm.ir import _ffi_instrument_api  # noqa: E402
from tvm.script import tirx as T  # noqa: E402

import passtiming  # noqa: E402
import passtiming.tvm  # noqa: E402


LOAD_AT_START = os.getloadavg()[0]


@T.prim_func
def tiny(A: T.Buffer((16,), "float32")):
    T.func_attr({"global_symbol": "tiny"})
    for i in range(16):
        A[i] = A[i] + T.float32(0)


def environment_line() -> str:
    where = "TileLang's bundled TVM" if tilelang is not None else "Apache TVM"
    tl = f", tilelang {tilelang.__version__}" if tilelang is not None else ""
    return (
        f"{where} {tvm.__version__}, tvm-ffi {tvm_ffi.__version__}{tl}, "
        f"passtiming {passtiming.__version__}, Python {sys.version.split()[0]}, "
        f"load average {LOAD_AT_START:.2f} at the start, {os.getloadavg()[0]:.2f} at the end"
    )


def median_min(values):
    return statistics.median(values), min(values)


# --- sequential ------------------------------------------------------------------


def identity_pass(name):
    @tvm.transform.module_pass(opt_level=0, name=name)
    def identity(mod, _ctx):
        return mod

    return identity


def make_instruments():
    """variant -> (instrument list factory, the timing object or None)."""
    variants = {"bare": (lambda: [], None)}
    # TVM's own price of calling a native instrument: four callbacks that do
    # nothing (tvm-ffi's `testing.nop`), given to TVM's constructor as
    # passtiming gives its own.
    nop = tvm_ffi.get_global_func("testing.nop", allow_missing=True)
    if nop is not None:
        null = _ffi_instrument_api.PassInstrument("NullInstrument", nop, nop, None, nop, nop)
        variants["null"] = (lambda: [null], None)
    if tilelang is not None:
        from tilelang.tools.pass_timing import TileLangPassTimingInstrument as Upstream

        upstream = Upstream()
        variants["upstream"] = (lambda: [upstream.instrument], upstream)
    native = passtiming.tvm.TileLangPassTimingInstrument()
    variants["passtiming"] = (lambda: [native.instrument], native)
    return variants


def sequential(args):
    if args.pass_kind == "removenoop":
        passes = [tirx.transform.RemoveNoOp() for _ in range(args.passes)]
        what = f"{args.passes} x tirx.transform.RemoveNoOp"
    else:
        names = [
            "Identity" if args.same_name else f"Identity{i}" for i in range(args.passes)
        ]
        passes = [identity_pass(name) for name in names]
        what = f"{args.passes} x a Python module_pass returning its input, named " + (
            "alike" if args.same_name else "Identity0, Identity1, ..."
        )
    seq = tvm.transform.Sequential(passes, name="BenchSequential")
    mod = tvm.IRModule({tvm.ir.GlobalVar("tiny"): tiny})
    executions = args.passes + 1
    variants = make_instruments()
    names = list(variants)

    def measure(name):
        instruments = variants[name][0]()
        gc.collect()
        start = time.perf_counter_ns()
        for _ in range(args.contexts):
            with tvm.transform.PassContext(instruments=instruments):
                seq(mod)
        return (time.perf_counter_ns() - start) / (args.contexts * executions) / 1000.0  # µs

    for name in names:  # warm-up, untimed
        measure(name)
    per_pass = {name: [] for name in names}
    for round_index in range(args.rounds):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            per_pass[name].append(measure(name))

    # The instruments recorded what ran.
    for name in names:
        timing = variants[name][1]
        if timing is not None:
            records = timing.records
            assert len(records) == executions, (name, len(records))
            assert records[0].name == "BenchSequential" and records[1].kernel == "tiny", records[:2]

    print(environment_line())
    print(
        f"{what} in one Sequential on a one-function module: {executions} pass executions per "
        f"PassContext, {args.contexts} PassContexts per measurement, {args.rounds} rounds "
        "(variants interleaved, order rotated)"
    )
    print(f"{'variant':<12} {'per pass: median':>17} {'min':>9}   {'added: median':>14} {'min':>9}")
    added = {}
    for name in names:
        med, low = median_min(per_pass[name])
        if name == "bare":
            print(f"{name:<12} {med:>14.3f} us {low:>6.3f} us")
            continue
        diffs = [v - b for v, b in zip(per_pass[name], per_pass["bare"])]
        added[name] = (statistics.median(diffs), low - min(per_pass["bare"]), diffs)
        print(
            f"{name:<12} {med:>14.3f} us {low:>6.3f} us   {added[name][0]:>11.3f} us "
            f"{added[name][1]:>6.3f} us"
        )
    print("(added: a variant's time per pass less bare's in the same round, median over rounds; "
          "min: the variant's fastest round less bare's fastest)")
    if "null" in added:
        over_null = statistics.median(
            p - n for p, n in zip(per_pass["passtiming"], per_pass["null"])
        )
        print(
            f"passtiming over null (its own callbacks' work): {over_null:.3f} us per pass (median)"
        )
    if "upstream" in added:
        pt_med, pt_min, pt_diffs = added["passtiming"]
        up_med, up_min, up_diffs = added["upstream"]
        ratio = pt_med / up_med
        per_round = statistics.median(p / u for p, u in zip(pt_diffs, up_diffs))
        print(
            f"passtiming added / upstream added: {ratio:.4f} (medians), "
            f"{pt_min / up_min:.4f} (minima), "
            f"{per_round:.4f} (median of per-round ratios)"
        )
        # Per pass execution, with each PassContext's own cost (entering and
        # leaving it) spread over its passes: a real TileLang lowering runs
        # 78-86 passes per context, hence the figure at 80.
        print(
            f"ratio at {args.passes} passes per PassContext, {args.contexts} PassContexts per "
            f"measurement: {ratio:.4f} (medians)"
        )
        for target in (0.10, 0.05):
            verdict = "met" if ratio <= target else "NOT met"
            print(f"target: passtiming's added cost per pass at most {target:.2f} of upstream's: "
                  f"{verdict}")
    else:
        print("upstream's instrument: not measured (no tilelang in this environment)")


# --- gemm -------------------------------------------------------------------------


def gemm(args):
    if tilelang is None:
        sys.exit("instrument_cost.py gemm: needs tilelang (run it in the tilelang environment)")
    sys.path.insert(0, str(ROOT / "adapters" / "tvm" / "tests" / "tilelang"))
    import kernels
    import passtiming.tilelang
    from tilelang.instrumentation import compile_pass_instrumentation, create_pass_instruments
    from tilelang.tools.pass_timing import PassTimingTool as UpstreamTool

    logging.getLogger("tilelang.pass_timing").setLevel(logging.WARNING)
    target = tvm.target.Target("cuda")
    func = kernels.gemm()
    tools = {
        "bare": lambda: [],
        "upstream": lambda: [UpstreamTool()],
        "passtiming": lambda: [passtiming.tilelang.PassTimingTool()],
    }
    for spec in args.metrics:
        tools[f"pt+{spec}"] = lambda spec=spec: [passtiming.tilelang.PassTimingTool(metrics=spec)]
    names = list(tools)
    counts = {}
    ir_sizes = {}

    def lower(name):
        made = tools[name]()
        gc.collect()
        start, start_cpu = time.perf_counter(), time.process_time()
        with compile_pass_instrumentation(name="gemm", tools=made):
            instruments = create_pass_instruments(context="stage=lower, kernel=gemm")
            with tvm.transform.PassContext(opt_level=3, instruments=instruments), target:
                tilelang.lower(func, target=target)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - start_cpu
        if made:
            counts[name] = len(made[0].records)
            if name.startswith("pt+"):
                sizes = [m["ir_before"] for timing in made[0].timings
                         for m in timing.record_metrics if "ir_before" in m]
                if sizes:
                    ir_sizes[name] = statistics.mean(sizes)
        return elapsed, cpu

    for name in names:  # warm-up, untimed
        lower(name)
    walls = {name: [] for name in names}
    cpus = {name: [] for name in names}
    for round_index in range(args.rounds):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            wall, cpu = lower(name)
            walls[name].append(wall)
            cpus[name].append(cpu)

    assert counts["upstream"] == counts["passtiming"] > 0, counts
    assert all(counts[name] == counts["passtiming"] for name in counts), counts
    executions = counts["passtiming"]
    print(environment_line())
    print(
        f"tilelang.lower of kernels.gemm() (256x256x256, 64x64x32 tiles, 3 stages) for CUDA: "
        f"{executions} pass executions per lowering, {args.rounds} rounds "
        "(variants interleaved, order rotated)"
    )
    for label, times in (("wall", walls), ("cpu", cpus)):
        print(
            f"{label + ':':<12} {'median':>10} {'min':>10}   {'added: median':>14} {'per pass':>10}"
        )
        for name in names:
            med, low = median_min(times[name])
            if name == "bare":
                print(f"{name:<12} {med * 1e3:>7.2f} ms {low * 1e3:>7.2f} ms")
                continue
            added = statistics.median(v - b for v, b in zip(times[name], times["bare"]))
            print(
                f"{name:<12} {med * 1e3:>7.2f} ms {low * 1e3:>7.2f} ms   {added * 1e3:>11.2f} ms "
                f"{added / executions * 1e6:>7.1f} us"
            )
        spread = statistics.quantiles(times["bare"], n=4, method="inclusive")
        print(f"(bare's interquartile range: {(spread[2] - spread[0]) * 1e3:.2f} ms)")
    print(
        "(added: a variant's time less bare's in the same round, median over rounds; "
        "cpu: the process's CPU time)"
    )
    if ir_sizes:
        counting_cost(func, target)
    for name in names:
        if not name.startswith("pt+"):
            continue
        over = {
            label: statistics.median(v - p for v, p in zip(times[name], times["passtiming"]))
            for label, times in (("wall", walls), ("cpu", cpus))
        }
        size = ""
        if name in ir_sizes:
            size = f", mean IR size before a pass {ir_sizes[name]:.0f} nodes"
        print(
            f"metrics {name[3:]}: over passtiming without metrics {over['wall'] * 1e3:.2f} ms "
            f"wall, {over['cpu'] * 1e3:.2f} ms cpu per lowering; "
            f"{over['wall'] / executions * 1e6:.1f} us wall, "
            f"{over['cpu'] / executions * 1e6:.1f} us cpu per pass{size}"
        )


def counting_cost(func, target):
    """What the ir metric's two measures cost on the modules the GEMM's
    passes see: each module a pass begins with is kept (by a Python
    instrument, in one more lowering), then counted and hashed 20 times."""
    modules = []

    @tvm.instrument.pass_instrument
    class Keep:
        def run_before_pass(self, mod, _info):
            modules.append(mod)

    with tvm.transform.PassContext(opt_level=3, instruments=[Keep()]), target:
        tilelang.lower(func, target=target)
    costs = {}
    for measure in (passtiming.tvm.ir_node_count, passtiming.tvm.ir_structural_hash):
        per_module = []
        for mod in modules:
            measure(mod)
            start = time.perf_counter_ns()
            for _ in range(20):
                measure(mod)
            per_module.append((time.perf_counter_ns() - start) / 20 / 1000.0)
        costs[measure.__name__] = statistics.mean(per_module)
    sizes = [passtiming.tvm.ir_node_count(mod) for mod in modules]
    print(
        f"ir measures on the {len(modules)} modules the passes begin with (mean "
        f"{statistics.mean(sizes):.0f} nodes, max {max(sizes)}), each called from Python 20 "
        f"times: ir_node_count {costs['ir_node_count']:.1f} us, ir_structural_hash "
        f"{costs['ir_structural_hash']:.1f} us a module; both, before and after a pass: "
        f"{2 * sum(costs.values()):.1f} us per pass"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", nargs="?", choices=["sequential", "gemm"], default="sequential")
    parser.add_argument("--passes", type=int, default=200, help="passes in the Sequential (200)")
    parser.add_argument("--pass", dest="pass_kind", choices=["removenoop", "identity"],
                        default="removenoop", help="the cheap pass (removenoop)")
    parser.add_argument("--same-name", action="store_true",
                        help="--pass identity: every pass named Identity "
                        "(default: Identity0, Identity1, ...)")
    parser.add_argument("--contexts", type=int, default=5,
                        help="PassContexts per measurement (5)")
    parser.add_argument("--rounds", type=int, default=None,
                        help="rounds (sequential: 101, gemm: 15)")
    parser.add_argument("--metrics", action="append", default=[],
                        help="gemm: a variant recording these metrics, e.g. cpu,rss or ir "
                        "(repeatable)")
    args = parser.parse_args()
    if args.mode == "sequential":
        args.rounds = args.rounds or 101
        sequential(args)
    else:
        args.rounds = args.rounds or 15
        gemm(args)


if __name__ == "__main__":
    main()
