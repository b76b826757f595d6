"""Shared helpers of the Python module's tests: duck-typed stand-ins for
TVM's PassInfo and IRModule, and a scripted clock."""

from __future__ import annotations

import os
import pathlib

import pytest

import passtiming

# Under CTest the module must be the one just built, not an installed copy.
_expected_dir = os.environ.get("PASSTIMING_PYTHON_MODULE_DIR")
if _expected_dir:
    _actual = pathlib.Path(passtiming.__file__).resolve().parent.parent
    assert _actual == pathlib.Path(_expected_dir).resolve(), (
        f"imported passtiming from {_actual}, expected the build tree {_expected_dir}"
    )


class PassInfo:
    """TVM's PassInfo as the instrument sees it: a name."""

    def __init__(self, name):
        self.name = name


class Function:
    """A function whose attrs may carry a global symbol."""

    def __init__(self, global_symbol=None, attrs=None):
        if attrs is None and global_symbol is not None:
            attrs = {"global_symbol": global_symbol}
        self.attrs = attrs


class GlobalVar:
    def __init__(self, name_hint):
        self.name_hint = name_hint


class Module:
    """An IRModule: `functions` maps keys to functions."""

    def __init__(self, functions):
        self.functions = functions


def module_of(*symbols):
    return Module({GlobalVar(f"gv{i}"): Function(s) for i, s in enumerate(symbols)})


def run_pass(instrument, name, mod=None, body=None):
    """One pass: before, the body (nested passes), after."""
    info = PassInfo(name)
    instrument.run_before_pass(mod, info)
    if body:
        body()
    instrument.run_after_pass(mod, info)


@pytest.fixture
def clock():
    return passtiming.ManualClock()


@pytest.fixture
def timing_log(caplog):
    """Captures the `tilelang.pass_timing` logger from DEBUG up."""
    caplog.set_level("DEBUG", logger="tilelang.pass_timing")
    return caplog
