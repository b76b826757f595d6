"""What the packaging tests share: where things are, the one version, and
the environment of a user's shell (no PYTHONPATH, no passtiming settings,
no virtual environment of this project's), in which every installed file
is run.

The environment variables come from tests/packaging/CMakeLists.txt:
PASSTIMING_SOURCE_DIR, PASSTIMING_BUILD_DIR and, for the wheel,
PASSTIMING_WHEEL_DIR (where test_wheel.py leaves the repaired wheel).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

SOURCE_DIR = Path(os.environ["PASSTIMING_SOURCE_DIR"])
BUILD_DIR = Path(os.environ["PASSTIMING_BUILD_DIR"])
README = SOURCE_DIR / "README.md"


def project_version() -> str:
    """kVersion of include/passtiming/engine/version.h, the one version."""
    text = (SOURCE_DIR / "include/passtiming/engine/version.h").read_text()
    match = re.search(r'kVersion = "([0-9]+\.[0-9]+\.[0-9]+)"', text)
    assert match, "no kVersion in version.h"
    return match.group(1)


def user_environment(path_first: list[Path] | None = None) -> dict[str, str]:
    """The caller's environment as a user's shell would have it: nothing
    that points Python or passtiming at this build, and `path_first` (a
    venv's bin) first on PATH."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PASSTIMING_", "PYTHON", "VIRTUAL_ENV", "TILELANG_"))}
    env["PATH"] = os.pathsep.join([*(str(p) for p in path_first or []), env.get("PATH", "")])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run(args, *, cwd=None, env=None, timeout=900, check=True) -> subprocess.CompletedProcess:
    """Runs `args` (a list, or a string for bash), capturing its output;
    with `check`, a non-zero status fails the test with that output."""
    shell = isinstance(args, str)
    result = subprocess.run(["bash", "-c", args] if shell else [str(a) for a in args], cwd=cwd,
                            env=env if env is not None else user_environment(), text=True,
                            capture_output=True, timeout=timeout)
    if check:
        assert result.returncode == 0, (
            f"{args}\nstatus {result.returncode}\nstdout:\n{result.stdout[-4000:]}\n"
            f"stderr:\n{result.stderr[-4000:]}")
    return result


def readme_block(start: str) -> list[str]:
    """The README's indented command block that starts with `start`, as
    lines without the indent (the blocks tests/readme runs)."""
    lines = README.read_text().splitlines()
    for i, line in enumerate(lines):
        if line.startswith("    " + start) and (i == 0 or not lines[i - 1].strip()):
            block = []
            for following in lines[i:]:
                if not following.startswith("    "):
                    break
                block.append(following[4:])
            return block
    raise AssertionError(f"the README has no block starting {start!r}")


@pytest.fixture(scope="session")
def version() -> str:
    return project_version()
