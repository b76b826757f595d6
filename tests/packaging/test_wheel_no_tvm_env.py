"""The wheel in a fresh venv with no TVM at all (no tilelang, apache-tvm or
apache-tvm-ffi): the core API and the command work; the TVM parts fail with
their documented errors (docs/tilelang.md, "Install")."""

from __future__ import annotations

import json

import pytest

from conftest import readme_block
from user_venv import UserVenv, check_installed, repaired_wheel

# The seed's API over the core: a pipeline shaped like TVM's PassContext,
# driving the instruments' Python protocol.
CORE_API = """
import logging, sys
import passtiming

logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(message)s")

class Info:
    def __init__(self, name):
        self.name = name

instruments, timing = passtiming.build_pass_instruments([], threshold_ms=0.0)
with passtiming.report_pass_timing_on_exit(timing, "stage=lower"):
    for inst in instruments:
        inst.enter_pass_ctx()
    for name in ("tl.Simplify", "tl.LowerTileOp"):
        for inst in instruments:
            inst.run_before_pass(None, Info(name))
        sum(range(10000))
        for inst in instruments:
            inst.run_after_pass(None, Info(name))
    for inst in instruments:
        inst.exit_pass_ctx()
print([r.name for r in timing.records])
"""


@pytest.fixture(scope="module")
def venv(tmp_path_factory, version):
    venv = UserVenv.create(tmp_path_factory.mktemp("no-tvm") / "venv")
    # The wheel needs nothing else: no index is asked.
    venv.pip_install("--no-index", repaired_wheel(version))
    listed = venv.run([venv.python, "-m", "pip", "list", "--format=json"]).stdout
    names = {p["name"].lower() for p in json.loads(listed)}
    assert not names & {"tilelang", "apache-tvm", "apache-tvm-ffi", "torch"}, names
    return venv


def test_installed_as_a_user_installs_it(venv, version):
    check_installed(venv, version)


def test_the_core_api_times_a_pipeline_and_the_command_reads_its_profile(venv, tmp_path):
    venv.env["PASSTIMING_PROFILE"] = str(tmp_path / "core.json")
    result = venv.python_code(CORE_API, cwd=tmp_path)
    del venv.env["PASSTIMING_PROFILE"]
    assert "Pass Timing Report" in result.stdout, result.stdout
    assert "stage=lower" in result.stdout and "tl.LowerTileOp" in result.stdout, result.stdout
    assert "['tl.Simplify', 'tl.LowerTileOp']" in result.stdout, result.stdout
    report = venv.run(["passtiming", "report", tmp_path / "core.json"]).stdout
    assert "tl.Simplify" in report and "tl.LowerTileOp" in report, report
    venv.run(["passtiming", "convert", tmp_path / "core.json", "--to", "html", "-o",
              tmp_path / "core.html"])
    assert "<html" in (tmp_path / "core.html").read_text().lower()


def test_the_readme_example_fails_naming_tilelang(venv, tmp_path):
    program = "\n".join(readme_block("import passtiming.tilelang"))
    result = venv.python_code(program, cwd=tmp_path, check=False)
    assert result.returncode == 1, result
    assert "ModuleNotFoundError: No module named 'tilelang'" in result.stderr, result.stderr


def test_the_tvm_instrument_fails_naming_tvm_ffi(venv):
    code = """
import passtiming.tvm
try:
    passtiming.tvm.TileLangPassTimingInstrument(threshold_ms=0.0)
except ImportError as error:
    print(f"{type(error).__name__}: {error}")
"""
    printed = venv.python_code(code).stdout.strip()
    assert printed == ("ImportError: passtiming.tvm needs TVM's tvm-ffi (the apache-tvm-ffi "
                       "package, which tilelang and apache-tvm bring)"), printed


def test_run_leaves_a_script_without_tilelang_untimed(venv, tmp_path):
    (tmp_path / "plain.py").write_text("print('plain script ran')\n")
    result = venv.run("passtiming run -- python plain.py", cwd=tmp_path)
    assert "plain script ran" in result.stdout, result
