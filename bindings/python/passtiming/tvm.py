"""The seed's ``TileLangPassTimingInstrument`` on real TVM.

``TileLangPassTimingInstrument(threshold_ms).instrument`` is TVM's own
``PassInstrument`` object (type ``instrument.PassInstrument``), made by TVM's registered
``instrument.PassInstrument`` function with four C++ callbacks (the
library ``libpasstiming_tvm.so`` next to this file). No Python runs inside a
pass callback: the pass name and the kernel label are read natively from
the ``PassInfo`` and the ``IRModule``.

    import tvm
    from passtiming.tvm import TileLangPassTimingInstrument

    timing = TileLangPassTimingInstrument(threshold_ms=0.0)
    with tvm.transform.PassContext(instruments=[timing.instrument]):
        mod = pipeline(mod)
    timing.print_report("stage=lower")

``metrics="cpu,rss,ir"`` (or ``PASSTIMING_METRICS``) records more than wall
time per pass; ``ir`` counts the module's nodes before and after each pass and
compares their structural hashes (``ir_node_count``, ``ir_structural_hash``).
"""

from __future__ import annotations

import ctypes
import importlib
import logging
import pathlib
import threading

from . import PassTimingRecord, _passtiming

logger = logging.getLogger("tilelang.pass_timing")

_LIBRARY = pathlib.Path(__file__).with_name("libpasstiming_tvm.so")
_CONSTRUCTOR = "instrument.PassInstrument"
_load_lock = threading.Lock()
_make_pass_instrument = None


def _native():
    """``passtiming.tvm.make_pass_instrument``, loading the adapter once.

    tvm-ffi is imported first: the adapter binds to the process's
    ``libtvm_ffi.so`` (TileLang's or Apache TVM's) by its name.
    """
    global _make_pass_instrument
    with _load_lock:
        if _make_pass_instrument is not None:
            return _make_pass_instrument
        try:
            import tvm_ffi
        except ImportError as error:
            raise ImportError(
                "passtiming.tvm needs TVM's tvm-ffi (the apache-tvm-ffi package, which "
                "tilelang and apache-tvm bring)"
            ) from error
        if tvm_ffi.get_global_func(_CONSTRUCTOR, allow_missing=True) is None:
            # TVM registers the constructor when its library loads.
            try:
                importlib.import_module("tvm")
            except ImportError:
                pass
        if tvm_ffi.get_global_func(_CONSTRUCTOR, allow_missing=True) is None:
            raise RuntimeError(
                f"passtiming.tvm: TVM's function '{_CONSTRUCTOR}' is not registered in this "
                "process; import tvm (or tilelang) before creating the instrument"
            )
        if not _LIBRARY.exists():
            raise ImportError(
                f"passtiming.tvm: {_LIBRARY} is missing; build passtiming with the TVM "
                "adapter (PASSTIMING_WITH_TVM, with apache-tvm-ffi installed for the "
                "interpreter it is built for)"
            )
        ctypes.CDLL(str(_LIBRARY))  # registers passtiming.tvm.* with tvm-ffi
        _make_pass_instrument = tvm_ffi.get_global_func("passtiming.tvm.make_pass_instrument")
        return _make_pass_instrument


def kernel_label(mod) -> str:
    """The kernel label the native instrument computes for ``mod``."""
    _native()
    import tvm_ffi

    return str(tvm_ffi.get_global_func("passtiming.tvm.kernel_label")(mod))


def ir_node_count(mod) -> int:
    """The size the ``ir`` metric records for ``mod``: its distinct IR objects
    (statements, expressions, buffers, variables, functions, ...) reachable
    through tvm-ffi's reflection, each counted once; -1 when ``mod`` is no
    object. See docs/tilelang.md for exactly what is counted."""
    _native()
    import tvm_ffi

    return int(tvm_ffi.get_global_func("passtiming.tvm.ir_node_count")(mod))


def ir_structural_hash(mod) -> int | None:
    """tvm-ffi's structural hash of ``mod`` as the ``ir`` metric compares it
    before and after a pass (as a signed 64-bit int), or None when it cannot
    be computed."""
    _native()
    import tvm_ffi

    return tvm_ffi.get_global_func("passtiming.tvm.ir_structural_hash")(mod)


class TileLangPassTimingInstrument:
    """Per-pass timing instrument for tilelang compilation pipelines.

    The seed's class, with the seed's behaviour: ``threshold_ms`` hides the
    passes faster than it from the report (0.0 shows all, and any float is
    taken as the seed takes it). ``instrument`` is a native TVM
    ``PassInstrument``, always the same object; it holds the callback state
    and never this wrapper.
    """

    def __init__(self, threshold_ms: float = 0.0, *, clock=None, metrics=None, _timing=None):
        self._threshold_ms = float(threshold_ms)
        if _timing is None:
            # On its own (not a section of a TileLang compile), the instrument
            # writes PASSTIMING_PROFILE and PASSTIMING_EVENTS itself, and
            # records PASSTIMING_METRICS unless `metrics` is given.
            metrics = _passtiming._metrics_option(metrics, "TileLangPassTimingInstrument: metrics")
            _timing = _passtiming._EventTiming(
                threshold_ms=self._threshold_ms,
                clock=clock,
                files_from_environment=True,
                metrics=metrics,
            )
        self._timing = _timing
        self._instrument = _native()(self._timing.sink_address, "TileLangPassTimingInstrument")

    @property
    def instrument(self):
        """The underlying TVM PassInstrument to add to ``PassContext``."""
        return self._instrument

    @property
    def threshold_ms(self) -> float:
        return self._threshold_ms

    @property
    def records(self) -> list[PassTimingRecord]:
        """The completed records of the last PassContext, sorted by sequence."""
        return self._timing.records

    @property
    def record_metrics(self) -> list[dict]:
        """The metrics of each record, in the order of ``records``: dicts with
        the profile's members (``cpu_ns``, ``cpu_self_ns``, ``rss_start_bytes``,
        ``rss_end_bytes``, ``rss_peak_bytes``, ``ir_before``, ``ir_after``,
        ``ir_changed``, ``instructions``, ``instructions_self``), each present
        only when measured."""
        return self._timing.record_metrics

    @property
    def metrics(self) -> dict:
        """``{"recorded": (names...), "unavailable": {name: reason}}``."""
        return self._timing.metrics

    @property
    def total_duration_s(self) -> float:
        """Sum of the top-level passes' inclusive durations (s)."""
        return self._timing.total_duration_s

    def report(self, context: str | None = None) -> str:
        """Generate a formatted timing report string."""
        return self._timing.report(str(context) if context else None)

    def print_report(self, context: str | None = None):
        """Print the timing report to the logger."""
        logger.info("\n%s", self.report(context=context))

    def __repr__(self):
        return (
            f"<passtiming.tvm.TileLangPassTimingInstrument threshold_ms={self._threshold_ms!r} "
            f"records={self._timing.record_count}>"
        )


__all__ = ["TileLangPassTimingInstrument", "ir_node_count", "ir_structural_hash", "kernel_label"]
