"""Cost of one pass pair (run_before_pass + run_after_pass) called from Python.

Compares the passtiming module (C++ core) with a pure-Python implementation
of the same algorithm (reference_pass_timing.py). Run with the interpreter the
module was built for, the module on PYTHONPATH:

    PYTHONPATH=build/python /usr/bin/python3 bench/python/pair_cost.py

A repetition runs PassContexts of 100 flat passes each (enter, the pairs,
exit), as a compile does; each figure is the best repetition's time divided by
the number of pairs, in nanoseconds, with the loop's own overhead and the
share of enter/exit included.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import passtiming  # noqa: E402
from reference_pass_timing import ReferenceInstrument  # noqa: E402


class PassInfo:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


class Function:
    __slots__ = ("attrs",)

    def __init__(self, symbol):
        self.attrs = {"global_symbol": symbol}


class Module:
    __slots__ = ("functions",)

    def __init__(self, *symbols):
        self.functions = {f"f{i}": Function(s) for i, s in enumerate(symbols)}


def pair_loop(instrument, mod, infos, contexts, pairs_per_context):
    """Flat pass pairs in `contexts` PassContexts; seconds taken."""
    before = instrument.run_before_pass
    after = instrument.run_after_pass
    start = time.perf_counter()
    for _ in range(contexts):
        instrument.enter_pass_ctx()
        for info in infos[:pairs_per_context]:
            before(mod, info)
            after(mod, info)
        instrument.exit_pass_ctx()
    return time.perf_counter() - start


def best_ns_per_pair(make_instrument, mod, args):
    infos = [PassInfo(f"tl.Pass{i}") for i in range(args.pairs_per_context)]
    best = float("inf")
    for _ in range(args.repeats):
        instrument = make_instrument()
        gc.collect()
        best = min(best, pair_loop(instrument, mod, infos, args.contexts, args.pairs_per_context))
    return best / (args.contexts * args.pairs_per_context) * 1e9


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contexts", type=int, default=2000, help="PassContexts per repetition")
    parser.add_argument("--pairs-per-context", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()

    implementations = {
        "passtiming (C++ core)": lambda: passtiming.TileLangPassTimingInstrument().instrument,
        "pure Python reference": ReferenceInstrument,
    }
    modules = {
        "mod=None": None,
        "mod with 1 function": Module("matmul_kernel"),
        "mod with 3 functions": Module("main_kernel", "helper", "epilogue"),
    }
    print(
        f"python {sys.version.split()[0]}: {args.contexts} contexts x {args.pairs_per_context} "
        f"pass pairs, best of {args.repeats}"
    )
    for mod_name, mod in modules.items():
        for impl_name, make in implementations.items():
            ns = best_ns_per_pair(make, mod, args)
            print(f"{impl_name:<24} {mod_name:<22} {ns:8.1f} ns/pair")


if __name__ == "__main__":
    main()
