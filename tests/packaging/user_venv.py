"""A user's virtual environment with the repaired wheel installed: made
with Debian's plain `python3 -m venv` and `pip install` from PyPI, never
one of this project's pinned environments, and used with no PYTHONPATH.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from conftest import run, user_environment

WHEEL_DIR = Path(os.environ["PASSTIMING_WHEEL_DIR"])
BASE_PYTHON = "/usr/bin/python3"

# What the bundled command and extensions may take from the system rather
# than from the wheel's own copies (as test_wheel.py's list).
SYSTEM_LIBRARIES = ("libc.so", "libm.so", "libstdc++.so", "libgcc_s.so", "libdl.so",
                    "libpthread.so", "librt.so", "libresolv.so", "libz.so", "ld-linux-x86-64.so",
                    "linux-vdso.so")


def repaired_wheel(version: str) -> Path:
    wheels = sorted((WHEEL_DIR / "repaired").glob(f"passtiming-{version}-*.whl"))
    assert len(wheels) == 1, f"no single repaired wheel in {WHEEL_DIR} (package_wheel makes it)"
    return wheels[0]


class UserVenv:
    """A venv at `path`; `run` runs a command with its bin first on PATH."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.bin = self.path / "bin"
        self.python = self.bin / "python"
        self.env = user_environment([self.bin])
        self.env["VIRTUAL_ENV"] = str(self.path)

    @classmethod
    def create(cls, path: Path) -> "UserVenv":
        run([BASE_PYTHON, "-m", "venv", path])
        return cls(path)

    def run(self, args, **kwargs):
        kwargs.setdefault("env", self.env)
        return run(args, **kwargs)

    def pip_install(self, *args, timeout=1800):
        return self.run([self.python, "-m", "pip", "install", "--no-input",
                         "--disable-pip-version-check", *args], timeout=timeout)

    def python_code(self, code: str, **kwargs):
        return self.run([self.python, "-c", code], **kwargs)

    def site_packages(self) -> Path:
        return Path(self.python_code("import sysconfig; print(sysconfig.get_path('platlib'))")
                    .stdout.strip())


def check_installed(venv: UserVenv, version: str) -> None:
    """The installed package and command: imported from the venv, one
    version everywhere, the console script runs the bundled command, and
    the bundled command loads no shared library from outside the wheel but
    the system's own."""
    site = venv.site_packages()
    shown = venv.python_code(
        "import importlib.metadata, passtiming; "
        "print(passtiming.__file__); print(passtiming.__version__); "
        "print(importlib.metadata.version('passtiming'))").stdout.split()
    assert shown == [str(site / "passtiming" / "__init__.py"), version, version], shown
    for command in (["passtiming", "--version"], [venv.python, "-m", "passtiming", "--version"]):
        assert venv.run(command).stdout.strip() == f"passtiming {version}", command
    assert venv.run("command -v passtiming").stdout.strip() == str(venv.bin / "passtiming")
    for binary in [site / "passtiming" / "_bin" / "passtiming",
                   *(site / "passtiming").glob("_passtiming*.so")]:
        resolved = venv.run(["ldd", binary]).stdout
        for line in resolved.splitlines():
            name = line.split()[0]
            if name.startswith(SYSTEM_LIBRARIES) or "=>" not in line:
                continue
            target = Path(line.split("=>")[1].split()[0]).resolve()
            assert target.parent == (site / "passtiming.libs").resolve(), (binary, line)
        assert "not found" not in resolved, resolved


def report_sections(text: str) -> int:
    """The number of TileLang-style reports in `text`."""
    return len(re.findall(r"TileLang Pass Timing Report", text))
