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
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
import threading
from collections.abc import Mapping

from tilelang.instrumentation import (
    PassInstrumentationTool,
    current_compile_pass_instrumentation,
    current_pass_instrument_context,
    register_pass_instrumentation_tool,
    unregister_pass_instrumentation_tool,
)

from . import PassTimingRecord, _passtiming
from .tvm import TileLangPassTimingInstrument, _float_threshold

logger = logging.getLogger("tilelang.pass_timing")

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
    compile that runs no pass writes neither. ``report_file`` (a pattern likewise) sends the report to that file
    instead of the log (``passtiming run`` prints it when the script ends).
    ``metrics`` (default: ``PASSTIMING_METRICS``; "cpu,rss" or an iterable of
    names from cpu, rss, ir, instructions) are recorded per pass into the
    profile, the event log and each timing's ``record_metrics``; an unknown
    name raises ``ValueError`` naming the option or the variable.

    The arguments and the variables are read and checked when the tool is
    made: a ``threshold_ms`` that is not a real number (``"1"``, ``True``)
    raises ``TypeError``, a path whose directory is missing or not writable
    ``ValueError``, each naming ``PassTimingTool`` and the option, or the
    variable, and the path.
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
        # Made with the first PassContext: a compile that runs no pass (a
        # kernel-cache hit) writes no file and takes no compile number.
        self._session = None
        self._report_file = None

    def _open_session(self):
        profile, events, report_file = self._patterns
        number = _passtiming.next_compile_number()  # %n: shared by every source
        self._report_file = _output_path(report_file, number)
        self._session = _passtiming._Session(
            _output_path(profile, number),
            _output_path(events, number),
            metrics=self._metrics,
            threshold_ms=self.threshold_ms,
        )
        return self._session

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
        session = self._session or self._open_session()
        section = session.new_section("" if context is None else str(context))
        timing = TileLangPassTimingInstrument(threshold_ms=self.threshold_ms, _timing=section)
        self._runs.append((context, timing))
        return timing.instrument

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
        return "\n\n".join(timing.report(context=context) for context, timing in self._runs)

    def print_report(self) -> None:
        """Print all PassContext timing sections in one logger call."""
        if self._runs:
            logger.info("\n%s", self.report())

    def finish(self, error: BaseException | None) -> None:
        """Log the report once; then write the profile and close the event log.

        As upstream, an error raised while reporting propagates (TileLang's
        session never lets it hide the compile's own error); the files are
        written whatever happens.
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
            if self._session is not None:
                self._session.close_outputs()


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


def disable() -> None:
    """Stop timing later TileLang compiles (those running are not affected);
    TileLang's own switch makes upstream's tool again."""
    global _enabled_settings
    unregister_pass_instrumentation_tool(TOOL_NAME)
    _enabled_settings = None
    _unpatch_tilelangs_switch()


__all__ = [
    "PassTimingRecord",
    "PassTimingTool",
    "TileLangPassTimingInstrument",
    "create_pass_timing_tool",
    "disable",
    "enable",
]
