"""passtiming as a TileLang instrumentation tool.

A drop-in for ``tilelang.tools.pass_timing``: ``PassTimingTool`` is a real
``tilelang.instrumentation.PassInstrumentationTool`` with upstream's
interface, and ``create_pass_timing_tool`` turns on exactly as upstream's
does (``tl.pass_profile`` / ``TILELANG_PASS_PROFILE``, with the threshold from
``tl.pass_profile_threshold_ms`` / ``TILELANG_PASS_PROFILE_THRESHOLD_MS``).
The instruments it makes are native (``passtiming.tvm``).

``enable()`` registers passtiming in TileLang's tool registry, so that every
later ``tilelang.compile``, ``tilelang.lower``, ``@tilelang.jit`` and
autotuner compile is timed, its report logged on ``tilelang.pass_timing``,
and, when asked, a JSON profile and an event log written per compile:

    import passtiming.tilelang
    passtiming.tilelang.enable(profile="profiles/tl-%p-%n.json")

While enabled, TileLang's own switch (``tl.pass_profile`` /
``TILELANG_PASS_PROFILE``) makes passtiming's tool too, so a compile it turns
on is still reported once.

A compile is also a tree of phases, recorded into its profile beside the
passes: the whole compile (the root), the kernel cache, the lowering and
each pass pipeline in it (``pipeline_scope``), codegen (``run_codegen``), the
adapter and the library build (nvcc, NVRTC, hipcc). ``phase(name)`` adds one
of the user's own to the compile running on this thread.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import importlib
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING

from tilelang.instrumentation import (
    PassInstrumentationTool,
    current_compile_pass_instrumentation,
    current_pass_instrument_context,
    register_pass_instrumentation_tool,
    unregister_pass_instrumentation_tool,
)

from . import PassTimingRecord, _passtiming
from .tvm import TileLangPassTimingInstrument, _float_threshold

if TYPE_CHECKING:  # the annotation only: a TileLang without it still imports this
    from tilelang.instrumentation import CodegenEvent

logger = logging.getLogger("tilelang.pass_timing")
# The phase table of each compile (docs/tilelang.md#the-whole-compile-phases).
phase_logger = logging.getLogger("passtiming.tilelang.phases")

TOOL_NAME = "passtiming"
"""The name passtiming registers under in TileLang's tool registry."""

PROFILE_ENV = "PASSTIMING_PROFILE"
EVENTS_ENV = "PASSTIMING_EVENTS"
METRICS_ENV = "PASSTIMING_METRICS"

def _metrics_list(metrics, option: str) -> str:
    """``metrics`` (else ``PASSTIMING_METRICS``) as the normalised list the
    session takes ("" for none); a bad name raises ValueError naming
    ``option`` or the variable."""
    if metrics is None:
        return _passtiming._metrics_option(os.environ.get(METRICS_ENV, ""), METRICS_ENV)
    return _passtiming._metrics_option(metrics, option)


def _output_path(pattern: str | None, number: int) -> str | None:
    """`pattern` with %p, %n and %% expanded (None for none)."""
    if not pattern:
        return None
    return _passtiming.expand_path_pattern(pattern, os.getpid(), number)


def _checked_path(name: str, pattern: str) -> str:
    """`pattern` when the file it names can be made, else a ValueError that
    starts with `name` (the option or the variable) and names the path."""
    path = _passtiming.expand_path_pattern(pattern, os.getpid(), 0)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise ValueError(f"{name}={pattern!r}: the directory {directory!r} does not exist")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise ValueError(f"{name}={pattern!r}: the directory {directory!r} is not writable")
    if os.path.isdir(path):
        raise ValueError(f"{name}={pattern!r} is a directory")
    return pattern


def _checked_pattern(
    owner: str, setting: str, pattern, env_name: str | None = None, *, empty_ok: bool = False
) -> str | None:
    """The file pattern a tool uses: `pattern`, else (when it is None) the
    variable `env_name`; checked now, so a path that cannot be written fails
    before any compile with a ValueError naming the option ("OWNER:
    SETTING") or the variable ("OWNER: VARIABLE"), and the path. None: no
    file."""
    if pattern is None:
        value = os.environ.get(env_name) if env_name else None
        return _checked_path(f"{owner}: {env_name}", value) if value else None
    pattern = os.fspath(pattern)
    if not pattern:
        if empty_ok:
            return None
        raise ValueError(f"{owner}: {setting} is an empty path")
    return _checked_path(f"{owner}: {setting}", pattern)


