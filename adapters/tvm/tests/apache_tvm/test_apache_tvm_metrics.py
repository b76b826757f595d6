"""The `ir` metric on Apache TVM: the size of a hand-built module counted
node by node, and whether a pass changed the module, by tvm-ffi's structural
hash, for passes that change it, leave it alone, or rebuild it unchanged."""

from __future__ import annotations

import pytest
import tvm
from tvm import tirx

import passtiming.tvm
from passtiming.tvm import TileLangPassTimingInstrument


def x_plus(constant: int) -> tvm.IRModule:
    """`f(x: int32) { evaluate(x + constant) }`, built object by object.

    Its IR nodes, each a distinct object reachable from the module:
      1 ir.IRModule
      2 ir.DictAttrs        the module's attributes
      3 ir.SourceMap        the module's source map (a field this TVM
                            compares structurally, so it is walked)
      4 ir.GlobalVar "f"    key of `functions` and value of `global_var_map_`
      5 ir.Type             the GlobalVar's `ty`
      6 tirx.PrimFunc
      7 ir.DictAttrs        the function's attributes
      8 relax.FuncType      the function's `ty`
      9 ir.TupleType        its return type
     10 ir.PrimType int32   its parameter type, also the `ty` of x, of the
                            constant and of the sum (one shared object)
     11 ir.TupleType        the function's `ret_type`
     12 tirx.Evaluate
     13 prim.Add
     14 ir.Var x            a parameter and an operand: counted once
     15 ir.IntImm           the constant
    The `span` of every expression is None, and not followed anyway:
    structural equality ignores it.
    """
    x = tirx.Var("x", "int32")
    body = tirx.Evaluate(tirx.Add(x, tirx.IntImm("int32", constant)))
    return tvm.IRModule({"f": tirx.PrimFunc([x], body)})


X_PLUS_NODES = 15
# StmtSimplify turns `x + 0` into `x`: the Add and the IntImm go.
X_NODES = X_PLUS_NODES - 2


@tvm.transform.module_pass(opt_level=0, name="Identity")
def identity(mod, _ctx):
    return mod


@tvm.transform.module_pass(opt_level=0, name="Rebuild")
def rebuild(mod, _ctx):
    """A new module object holding the same function: not a change."""
    return tvm.IRModule(dict(mod.functions))


@tvm.transform.module_pass(opt_level=0, name="AddOne")
def add_one(mod, _ctx):
    """Replaces the function's constant by the next integer: same size, changed."""
    func = mod["f"]
    x = func.params[0]
    old = func.body.value.b.value
    body = tirx.Evaluate(tirx.Add(x, tirx.IntImm("int32", old + 1)))
    return tvm.IRModule({"f": tirx.PrimFunc([x], body)})


def run_with_ir(passes, mod):
    timing = TileLangPassTimingInstrument(metrics="ir")
    with tvm.transform.PassContext(instruments=[timing.instrument]):
        for p in passes:
            mod = p(mod)
    return timing, mod


def by_name(timing):
    return {r.name: m for r, m in zip(timing.records, timing.record_metrics)}


def test_the_size_of_a_hand_built_module_is_its_node_count():
    assert passtiming.tvm.ir_node_count(x_plus(1)) == X_PLUS_NODES
    # The count follows the structure, not the constant's value.
    assert passtiming.tvm.ir_node_count(x_plus(7)) == X_PLUS_NODES


def test_a_value_that_is_no_object_has_no_size():
    assert passtiming.tvm.ir_node_count(None) == -1
    assert passtiming.tvm.ir_node_count(3) == -1


def test_the_instrument_records_sizes_and_changes_around_each_pass():
    timing, _ = run_with_ir(
        [identity, rebuild, add_one, tirx.transform.StmtSimplify()], x_plus(0)
    )
    assert timing.metrics == {"recorded": ("ir",), "unavailable": {}}
    metrics = by_name(timing)
    assert metrics["Identity"] == {
        "ir_before": X_PLUS_NODES, "ir_after": X_PLUS_NODES, "ir_changed": False
    }
    # A new module object is not a change: its structure is the same.
    assert metrics["Rebuild"] == {
        "ir_before": X_PLUS_NODES, "ir_after": X_PLUS_NODES, "ir_changed": False
    }
    # Same size, another constant: a change that no size could show.
    assert metrics["AddOne"] == {
        "ir_before": X_PLUS_NODES, "ir_after": X_PLUS_NODES, "ir_changed": True
    }
    # x + 1 cannot be simplified.
    assert metrics["tirx.StmtSimplify"] == {
        "ir_before": X_PLUS_NODES, "ir_after": X_PLUS_NODES, "ir_changed": False
    }


def test_a_pass_that_simplifies_reports_the_smaller_changed_module():
    timing, simplified = run_with_ir([tirx.transform.StmtSimplify()], x_plus(0))
    assert passtiming.tvm.ir_node_count(simplified) == X_NODES
    assert by_name(timing)["tirx.StmtSimplify"] == {
        "ir_before": X_PLUS_NODES, "ir_after": X_NODES, "ir_changed": True
    }


def test_a_sequential_reports_the_module_before_and_after_all_of_its_passes():
    seq = tvm.transform.Sequential([identity, tirx.transform.StmtSimplify()], name="Outer")
    timing, _ = run_with_ir([seq], x_plus(0))
    records = timing.records
    assert [(r.name, r.depth) for r in records] == [
        ("Outer", 0), ("Identity", 1), ("tirx.StmtSimplify", 1)
    ]
    outer, inner_identity, inner_simplify = timing.record_metrics
    assert outer == {"ir_before": X_PLUS_NODES, "ir_after": X_NODES, "ir_changed": True}
    assert inner_identity["ir_changed"] is False
    assert inner_simplify == outer


def test_the_structural_hash_tells_equal_structures_from_others():
    assert passtiming.tvm.ir_structural_hash(x_plus(1)) == passtiming.tvm.ir_structural_hash(
        x_plus(1)
    )
    assert passtiming.tvm.ir_structural_hash(x_plus(1)) != passtiming.tvm.ir_structural_hash(
        x_plus(2)
    )


def test_without_ir_no_size_is_recorded():
    timing = TileLangPassTimingInstrument(metrics="cpu")
    with tvm.transform.PassContext(instruments=[timing.instrument]):
        tirx.transform.StmtSimplify()(x_plus(0))
    [m] = timing.record_metrics
    assert set(m) == {"cpu_ns", "cpu_self_ns"}


@pytest.mark.parametrize("metrics", ["cpu,ram", ["ir", "size"]])
def test_an_unknown_metric_raises_value_error_naming_the_option(metrics):
    with pytest.raises(ValueError, match=r"^TileLangPassTimingInstrument: metrics: unknown metric"):
        TileLangPassTimingInstrument(metrics=metrics)
