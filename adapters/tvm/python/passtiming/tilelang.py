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
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping

from tilelang.instrumentation import (
    PassInstrumentationTool,
    current_pass_instrument_context,
    register_pass_instrumentation_tool,
    unregister_pass_instrumentation_tool,
)

from . import PassTimingRecord, _passtiming
from .tvm import TileLangPassTimingInstrument

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


def _output_path(pattern: str | None, env_name: str, number: int) -> str | None:
    """`pattern` (else the environment variable) with %p, %n and %% expanded."""
    if pattern is None:
        pattern = os.environ.get(env_name) or None
    if not pattern:
        return None
    return _passtiming.expand_path_pattern(os.fspath(pattern), os.getpid(), number)


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
        self.threshold_ms = threshold_ms
        self._metrics = _metrics_list(metrics, "PassTimingTool: metrics")
        self._runs: list[tuple[str | None, TileLangPassTimingInstrument]] = []
        self._finished = False
        self._patterns = (profile, events, report_file)
        # Made with the first PassContext: a compile that runs no pass (a
        # kernel-cache hit) writes no file and takes no compile number.
        self._session = None
        self._report_file = None

    def _open_session(self):
        profile, events, report_file = self._patterns
        number = _passtiming.next_compile_number()  # %n: shared by every source
        if report_file:
            self._report_file = _passtiming.expand_path_pattern(report_file, os.getpid(), number)
        self._session = _passtiming._Session(
            _output_path(profile, PROFILE_ENV, number),
            _output_path(events, EVENTS_ENV, number),
            metrics=self._metrics,
            threshold_ms=self.threshold_ms,
        )
        return self._session

    def create_pass_instrument(self) -> object:
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


def _checked_threshold(value: object) -> float:
    """The threshold as every source checks it (check_threshold_ms in C++)."""
    setting = "passtiming.tilelang.enable: threshold_ms"
    try:
        threshold = float(value)
    except (TypeError, ValueError):
        raise ValueError(
            f"{setting} must be a finite non-negative number (got {value!r})"
        ) from None
    return _passtiming.check_threshold_ms(threshold, setting)


def _checked_pattern(setting: str, pattern: str | None) -> str | None:
    """A file pattern whose directory exists and is writable, or a ValueError naming it."""
    if pattern is None:
        return None
    pattern = os.fspath(pattern)
    if not pattern:
        raise ValueError(f"passtiming.tilelang.enable: {setting} is an empty path")
    path = _passtiming.expand_path_pattern(pattern, os.getpid(), 0)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise ValueError(
            f"passtiming.tilelang.enable: {setting}={pattern!r}: the directory {directory!r} "
            "does not exist"
        )
    if not os.access(directory, os.W_OK | os.X_OK):
        raise ValueError(
            f"passtiming.tilelang.enable: {setting}={pattern!r}: the directory {directory!r} "
            "is not writable"
        )
    if os.path.isdir(path):
        raise ValueError(f"passtiming.tilelang.enable: {setting}={pattern!r} is a directory")
    return pattern


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
    without it, ``PASSTIMING_METRICS`` when set) are recorded per pass. A bad
    threshold, metric name or a path that cannot be written raises
    ``ValueError`` naming it, before any compile. Calling it again replaces
    the settings.
    """
    threshold = _checked_threshold(threshold_ms)
    if metrics is not None:
        metrics = _metrics_list(metrics, "passtiming.tilelang.enable: metrics")
    else:
        _metrics_list(None, "")  # PASSTIMING_METRICS, checked now rather than mid-compile
    profile = _checked_pattern("profile", profile)
    events = _checked_pattern("events", events)
    report_file = _checked_pattern("report_file", report_file)

    def factory() -> PassTimingTool:
        return PassTimingTool(
            threshold, profile=profile, events=events, report_file=report_file, metrics=metrics
        )

    register_pass_instrumentation_tool(TOOL_NAME, factory)


def disable() -> None:
    """Stop timing later TileLang compiles (those running are not affected)."""
    unregister_pass_instrumentation_tool(TOOL_NAME)


__all__ = [
    "PassTimingRecord",
    "PassTimingTool",
    "TileLangPassTimingInstrument",
    "create_pass_timing_tool",
    "disable",
    "enable",
]