ROOT_PHASE = "compile"
"""The name of a compile's root phase."""


class _Compile:
    """One timed compile: its session (sections, phases, files), the number
    ``%n`` gave it, and its root phase, open from the compile's start."""

    def __init__(self, patterns, *, metrics: str, threshold_ms, detail: str):
        profile, events, report_file = patterns
        number = _passtiming.next_compile_number()  # %n: shared by every source
        self.threshold_ms = threshold_ms
        self.report_file = _output_path(report_file, number)
        self.session = _passtiming._Session(
            _output_path(profile, number),
            _output_path(events, number),
            metrics=metrics,
            threshold_ms=threshold_ms,
        )
        self.root = self.session.begin_phase(ROOT_PHASE, detail)
        self._ended = False

    @contextlib.contextmanager
    def phase(self, name: str, detail: str = "") -> Iterator[int]:
        """A phase around the body, on the calling thread; one the body leaves
        by an exception is marked failed (the exception goes on)."""
        index = self.session.begin_phase(name, detail)
        failed = True
        try:
            yield index
            failed = False
        finally:
            self.session.end_phase(index, failed)

    def end(self, error: BaseException | None) -> None:
        """Ends the root (failed when `error`), writes the profile and closes
        the event log, once."""
        if self._ended:
            return
        self._ended = True
        try:
            self.session.end_phase(self.root, error is not None)
            # Beside the passes' report, on a logger of its own, so that
            # `tilelang.pass_timing` logs the seed's one message a compile:
            # where the compile's time went, now that its root has ended.
            if phase_logger.isEnabledFor(logging.INFO):
                table = self.session.phase_table()
                if table:
                    phase_logger.info("\n%s", table)
        finally:
            self.session.close_outputs()


# The compile that enable()'s hooks on TileLang's front doors opened in this
# execution context (thread), if any.
_current_compile: ContextVar[_Compile | None] = ContextVar(
    "passtiming_tilelang_compile", default=None
)


