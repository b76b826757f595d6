"""Start-up hook of ``passtiming run -- python SCRIPT``.

``passtiming run`` puts this directory first on the child's ``PYTHONPATH``
and sets ``PASSTIMING_PYTHON_HOOK=tilelang``. Python imports this module at
start-up; it then waits for the script to import ``tilelang`` and, right
after, calls ``passtiming.tilelang.enable()`` with the run's settings:

- ``PASSTIMING_THRESHOLD_MS``: the report's threshold, given to
  ``enable()`` as a number;
- ``PASSTIMING_PROFILE``, ``PASSTIMING_EVENTS``: per-compile file patterns,
  and ``PASSTIMING_METRICS``: the metrics recorded per pass (``cpu,rss,ir``),
  which ``enable()`` reads (and checks, naming them) itself;
- ``PASSTIMING_REPORT``: a per-compile file pattern for the report text,
  which ``passtiming run`` prints when the script ends (``off``: none).

Nothing is imported before the script imports tilelang, so a script that
never compiles pays only for this module. A setting that cannot be used is
reported on stderr and the script runs untimed: the profiler never stops the
script. The ``sitecustomize`` this one shadows, if any, still runs.
"""

import importlib.abc
import importlib.util
import os
import sys

_HOOK = "PASSTIMING_PYTHON_HOOK"


def _run_shadowed_sitecustomize():
    here = os.path.dirname(os.path.abspath(__file__))
    for entry in sys.path:
        if not entry or os.path.abspath(entry) == here:
            continue
        candidate = os.path.join(entry, "sitecustomize.py")
        if os.path.isfile(candidate):
            spec = importlib.util.spec_from_file_location("_passtiming_shadowed_sitecustomize",
                                                          candidate)
            module = importlib.util.module_from_spec(spec)
            try:
                spec.loader.exec_module(module)
            except Exception as error:  # as site.py treats a failing sitecustomize
                print(f"passtiming: error in {candidate}: {error!r}", file=sys.stderr)
            return


def _enable_passtiming():
    def setting(name):
        value = os.environ.get(name, "")
        return value or None

    report = setting("PASSTIMING_REPORT")
    threshold = setting("PASSTIMING_THRESHOLD_MS")
    try:
        try:
            threshold_ms = float(threshold) if threshold else 0.0
        except ValueError:
            raise ValueError(f"PASSTIMING_THRESHOLD_MS={threshold!r} is not a number") from None
        import passtiming.tilelang

        # enable() reads PASSTIMING_PROFILE, PASSTIMING_EVENTS and
        # PASSTIMING_METRICS itself, so a bad one is named in its error.
        passtiming.tilelang.enable(
            threshold_ms=threshold_ms,
            report_file=None if report in (None, "off") else report,
        )
    except Exception as error:
        print(f"passtiming: TileLang compiles are not timed: {error}", file=sys.stderr)


class _AfterTileLangImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself; wraps tilelang's loader to enable passtiming
    once ``tilelang`` has finished importing."""

    def find_spec(self, fullname, path, target=None):
        if fullname != "tilelang":
            return None
        sys.meta_path.remove(self)  # once, and not while looking below
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        exec_module = loader.exec_module

        def exec_then_enable(module):
            exec_module(module)
            _enable_passtiming()

        loader.exec_module = exec_then_enable
        return spec


_run_shadowed_sitecustomize()
if os.environ.get(_HOOK) == "tilelang":
    sys.meta_path.insert(0, _AfterTileLangImport())
