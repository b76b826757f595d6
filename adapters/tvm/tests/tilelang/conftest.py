"""Fixtures of the real-TileLang tests: TileLang imported once, the kernels,
the CUDA target the lowering pipeline runs for (no GPU is needed to lower),
and the built `passtiming` command."""

from __future__ import annotations

import os
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))

import tilelang  # noqa: E402  (TileLang first: it puts its TVM on sys.path)
import tvm  # noqa: E402

import kernels  # noqa: E402


@pytest.fixture(scope="session")
def cuda_target():
    return tvm.target.Target("cuda")


@pytest.fixture(scope="session")
def passtiming_cli() -> str:
    cli = os.environ.get("PASSTIMING_CLI")
    assert cli and os.path.exists(cli), "PASSTIMING_CLI must name the built passtiming command"
    return cli


def lower(prim_func, target):
    """Lowers `prim_func` with TileLang's own pipeline for `target`."""
    with target:
        return tilelang.lower(prim_func, target=target)


@pytest.fixture
def pass_timing_log(caplog):
    """caplog, receiving the `tilelang.pass_timing` logger from DEBUG up.

    TileLang's package logger (`tilelang`) does not propagate to the root
    logger, where caplog listens; it propagates for the test's duration.
    """
    import logging

    tilelang_logger = logging.getLogger("tilelang")
    saved = tilelang_logger.propagate
    tilelang_logger.propagate = True
    caplog.set_level("DEBUG", logger="tilelang.pass_timing")
    try:
        yield caplog
    finally:
        tilelang_logger.propagate = saved

