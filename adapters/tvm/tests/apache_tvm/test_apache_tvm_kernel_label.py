"""Kernel labels read natively from Apache TVM's IRModules equal the seed's
(`seed_reference.seed_kernel_label`), both from `passtiming.tvm.kernel_label`
and in the records of a pass run on the module."""

from __future__ import annotations

import pytest
import tvm
from tvm import relax, tirx

from passtiming.tvm import TileLangPassTimingInstrument, kernel_label
from seed_reference import seed_kernel_label
from tvm_support import RelaxModule, RelaxWithPrivate, scale_kernel, ir_module, prim_func

MODULES = {
    # one function whose global_symbol differs from its GlobalVar's name
    "global-symbol": (lambda: ir_module(("main", prim_func("add_one"))), "add_one"),
    # one function without a global_symbol: the GlobalVar's name_hint
    "name-hint": (lambda: ir_module(("just_hint", prim_func(None))), "just_hint"),
    # several functions, symbols and hints mixed
    "several": (
        lambda: ir_module(
            ("a", prim_func("alpha")),
            ("b", prim_func(None, scale_kernel)),
            ("c", prim_func("gamma")),
        ),
        "alpha +2 more",
    ),
    # the same symbol twice counts once
    "duplicate-symbols": (
        lambda: ir_module(("a", prim_func("dup")), ("b", prim_func("dup", scale_kernel))),
        "dup",
    ),
    "duplicates-and-another": (
        lambda: ir_module(
            ("a", prim_func("dup")),
            ("b", prim_func("dup", scale_kernel)),
            ("c", prim_func("other")),
        ),
        "dup +1 more",
    ),
    # a symbol equal to another function's name_hint is the same name
    "symbol-equals-a-hint": (
        lambda: ir_module(("x", prim_func("shared")), ("shared", prim_func(None, scale_kernel))),
        "shared",
    ),
    "empty": (lambda: tvm.IRModule(), ""),
    # Relax: a public function carries its global_symbol, a private one none
    "relax": (lambda: RelaxModule, "main"),
    "relax-with-private": (lambda: RelaxWithPrivate, None),
    # LegalizeOps adds PrimFuncs named by their op, without global_symbol
    "relax-legalized": (lambda: relax.transform.LegalizeOps()(RelaxModule), None),
    "non-ascii": (lambda: ir_module(("k", prim_func("k\u00e9rnel_\u6f22"))), "k\u00e9rnel_\u6f22"),
}


@pytest.fixture(params=sorted(MODULES), ids=sorted(MODULES))
def module_case(request):
    make, expected = MODULES[request.param]
    return make(), expected


def test_kernel_label_equals_the_seeds(module_case):
    mod, expected = module_case
    assert kernel_label(mod) == seed_kernel_label(mod)
    if expected is not None:
        assert seed_kernel_label(mod) == expected


def test_records_carry_the_seeds_label(module_case, recorder):
    mod, _ = module_case
    timing = TileLangPassTimingInstrument()
    with tvm.transform.PassContext(instruments=[timing.instrument, recorder]):
        tvm.transform.Sequential([tirx.transform.RemoveNoOp()], name="Seq")(mod)
    assert [r.kernel for r in timing.records] == [seed_kernel_label(mod)] * 2
    assert [(r.name, r.depth, r.kernel) for r in timing.records] == recorder.passes


def test_kernel_label_of_things_that_are_not_modules():
    # The seed answers "" for anything without functions, and never raises.
    for value in (None, 0, "text", tirx.const(1, "int32"), prim_func("f")):
        assert kernel_label(value) == seed_kernel_label(value) == ""


@pytest.mark.parametrize(
    "symbol, text", [(5, "5"), (True, "True"), (2.5, "2.5"), (3.0, "3.0"), (1e20, "1e+20")]
)
def test_non_string_global_symbol_is_taken_as_the_seed_takes_it(symbol, text):
    mod = ir_module(("int_symbol", prim_func(None).with_attr("global_symbol", symbol)))
    assert seed_kernel_label(mod) == text
    assert kernel_label(mod) == text
