"""The wheel in a TileLang user's venv: `pip install tilelang` from PyPI
(the newest when the venv was made, with its TVM and torch;
scripts/python/wheel-tilelang.txt, made once per machine by
scripts/python_env.sh), the freshly built wheel installed into it on every
run. The README's two TileLang examples run verbatim there, with no
PYTHONPATH, and time a real TileLang compile."""

from __future__ import annotations

import glob
import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import SOURCE_DIR, readme_block
from user_venv import UserVenv, check_installed, repaired_wheel, report_sections


@pytest.fixture(scope="module")
def venv(version):
    venv = UserVenv(Path(os.environ["PASSTIMING_WHEEL_TILELANG_ENV"]))
    venv.pip_install("--force-reinstall", "--no-deps", repaired_wheel(version))
    return venv


@pytest.fixture()
def scratch(tmp_path):
    shutil.copy(SOURCE_DIR / "examples/tilelang/gemm.py", tmp_path / "my_kernels.py")
    return tmp_path


def passes_of(profile: Path) -> list[str]:
    data = json.loads(profile.read_text())
    return [r["name"] for section in data["sections"] for r in section["records"]]


def test_installed_as_a_user_installs_it(venv, version):
    check_installed(venv, version)
    shown = venv.python_code("import tilelang, tvm_ffi; print(tilelang.__file__, tvm_ffi.__file__)")
    assert all(p.startswith(str(venv.path)) for p in shown.stdout.split()), shown.stdout


def test_enable_times_a_tilelang_compile(venv, scratch):
    block = readme_block("import passtiming.tilelang")
    program = "\n".join(block) + (
        "\nimport runpy\nrunpy.run_path('my_kernels.py', run_name='__main__')\n")
    venv.python_code(program, cwd=scratch)
    profiles = glob.glob(str(scratch / "tl-*.json"))
    assert profiles, os.listdir(scratch)
    assert any(name.startswith("tl.") for p in profiles for name in passes_of(Path(p)))


def test_run_times_an_unchanged_tilelang_script(venv, scratch):
    line = readme_block("passtiming run --threshold-ms 1 -o 'profiles/tl-")[0]
    result = venv.run(line, cwd=scratch)
    assert report_sections(result.stdout + result.stderr) >= 1, result
    profiles = glob.glob(str(scratch / "profiles/tl-*.json"))
    assert profiles, result
    assert any(name.startswith("tl.") for p in profiles for name in passes_of(Path(p)))
