"""Per-pass timing for compiler pipelines, backed by the passtiming C++ core.

``import passtiming`` is TileLang's ``tilelang.utils.pass_timing`` API: the
same names and behaviour, with the C++ core's state machine, report and
logger behind it. Two submodules plug passtiming into the real hosts:

- ``passtiming.tvm``: ``TileLangPassTimingInstrument`` whose ``.instrument``
  is a native ``tvm.ir.instrument.PassInstrument`` (needs TVM's tvm-ffi);
- ``passtiming.tilelang``: ``PassTimingTool``, ``create_pass_timing_tool``,
  ``enable`` and ``disable`` for TileLang's tool registry.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from . import _passtiming
from ._passtiming import (
    Clock,
    ManualClock,
    RecorderInstrument,
    TileLangPassTimingInstrument,
    __version__,
    build_pass_instruments,
    report_pass_timing_on_exit,
)


@dataclass
class PassTimingRecord:
    """Single completed pass execution record."""

    name: str
    duration_s: float  # inclusive
    depth: int  # nesting depth (0 = top-level)
    self_duration_s: float = 0.0
    sequence: int = 0
    kernel: str = ""


_passtiming._set_record_type(PassTimingRecord)

logger = logging.getLogger("tilelang.pass_timing")

__all__ = [
    "PassTimingRecord",
    "TileLangPassTimingInstrument",
    "build_pass_instruments",
    "report_pass_timing_on_exit",
    "logger",
]
