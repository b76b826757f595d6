"""The wheel in a fresh venv with Apache TVM from PyPI (`pip install
passtiming-*.whl apache-tvm`): the native instrument binds to that TVM's
tvm-ffi and times a real pass pipeline, as docs/tilelang.md shows."""

from __future__ import annotations

import pytest

from user_venv import UserVenv, check_installed, repaired_wheel, report_sections

# docs/tilelang.md's example on a Relax module of Apache TVM's.
PIPELINE = """
import logging, sys
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from passtiming.tvm import TileLangPassTimingInstrument

logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(message)s")


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = R.add(x, x)
        return y


pipeline = tvm.transform.Sequential(
    [relax.transform.LegalizeOps(), relax.transform.DeadCodeElimination()], name="Lower")
timing = TileLangPassTimingInstrument(threshold_ms=0.0)
with tvm.transform.PassContext(instruments=[timing.instrument]):
    mod = pipeline(Module)
timing.print_report("stage=lower")
print(timing.instrument.__tvm_ffi_type_info__.type_key, [r.name for r in timing.records])
"""


@pytest.fixture(scope="module")
def venv(tmp_path_factory, version):
    venv = UserVenv.create(tmp_path_factory.mktemp("apache-tvm") / "venv")
    venv.pip_install(repaired_wheel(version), "apache-tvm")
    return venv


def test_installed_as_a_user_installs_it(venv, version):
    check_installed(venv, version)


def test_the_native_instrument_times_apache_tvm_passes(venv, tmp_path):
    # TVMScript reads the source of what it parses: a file, not -c.
    (tmp_path / "tvm_pipeline.py").write_text(PIPELINE)
    result = venv.run([venv.python, "tvm_pipeline.py"], cwd=tmp_path)
    assert report_sections(result.stdout) == 1, result.stdout
    assert "stage=lower" in result.stdout, result.stdout
    for name in ("Lower", "LegalizeOps", "DeadCodeElimination"):
        assert name in result.stdout, (name, result.stdout)
    last = result.stdout.splitlines()[-1]
    assert last == "instrument.PassInstrument ['Lower', 'LegalizeOps', 'DeadCodeElimination']", \
        result.stdout
