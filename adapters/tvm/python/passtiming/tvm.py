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
import numbers
import pathlib
import threading

from . import _passtiming


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


def _float_threshold(value: object, owner: str) -> float:
    """``value`` as a float when it is of a type upstream's ``threshold_ms:
    float`` takes: a real number (float, int, numpy's floats), ``bool``
    excepted. Anything else (a string, a bool, None) raises ``TypeError``
    naming ``owner``, the public name that was called."""
    # bool is an int, but True as 1.0 ms is a mistake, not a threshold.
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{owner}: threshold_ms must be a float, not {type(value).__name__} ({value!r})"
        )
    return float(value)


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


class TileLangPassTimingInstrument(_passtiming.TileLangPassTimingInstrument):
    """Per-pass timing instrument for tilelang compilation pipelines.

    The seed's class, ``passtiming.TileLangPassTimingInstrument``, on real
    TVM: the same records, report and files, and ``instrument`` is a native
    TVM ``PassInstrument``, always the same object; it holds the callback
    state and never this wrapper. ``threshold_ms`` hides the passes faster
    than it from the report (0.0 shows all, and any float is taken as the
    seed takes it; a value that is not a real number, such as ``"1"`` or
    ``True``, raises ``TypeError``).
    """

    def __init__(self, threshold_ms: float = 0.0, *, clock=None, metrics=None, _timing=None):
        # On its own (not a section of a TileLang compile), the instrument
        # writes PASSTIMING_PROFILE and PASSTIMING_EVENTS itself, and records
        # PASSTIMING_METRICS unless `metrics` is given.
        threshold = _float_threshold(threshold_ms, "passtiming.tvm.TileLangPassTimingInstrument")
        super().__init__(threshold, clock=clock, metrics=metrics, _timing=_timing)
        self._native_instrument = _native()(self._sink_address, "TileLangPassTimingInstrument")

    @property
    def instrument(self):
        """The underlying TVM PassInstrument to add to ``PassContext``."""
        return self._native_instrument

    def __repr__(self):
        return (
            f"<passtiming.tvm.TileLangPassTimingInstrument threshold_ms={self.threshold_ms!r} "
            f"records={len(self.records)}>"
        )


__all__ = ["TileLangPassTimingInstrument", "ir_node_count", "ir_structural_hash", "kernel_label"]