class PassTimingTool(PassInstrumentationTool):
    """Per-compile owner of timing callbacks and their combined report.

    Upstream's interface and behaviour: one ``TileLangPassTimingInstrument``
    per PassContext (``create_pass_instrument``), ``timings``, ``contexts``,
    ``records``, ``report()`` (one section per PassContext, joined by an
    empty line; "" with none), ``print_report()`` and ``finish(error)``,
    which logs the report once. Beyond upstream: ``profile`` and ``events``
    (default: ``PASSTIMING_PROFILE`` and ``PASSTIMING_EVENTS``) are file
    patterns (%p: pid, %n: this compile's number in the process) for the
    compile's JSON profile, written by ``finish``, and its event log,
    streamed while the compile runs and readable even if it crashes; a
    tool that no callback of its compile reaches writes neither (with
    ``enable()``, every compile writes its own, a kernel-cache hit's holding
    its phases only). ``report_file`` (a pattern likewise) sends the report
    to that file instead of the log (``passtiming run`` prints it when the
    script ends).
    ``metrics`` (default: ``PASSTIMING_METRICS``; "cpu,rss" or an iterable of
    names from cpu, rss, ir, instructions) are recorded per pass into the
    profile, the event log and each timing's ``record_metrics``; an unknown
    name raises ``ValueError`` naming the option or the variable.

    The arguments and the variables are read and checked when the tool is
    made: a ``threshold_ms`` that is not a real number (``"1"``, ``True``)
    raises ``TypeError``, a path whose directory is missing or not writable
    ``ValueError``, each naming ``PassTimingTool`` and the option, or the
    variable, and the path.

    Beyond the passes, the tool records the compile's phases (``phases``,
    ``phase_table()``, the profile's ``"phases"``): a root phase
    ``"compile"``, from the compile's start (with ``enable()``: the call of
    ``tilelang.compile``, ``@tilelang.jit``'s compile or the kernel cache;
    else the tool's first callback) to ``finish``; each backend pass
    pipeline (``pipeline_scope``, named as TileLang names it, e.g.
    ``pipeline_cuda``); each codegen call (``run_codegen``: ``"codegen"``,
    with TileLang's codegen function as its detail); and, through hooks on
    TileLang installed when a tool is made or ``enable()`` is called (inert
    outside a timed compile), the kernel cache, the lowering, the adapter,
    the wrapper, the library build (``"nvcc"``, ``"nvrtc"``, ``"hipcc"``)
    and its loading, and Python's full garbage collections. ``phase(name,
    detail)`` adds one. A phase an exception
    leaves is marked failed, and so is the root of a compile that fails; the
    exception is TileLang's, unchanged.
    """

    # Timing starts before, and finishes before, later instrument callbacks so
    # their reporting/snapshot overhead is excluded from pass duration.
    pass_instrument_priority = -100

    def __init__(
        self,
        threshold_ms: float = 0.0,
        *,
        profile: str | None = None,
        events: str | None = None,
        report_file: str | None = None,
        metrics=None,
    ):
        owner = "PassTimingTool"
        _float_threshold(threshold_ms, owner)
        self._setup(
            threshold_ms,
            profile=_checked_pattern(owner, "profile", profile, PROFILE_ENV, empty_ok=True),
            events=_checked_pattern(owner, "events", events, EVENTS_ENV, empty_ok=True),
            report_file=_checked_pattern(owner, "report_file", report_file, empty_ok=True),
            metrics=_metrics_list(metrics, f"{owner}: metrics"),
        )

    @classmethod
    def _configured(cls, threshold_ms, *, profile, events, report_file, metrics, role=None):
        """A tool of settings already checked and resolved (``enable()``'s):
        none is checked again, so an output that became unwritable since is
        logged when the compile ends and never fails the compile."""
        tool = cls.__new__(cls)
        tool._setup(
            threshold_ms, profile=profile, events=events, report_file=report_file, metrics=metrics
        )
        tool._role = role
        return tool

    def _setup(self, threshold_ms, *, profile, events, report_file, metrics) -> None:
        self.threshold_ms = threshold_ms
        self._metrics = metrics
        self._runs: list[tuple[str | None, TileLangPassTimingInstrument]] = []
        self._finished = False
        self._patterns = (profile, events, report_file)
        # _REGISTERED: the tool enable() adds to every compile, which stands
        # aside in a compile that also has a _SWITCH tool (made by
        # TileLang's own switch while enabled), so that compile is reported
        # once, with the switch's threshold.
        self._role = None
        # The native timing of each PassContext, in the order of _runs.
        self._sections: list = []
        # The compile this tool records into: the one enable()'s hooks opened
        # when the compile started (shared, closed by the hook), else its own,
        # opened with its first callback, so that a tool that is never used
        # writes no file and takes no compile number.
        self._compile: _Compile | None = None
        self._owns_compile = False
        _install_hooks()

    @property
    def _session(self):
        return self._compile.session if self._compile is not None else None

    @property
    def _report_file(self):
        return self._compile.report_file if self._compile is not None else None

    def _timed_compile(self) -> _Compile:
        """The compile this tool records into, opened now if need be."""
        if self._compile is None:
            outer = _current_compile.get()
            # Only the tools passtiming makes (enable()'s, the switch's) share
            # the compile enable()'s hooks opened: its files are theirs.
            if outer is not None and self._role is not None:
                self._compile = outer
            else:
                session = current_compile_pass_instrumentation()
                name = getattr(session, "name", None)
                self._compile = _Compile(
                    self._patterns,
                    metrics=self._metrics,
                    threshold_ms=self.threshold_ms,
                    detail="" if name is None else str(name),
                )
                self._owns_compile = True
        return self._compile

    def _stands_aside(self) -> bool:
        """Whether this is enable()'s tool in a compile that TileLang's own
        switch also times with passtiming (its tool reports instead)."""
        if self._role != _REGISTERED:
            return False
        session = current_compile_pass_instrumentation()
        tools = getattr(session, "tools", ())
        return any(tool is self for tool in tools) and any(
            getattr(tool, "_role", None) == _SWITCH for tool in tools
        )

    def create_pass_instrument(self) -> object:
        if self._stands_aside():
            return None
        context = current_pass_instrument_context()
        session = self._timed_compile().session
        section = session.new_section("" if context is None else str(context))
        timing = TileLangPassTimingInstrument(threshold_ms=self.threshold_ms, _timing=section)
        self._runs.append((context, timing))
        self._sections.append(section)
        return timing.instrument

    def pipeline_scope(self, base_phase: str) -> contextlib.AbstractContextManager[None]:
        """One backend pass pipeline, as a phase named ``base_phase``; its
        passes are timed inside it."""
        if self._stands_aside():
            return contextlib.nullcontext()
        return self._timed_compile().phase(str(base_phase))

    def run_codegen(self, event: CodegenEvent, next_call: Callable[[], object]) -> object:
        """One codegen call (device or host), as a phase ``"codegen"`` whose
        detail is TileLang's codegen function; calls ``next_call`` once."""
        if self._stands_aside():
            return next_call()
        with self._timed_compile().phase("codegen", str(getattr(event, "name", ""))):
            return next_call()

    @contextlib.contextmanager
    def phase(self, name: str, detail: str = "") -> Iterator[None]:
        """A phase of this tool's compile around the body, on the calling
        thread, nested in the phase that thread has open; failed when the
        body raises (the exception goes on)."""
        with self._timed_compile().phase(str(name), str(detail)):
            yield

    @property
    def phases(self) -> list[dict]:
        """The compile's phases so far, a parent before its children: dicts
        of ``name``, ``detail``, ``parent`` (an index, None for the root),
        ``thread``, ``start_s``, ``duration_s``, ``cpu_s`` and ``failed``.
        [] before the compile's first phase."""
        return self._session.phases if self._session is not None else []

    def phase_table(self) -> str:
        """The phase table of the compile so far: each phase's time and its
        share of the root, "untimed" included ("" before any phase)."""
        return self._session.phase_table() if self._session is not None else ""

    @property
    def timings(self) -> tuple[TileLangPassTimingInstrument, ...]:
        return tuple(timing for _, timing in self._runs)

    @property
    def contexts(self) -> tuple[str | None, ...]:
        return tuple(context for context, _ in self._runs)

    @property
    def records(self) -> list[PassTimingRecord]:
        return [record for _, timing in self._runs for record in timing.records]

    @property
    def metrics(self) -> dict:
        """``{"recorded": (names...), "unavailable": {name: reason}}``: what the
        records carry besides wall time (the asked metrics until the first
        PassContext, when the machine is asked)."""
        if self._session is not None:
            return self._session.metrics
        names = tuple(name for name in self._metrics.split(",") if name)
        return {"recorded": names, "unavailable": {}}

    @property
    def profile_path(self) -> str | None:
        """The JSON profile this compile writes, if any (None before its first PassContext)."""
        return self._session.profile_path if self._session else None

    @property
    def events_path(self) -> str | None:
        """The event log this compile streams, if any (None before its first PassContext)."""
        return self._session.events_path if self._session else None

    def report(self) -> str:
        """Generate one compile report containing one section per PassContext."""
        if self._compile is not None and self._compile.threshold_ms != self.threshold_ms:
            # A session shared with enable()'s tool: its sections carry
            # enable()'s threshold, the report this tool's.
            return "\n\n".join(
                section.report(context=context, threshold_ms=self.threshold_ms)
                for (context, _), section in zip(self._runs, self._sections)
            )
        return "\n\n".join(timing.report(context=context) for context, timing in self._runs)

    def print_report(self) -> None:
        """Print all PassContext timing sections in one logger call."""
        if self._runs:
            logger.info("\n%s", self.report())

    def finish(self, error: BaseException | None) -> None:
        """Log the report once; then end the root phase (failed with
        `error`), write the profile and close the event log.

        As upstream, an error raised while reporting propagates (TileLang's
        session never lets it hide the compile's own error); the files are
        written whatever happens. A compile opened by enable()'s hooks ends
        when its front door returns, after the kernel cache has saved it.
        """
        if self._finished:
            return
        self._finished = True
        try:
            if self._report_file is None:
                self.print_report()
            elif self._runs:
                _write_text(self._report_file, self.report() + "\n")
        finally:
            if self._owns_compile:
                self._compile.end(error)


