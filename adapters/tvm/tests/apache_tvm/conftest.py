"""Fixtures of the Apache TVM tests, run with the interpreter that has
apache-tvm from PyPI (and no TileLang)."""

from __future__ import annotations

import importlib.metadata
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))

import tvm  # noqa: E402

from tvm_support import Recorder  # noqa: E402

# These tests are about Apache TVM itself: the interpreter must be the one
# with apache-tvm from PyPI, and not TileLang's bundled TVM.
try:
    importlib.metadata.distribution("tilelang")
except importlib.metadata.PackageNotFoundError:
    pass
else:
    raise AssertionError("run these tests in the Apache TVM environment (this one has tilelang)")
assert pathlib.Path(tvm.__file__).parent == pathlib.Path(
    importlib.metadata.distribution("apache-tvm").locate_file("tvm")
), f"tvm was imported from {tvm.__file__}, not from the apache-tvm package"


@pytest.fixture
def recorder():
    return Recorder()


@pytest.fixture
def timing_log(caplog):
    """Captures the `tilelang.pass_timing` logger from DEBUG up."""
    caplog.set_level("DEBUG", logger="tilelang.pass_timing")
    return caplog
