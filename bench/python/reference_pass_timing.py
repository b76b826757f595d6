"""A pure-Python model of the seed's per-pass timing algorithm.

Used only as the baseline of pair_cost.py: it does, per pass, what the
seed documents (a stack of running passes, a sequence counter, inclusive and
self time from time.monotonic(), a kernel label from the module's functions,
one dataclass record per completed pass), written in plain Python.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

_log = logging.getLogger("tilelang.pass_timing")


@dataclass
class Record:
    name: str
    duration_s: float
    depth: int
    self_duration_s: float = 0.0
    sequence: int = 0
    kernel: str = ""


@dataclass
class _Running:
    name: str
    started: float
    depth: int
    sequence: int
    kernel: str
    children_s: float = field(default=0.0)


def module_label(mod) -> str:
    """First function symbol, with '+N more' for the other distinct ones."""
    if mod is None:
        return ""
    try:
        functions = getattr(mod, "functions", None)
        if not functions:
            return ""
        seen: list[str] = []
        for key, function in functions.items():
            attrs = getattr(function, "attrs", None)
            symbol = None if attrs is None else attrs.get("global_symbol")
            if symbol is None:
                symbol = getattr(key, "name_hint", None)
            if symbol is not None and str(symbol) not in seen:
                seen.append(str(symbol))
        if not seen:
            return ""
        return seen[0] if len(seen) == 1 else f"{seen[0]} +{len(seen) - 1} more"
    except Exception:
        return ""


class ReferenceInstrument:
    """TVM's instrument protocol over the stack algorithm."""

    def __init__(self):
        self.records: list[Record] = []
        self._running: list[_Running] = []
        self._next = 0

    def enter_pass_ctx(self):
        self.records.clear()
        self._running.clear()
        self._next = 0

    def exit_pass_ctx(self):
        if self._running:
            names = ", ".join(frame.name for frame in self._running)
            _log.warning("Discarding %d incomplete pass timing frame(s): %s", len(self._running), names)
            self._running.clear()

    def run_before_pass(self, mod, info):
        frame = _Running(info.name, 0.0, len(self._running), self._next, module_label(mod))
        self._next += 1
        self._running.append(frame)
        frame.started = time.monotonic()

    def run_after_pass(self, mod, info):
        now = time.monotonic()
        running = self._running
        if not running or running[-1].name != info.name:
            top = running[-1].name if running else "<none>"
            _log.warning("Ignoring unmatched pass timing callback for %s (expected %s)", info.name, top)
            running.clear()
            return
        frame = running.pop()
        inclusive = now - frame.started
        self.records.append(
            Record(frame.name, inclusive, frame.depth, max(0.0, inclusive - frame.children_s), frame.sequence, frame.kernel)
        )
        if running:
            running[-1].children_s += inclusive
