"""Apache TVM for the tests: its own passes and IRModules, and a recording
Python PassInstrument that sees what TVM runs."""

from __future__ import annotations

import tvm
from tvm import relax, tirx
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

from seed_reference import seed_kernel_label


@tvm.instrument.pass_instrument
class Recorder:
    """A Python PassInstrument placed in the same PassContext: what TVM
    reports to any instrument, pass by pass."""

    def __init__(self):
        self.events = []  # ("enter",) / ("before", name) / ("after", name) / ("exit",)
        self.passes = []  # (name, depth, seed's kernel label), in the order they began
        self._depth = 0

    def enter_pass_ctx(self):
        self.events.append(("enter",))
        self.passes.clear()
        self._depth = 0

    def exit_pass_ctx(self):
        self.events.append(("exit",))

    def run_before_pass(self, mod, info):
        self.events.append(("before", info.name))
        self.passes.append((info.name, self._depth, seed_kernel_label(mod)))
        self._depth += 1

    def run_after_pass(self, mod, info):
        self.events.append(("after", info.name))
        self._depth -= 1


# --- IRModules ---------------------------------------------------------------


@T.prim_func
def add_one_kernel(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        if i < 32:  # always true: StmtSimplify removes the branch
            B[i] = A[i] + T.float32(1) * T.float32(1)


@T.prim_func
def scale_kernel(A: T.Buffer((8,), "float32")):
    for i in range(8):
        A[i] = A[i] * T.float32(2)


def prim_func(symbol: str | None, body=add_one_kernel):
    """A real PrimFunc with `global_symbol` = `symbol`, or with none."""
    if symbol is None:
        return body.without_attr("global_symbol")
    return body.with_attr("global_symbol", symbol)


def ir_module(*functions) -> tvm.IRModule:
    """An IRModule of (GlobalVar name, function) pairs, in that order."""
    return tvm.IRModule({tvm.ir.GlobalVar(name): function for name, function in functions})


@I.ir_module
class RelaxModule:
    @R.function
    def main(
        x: R.Tensor((4, 4), "float32"), y: R.Tensor((4, 4), "float32")
    ) -> R.Tensor((4, 4), "float32"):
        with R.dataflow():
            a = R.add(x, y)
            b = R.multiply(a, y)
            unused = R.subtract(x, y)  # noqa: F841  (DeadCodeElimination removes it)
            R.output(b)
        return b


@I.ir_module
class RelaxWithPrivate:
    @R.function(private=True)
    def helper(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        return x

    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        return x


def tir_module() -> tvm.IRModule:
    return ir_module(("main", prim_func("add_one")))


def relax_pipeline() -> tvm.transform.Sequential:
    """Relax passes, FuseTIR running nested passes of its own (to depth 4)."""
    return tvm.transform.Sequential(
        [
            relax.transform.LegalizeOps(),
            relax.transform.DeadCodeElimination(),
            relax.transform.FoldConstant(),
            relax.transform.FuseOps(),
            relax.transform.FuseTIR(),
        ],
        name="RelaxPipeline",
    )


def tir_sequential() -> tvm.transform.Sequential:
    return tvm.transform.Sequential(
        [tirx.transform.StmtSimplify(), tirx.transform.RemoveNoOp(), tirx.transform.ConvertSSA()],
        name="TirSequential",
    )
