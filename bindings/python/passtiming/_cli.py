"""The ``passtiming`` command of an installed wheel.

The wheel carries the C++ command as ``passtiming/_bin/passtiming``; the
console script ``passtiming`` (and ``python -m passtiming``) replaces this
process with it, with the same arguments. ``passtiming run -- python
SCRIPT`` puts the package on the script's ``PYTHONPATH``: the package is
named to the command by ``PASSTIMING_PYTHON_PATH`` (the directory that
holds it), unless the caller set that variable.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
EXECUTABLE = _PACKAGE / "_bin" / "passtiming"


def main() -> None:
    """Runs the bundled command; returns only when it cannot be started."""
    if not os.access(EXECUTABLE, os.X_OK):
        sys.exit(
            f"passtiming: the command {EXECUTABLE} is not in this installation "
            "(a wheel built by pip carries it; a build tree has it under tools/passtiming)"
        )
    os.environ.setdefault("PASSTIMING_PYTHON_PATH", str(_PACKAGE.parent))
    os.execv(EXECUTABLE, ["passtiming", *sys.argv[1:]])