def _write_text(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as error:
        logger.error("could not write the pass timing report %s: %s", path, error)


def create_pass_timing_tool(
    pass_configs: Mapping[object, object] | None,
) -> PassTimingTool | None:
    """Create the per-compile timing tool when config or environment enables it."""
    from tilelang import env
    from tilelang.env import resolve_pass_profile_threshold_ms
    from tilelang.transform import PassConfigKey

    pass_configs = pass_configs or {}
    if not (pass_configs.get(PassConfigKey.TL_PASS_PROFILE) or env.is_pass_profile_enabled()):
        return None
    threshold_ms = resolve_pass_profile_threshold_ms(
        pass_configs,
        PassConfigKey.TL_PASS_PROFILE_THRESHOLD_MS,
        env.get_pass_profile_threshold_ms,
    )
    return PassTimingTool(threshold_ms=threshold_ms)


_REGISTERED = "registered"
_SWITCH = "switch"
_THRESHOLD_ENV = "TILELANG_PASS_PROFILE_THRESHOLD_MS"

# enable()'s checked settings while enabled, else None.
_enabled_settings: dict | None = None
_patch_lock = threading.Lock()
# (module, attribute, upstream's function) for each name replaced by enable().
_patched: list[tuple[object, str, object]] = []

# Where upstream defines create_pass_timing_tool (the second is its older
# home, a re-export); TileLang's JIT and autotuner import it by name from
# there, so every loaded tilelang module holding it gets passtiming's.
_UPSTREAM_MODULES = ("tilelang.tools.pass_timing", "tilelang.utils.pass_timing")
_SWITCH_FUNCTION = "create_pass_timing_tool"


def _tool_for_tilelangs_switch(pass_configs):
    """What TileLang's ``create_pass_timing_tool`` gives while passtiming is
    enabled: when ``tl.pass_profile`` or ``TILELANG_PASS_PROFILE`` turns
    timing on, passtiming's tool with enable()'s files and metrics, and
    TileLang's threshold when it sets one (the config key, else
    ``TILELANG_PASS_PROFILE_THRESHOLD_MS``), else enable()'s; None when
    timing is off. enable()'s own tool stands aside in that compile."""
    settings = _enabled_settings
    if settings is None:  # disabled while a caller held this function
        return create_pass_timing_tool(pass_configs)
    from tilelang import env
    from tilelang.env import resolve_pass_profile_threshold_ms
    from tilelang.transform import PassConfigKey

    pass_configs = pass_configs or {}
    if not (pass_configs.get(PassConfigKey.TL_PASS_PROFILE) or env.is_pass_profile_enabled()):
        return None
    threshold_key = PassConfigKey.TL_PASS_PROFILE_THRESHOLD_MS
    if threshold_key in pass_configs or os.environ.get(_THRESHOLD_ENV, "").strip():
        threshold_ms = resolve_pass_profile_threshold_ms(
            pass_configs, threshold_key, env.get_pass_profile_threshold_ms
        )
    else:
        threshold_ms = settings["threshold_ms"]
    return PassTimingTool._configured(**{**settings, "threshold_ms": threshold_ms}, role=_SWITCH)


def _patch_tilelangs_switch() -> None:
    """Points every name TileLang looks ``create_pass_timing_tool`` up by at
    passtiming's (once; a TileLang without it is left as it is)."""
    with _patch_lock:
        originals = [original for _, _, original in _patched]
        for name in _UPSTREAM_MODULES:
            try:
                module = importlib.import_module(name)
            except Exception:  # absent in this TileLang version
                continue
            function = vars(module).get(_SWITCH_FUNCTION)
            if callable(function) and function is not _tool_for_tilelangs_switch:
                originals.append(function)
        if not originals:
            return
        for name, module in list(sys.modules.items()):
            if module is None or not (name == "tilelang" or name.startswith("tilelang.")):
                continue
            try:
                function = vars(module).get(_SWITCH_FUNCTION)
            except TypeError:  # a module-like object without a __dict__
                continue
            if function is not None and any(function is original for original in originals):
                setattr(module, _SWITCH_FUNCTION, _tool_for_tilelangs_switch)
                _patched.append((module, _SWITCH_FUNCTION, function))


def _unpatch_tilelangs_switch() -> None:
    """Gives back upstream's function wherever enable() put passtiming's
    (a name someone has replaced since is left alone)."""
    with _patch_lock:
        for module, attribute, original in reversed(_patched):
            if vars(module).get(attribute) is _tool_for_tilelangs_switch:
                setattr(module, attribute, original)
        _patched.clear()


# --- Phases beyond the tool interface --------------------------------------
#
# TileLang's tool interface sees the pass pipelines and codegen. The rest of a
# compile (the kernel cache, the adapter, the library build that runs nvcc,
# NVRTC or hipcc) is timed by wrapping the TileLang functions that do it, and
# the whole compile by wrapping its front doors; a callback of Python's
# garbage collector times its full collections. Each wrapper asks for the
# compile running in its execution context and, outside one, only calls
# through. They are installed once (enable(), or the first tool made) and
# removed by disable().


def _active_compile() -> _Compile | None:
    """The timed compile of this execution context: the one enable()'s front
    doors opened, else that of the passtiming tool in TileLang's compile
    session (opened now if need be); None outside both."""
    compile_ = _current_compile.get()
    if compile_ is not None:
        return compile_
    session = current_compile_pass_instrumentation()
    for tool in getattr(session, "tools", ()):
        if isinstance(tool, PassTimingTool) and not tool._finished and not tool._stands_aside():
            return tool._timed_compile()
    return None


def _open_compile() -> _Compile | None:
    """_active_compile() without opening one: for the garbage collector's
    callback, which must not start a compile."""
    compile_ = _current_compile.get()
    if compile_ is not None:
        return compile_
    session = current_compile_pass_instrumentation()
    for tool in getattr(session, "tools", ()):
        if isinstance(tool, PassTimingTool) and tool._compile is not None and not tool._finished:
            return tool._compile
    return None


GC_PHASE = "garbage collection"
_gc_state = threading.local()


def _gc_callback(stage: str, info: dict) -> None:
    """Python's full collections (generation 2) inside a timed compile are a
    phase of it, on the thread that collects: in a large process one takes
    a tenth of a second, wherever in the compile it falls."""
    try:
        if info.get("generation") != 2:
            return
        if stage == "start":
            compile_ = _open_compile()
            if compile_ is not None:
                _gc_state.open = (compile_, compile_.session.begin_phase(GC_PHASE, "generation 2"))
        else:
            open_ = getattr(_gc_state, "open", None)
            if open_ is not None:
                _gc_state.open = None
                open_[0].session.end_phase(open_[1], False)
    except Exception:  # never into the collector
        pass


def phase(name: str, detail: str = "") -> contextlib.AbstractContextManager:
    """A phase of the compile being timed in this execution context, around
    the body (nested in the phase the thread has open; failed when the body
    raises); outside a timed compile, nothing.

        with passtiming.tilelang.phase("autotune: benchmark", "config 3"):
            ...
    """
    compile_ = _active_compile()
    if compile_ is None:
        return contextlib.nullcontext()
    return compile_.phase(str(name), str(detail))


def _kernel_name(func) -> str:
    """The global symbol of a PrimFunc (a Python function's name), else ""."""
    try:
        attrs = getattr(func, "attrs", None)
        if attrs is not None and "global_symbol" in attrs:
            return str(attrs["global_symbol"])
    except Exception:  # attrs that cannot be read: no name
        pass
    for owner in (func, getattr(func, "func", None), getattr(func, "orig_func", None)):
        name = getattr(owner, "__name__", None)
        if isinstance(name, str):
            return name
    return ""


def _argument(args, kwargs, position: int, keyword: str):
    if keyword in kwargs:
        return kwargs[keyword]
    return args[position] if len(args) > position else None


def _target_arch(target) -> str:
    try:
        arch = target.attrs.get("arch")
        return "" if arch is None else str(arch)
    except Exception:
        return ""


def _library_build(args, kwargs) -> tuple[str, str]:
    """The phase of LibraryGenerator.compile_lib: named by the compiler the
    target needs, with the target's architecture as its detail."""
    generator = args[0]
    target = getattr(generator, "target", None)
    kind = getattr(getattr(target, "kind", None), "name", "")
    name = {"cuda": "nvcc", "hip": "hipcc", "rocm": "hipcc", "c": "c++", "llvm": "c++"}.get(
        kind, "library build"
    )
    return name, _target_arch(target)


def _named(name: str) -> Callable:
    return lambda args, kwargs: (name, "")


def _name_of_argument(position: int) -> Callable:
    """The root's detail: the kernel name of the PrimFunc argument `func`."""
    return lambda args, kwargs: _kernel_name(_argument(args, kwargs, position, "func"))


# (module, class or None, attribute, phase: (args, kwargs) -> (name, detail)).
# The front doors open the compile itself (the root); a missing module, class
# or attribute (another TileLang version) is left out.
_FRONT_DOORS = (
    ("tilelang", None, "compile", _name_of_argument(0)),
    ("tilelang.jit", None, "compile", _name_of_argument(0)),
    ("tilelang.jit", "JITImpl", "compile", lambda args, kwargs: _kernel_name(args[0])),
    ("tilelang.cache.kernel_cache", "KernelCache", "cached", _name_of_argument(1)),
)
_CACHE = "tilelang.cache.kernel_cache"
_PHASES = (
    ("tilelang.jit", "JITImpl", "get_tir", _named("elaborate")),
    (_CACHE, "KernelCache", "_generate_key", _named("kernel cache key")),
    (_CACHE, "KernelCache", "_load_kernel_from_disk", _named("kernel cache lookup")),
    ("tilelang.jit.kernel", "JITKernel", "from_database", _named("kernel cache hit")),
    (_CACHE, "KernelCache", "_save_kernel_to_disk", _named("kernel cache save")),
    ("tilelang.jit.kernel", "JITKernel", "_compile_artifact", _named("lower")),
    (
        "tilelang.jit.kernel",
        "JITKernel",
        "_create_adapter_from_artifact",
        lambda args, kwargs: ("adapter", str(getattr(args[0], "execution_backend", "") or "")),
    ),
    ("tilelang.jit.adapter.wrapper", "TLWrapper", "wrap", _named("wrapper")),
    ("tilelang.jit.adapter.wrapper", "TLPyWrapper", "wrap", _named("wrapper")),
    ("tilelang.jit.adapter.libgen", "LibraryGenerator", "compile_lib", _library_build),
    ("tilelang.jit.adapter.libgen", "LibraryGenerator", "load_lib", _named("load library")),
    (
        "tilelang.jit.adapter.nvrtc.libgen",
        "NVRTCLibraryGenerator",
        "compile_lib",
        lambda args, kwargs: ("nvrtc", _target_arch(getattr(args[0], "target", None))),
    ),
    (
        "tilelang.jit.adapter.nvrtc.libgen",
        "NVRTCLibraryGenerator",
        "load_lib",
        _named("load library"),
    ),
    # The tvm_ffi backend's device codegen builds the cubin here.
    (
        "tilelang.contrib.nvcc",
        None,
        "compile_cuda",
        lambda args, kwargs: ("nvcc", str(_argument(args, kwargs, 2, "arch") or "")),
    ),
)

_hooks_lock = threading.Lock()
# (owner, attribute, what it held before) for each hook installed.
_hooked: list[tuple[object, str, object]] = []


def _front_door(function: Callable, detail_of: Callable) -> Callable:
    @functools.wraps(function)
    def front_door(*args, **kwargs):
        settings = _enabled_settings
        if (
            settings is None
            or _current_compile.get() is not None
            or current_compile_pass_instrumentation() is not None
        ):
            return function(*args, **kwargs)
        compile_ = _Compile(
            (settings["profile"], settings["events"], settings["report_file"]),
            metrics=settings["metrics"],
            threshold_ms=settings["threshold_ms"],
            detail=detail_of(args, kwargs),
        )
        token = _current_compile.set(compile_)
        error = None
        try:
            return function(*args, **kwargs)
        except BaseException as exc:
            error = exc
            raise
        finally:
            _current_compile.reset(token)
            compile_.end(error)

    front_door.__passtiming_hook__ = True
    return front_door


def _phase_hook(function: Callable, phase_of: Callable) -> Callable:
    @functools.wraps(function)
    def timed(*args, **kwargs):
        compile_ = _active_compile()
        if compile_ is None:
            return function(*args, **kwargs)
        name, detail = phase_of(args, kwargs)
        with compile_.phase(name, detail):
            return function(*args, **kwargs)

    timed.__passtiming_hook__ = True
    return timed


def _hook(module_name: str, class_name: str | None, attribute: str, wrap: Callable) -> None:
    """Replaces `attribute` of the module or of the class (its own, not an
    inherited one) by `wrap(function)`; remembers what it held."""
    try:
        module = importlib.import_module(module_name)
    except Exception:  # absent in this TileLang version
        return
    owner = module if class_name is None else vars(module).get(class_name)
    if owner is None:
        return
    held = vars(owner).get(attribute)
    if held is None:
        return
    if isinstance(held, (classmethod, staticmethod)):
        function = held.__func__
        if getattr(function, "__passtiming_hook__", False):
            return
        replacement = type(held)(wrap(function))
    else:
        if not callable(held) or getattr(held, "__passtiming_hook__", False):
            return
        replacement = wrap(held)
    setattr(owner, attribute, replacement)
    _hooked.append((owner, attribute, held))


def _install_hooks() -> None:
    """Installs the phase hooks and the front doors, once."""
    with _hooks_lock:
        if _hooked:
            return
        for module_name, class_name, attribute, phase_of in _PHASES:
            _hook(module_name, class_name, attribute, lambda f, p=phase_of: _phase_hook(f, p))
        # One wrapper for one function, whatever the names it has.
        doors: dict[int, Callable] = {}
        for module_name, class_name, attribute, detail_of in _FRONT_DOORS:

            def wrap(function, detail_of=detail_of):
                if id(function) not in doors:
                    doors[id(function)] = _front_door(function, detail_of)
                return doors[id(function)]

            _hook(module_name, class_name, attribute, wrap)
        if _gc_callback not in gc.callbacks:
            gc.callbacks.append(_gc_callback)


def _remove_hooks() -> None:
    """Gives back what every hook replaced (a name replaced since is left)."""
    with _hooks_lock:
        for owner, attribute, held in reversed(_hooked):
            current = vars(owner).get(attribute)
            function = current
            if isinstance(current, (classmethod, staticmethod)):
                function = current.__func__
            if getattr(function, "__passtiming_hook__", False):
                setattr(owner, attribute, held)
        _hooked.clear()
        if _gc_callback in gc.callbacks:
            gc.callbacks.remove(_gc_callback)


def _checked_threshold(value: object) -> float:
    """The threshold of the types upstream's ``threshold_ms: float`` takes
    (TypeError otherwise), with the value checked as every source checks it
    (check_threshold_ms in C++: finite and non-negative, else ValueError)."""
    setting = "passtiming.tilelang.enable: threshold_ms"
    threshold = _float_threshold(value, "passtiming.tilelang.enable")
    return _passtiming.check_threshold_ms(threshold, setting)


def enable(
    threshold_ms: float = 0.0,
    profile: str | None = None,
    events: str | None = None,
    *,
    report_file: str | None = None,
    metrics=None,
) -> None:
    """Time every later TileLang compile with passtiming.

    ``threshold_ms`` hides passes faster than it from the report;
    ``profile`` and ``events`` are file patterns (%p: pid, %n: the compile's
    number in this process, from 0) for each compile's JSON profile and
    event log; without them, ``PASSTIMING_PROFILE`` and ``PASSTIMING_EVENTS``
    are used when set. ``report_file`` writes each compile's report there
    instead of logging it. ``metrics`` ("cpu,rss,ir" or an iterable of names;
    without it, ``PASSTIMING_METRICS`` when set) are recorded per pass. The
    variables are read now. Before any compile, a ``threshold_ms`` that is
    not a real number (a string, a bool) raises ``TypeError``; a negative or
    non-finite threshold, an unknown metric name or a path that cannot be
    written (an argument's or a variable's) raises ``ValueError``; each
    names the option or the variable. Calling it again replaces the
    settings.

    TileLang's own switch (``tl.pass_profile``, ``TILELANG_PASS_PROFILE``)
    then makes passtiming's tool as well, with these settings and
    TileLang's threshold when it sets one; a compile it turns on is still
    reported once.
    """
    global _enabled_settings
    owner = "passtiming.tilelang.enable"
    settings = {
        "threshold_ms": _checked_threshold(threshold_ms),
        "metrics": _metrics_list(metrics, f"{owner}: metrics"),
        "profile": _checked_pattern(owner, "profile", profile, PROFILE_ENV),
        "events": _checked_pattern(owner, "events", events, EVENTS_ENV),
        "report_file": _checked_pattern(owner, "report_file", report_file),
    }

    def factory() -> PassTimingTool:
        return PassTimingTool._configured(**settings, role=_REGISTERED)

    _enabled_settings = settings
    register_pass_instrumentation_tool(TOOL_NAME, factory)
    _patch_tilelangs_switch()
    _install_hooks()


def disable() -> None:
    """Stop timing later TileLang compiles (those running are not affected);
    TileLang's own switch makes upstream's tool again."""
    global _enabled_settings
    unregister_pass_instrumentation_tool(TOOL_NAME)
    _enabled_settings = None
    _unpatch_tilelangs_switch()
    _remove_hooks()


__all__ = [
    "PassTimingRecord",
    "PassTimingTool",
    "TileLangPassTimingInstrument",
    "create_pass_timing_tool",
    "disable",
    "enable",
    "phase",
]
