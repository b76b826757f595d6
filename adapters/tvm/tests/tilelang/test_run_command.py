"""`passtiming run -- python SCRIPT`: a script that was never changed is
timed on every TileLang compile it makes, through the start-up hook that the
command puts on the child's PYTHONPATH."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

KERNELS_DIR = pathlib.Path(__file__).parent


def write_script(tmp_path: pathlib.Path, body: str) -> pathlib.Path:
    script = tmp_path / "script.py"
    script.write_text(
        textwrap.dedent(
            f"""\
            import sys
            sys.path.insert(0, {str(KERNELS_DIR)!r})
            """
        )
        + textwrap.dedent(body)
    )
    return script


def run(passtiming_cli, *args, env=None):
    # The child must find passtiming only through the command: no PYTHONPATH.
    child_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    child_env["PASSTIMING_PYTHON_PATH"] = os.environ["PASSTIMING_PYTHON_MODULE_DIR"]
    child_env.update(env or {})
    return subprocess.run(
        [passtiming_cli, "run", *args], capture_output=True, text=True, env=child_env, timeout=600
    )


TWO_COMPILES = """\
    import tilelang, tvm
    import kernels
    with tvm.target.Target("cuda"):
        tilelang.lower(kernels.elementwise_add(), target="cuda")
        tilelang.lower(kernels.row_sum(), target="cuda")
    print("script done")
    sys.exit(3)
"""


def test_every_compile_is_reported_and_profiled_and_the_scripts_status_kept(
    tmp_path, passtiming_cli
):
    script = write_script(tmp_path, TWO_COMPILES)
    result = run(
        passtiming_cli, "-o", str(tmp_path / "p-%p-%n.json"), "--", sys.executable, str(script)
    )
    assert result.returncode == 3, result.stderr
    assert "script done" in result.stdout
    # One report per compile, in the order the compiles ran, each printed once.
    reports = result.stdout.split("TileLang Pass Timing Report")[1:]
    assert len(reports) == 2, result.stdout
    assert "(add)" in reports[0] and "(reduce_rows)" not in reports[0]
    assert "(reduce_rows)" in reports[1]
    profiles = sorted(tmp_path.glob("p-*-*.json"), key=lambda p: int(p.stem.split("-")[-1]))
    assert [p.stem.split("-")[-1] for p in profiles] == ["0", "1"]
    for profile, kernel in zip(profiles, ["add", "reduce_rows"]):
        text = subprocess.run(
            [passtiming_cli, "report", str(profile)], capture_output=True, text=True, check=True
        ).stdout
        assert f"tl.LowerTileOp({kernel})" in text
        json.loads(profile.read_text())  # a whole JSON document


def test_a_script_that_raises_keeps_its_traceback_and_the_reports_so_far(
    tmp_path, passtiming_cli
):
    script = write_script(
        tmp_path,
        """\
        import tilelang, tvm
        import kernels
        with tvm.target.Target("cuda"):
            tilelang.lower(kernels.elementwise_add(), target="cuda")
        raise KeyError("the script's own error")
        """,
    )
    result = run(passtiming_cli, "--", sys.executable, str(script))
    assert result.returncode == 1
    assert "KeyError: \"the script's own error\"" in result.stderr
    assert result.stdout.count("TileLang Pass Timing Report") == 1


def test_a_script_without_tilelang_runs_untouched(tmp_path, passtiming_cli):
    script = write_script(tmp_path, "print('no compile')\n")
    result = run(passtiming_cli, "--", sys.executable, str(script))
    assert result.returncode == 0
    assert result.stdout == "no compile\n"
    assert "passtiming run: no TileLang compile ran in" in result.stderr
    # Nothing is imported into a script that does not import tilelang.
    probe = write_script(
        tmp_path, "print('tilelang' in sys.modules, 'passtiming' in sys.modules)\n"
    )
    result = run(passtiming_cli, "--no-report", "--", sys.executable, str(probe))
    assert result.stdout == "False False\n"


def test_an_unwritable_profile_is_named_and_the_script_still_runs(tmp_path, passtiming_cli):
    script = write_script(tmp_path, TWO_COMPILES)
    result = run(
        passtiming_cli, "-o", "/nonexistent/dir/p-%n.json", "--", sys.executable, str(script)
    )
    assert result.returncode == 3
    assert "script done" in result.stdout
    assert "/nonexistent/dir/p-%n.json" in result.stderr
    assert "does not exist" in result.stderr


def test_a_bad_threshold_is_a_usage_error(tmp_path, passtiming_cli):
    script = write_script(tmp_path, "print('never runs')\n")
    result = run(passtiming_cli, "--threshold-ms", "fast", "--", sys.executable, str(script))
    assert result.returncode == 2
    assert "--threshold-ms" in result.stderr
    assert "never runs" not in result.stdout


def test_the_threshold_reaches_the_scripts_reports(tmp_path, passtiming_cli):
    # The command passes it in PASSTIMING_THRESHOLD_MS, a string; the hook
    # gives enable() the number, as enable() takes only numbers.
    script = write_script(tmp_path, TWO_COMPILES)
    result = run(passtiming_cli, "--threshold-ms", "1.5", "--", sys.executable, str(script))
    assert result.returncode == 3, result.stderr
    assert "not timed" not in result.stderr
    assert result.stdout.count("(inclusive threshold: 1.5ms)") == 2, result.stdout


def test_a_scripts_compiles_are_counted_like_a_builds(tmp_path, passtiming_cli):
    script = write_script(tmp_path, TWO_COMPILES)
    # Started in tmp_path, with a relative pattern.
    child_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    child_env["PASSTIMING_PYTHON_PATH"] = os.environ["PASSTIMING_PYTHON_MODULE_DIR"]
    result = subprocess.run(
        [passtiming_cli, "run", "--no-report", "-o", "profiles/p-%p-%n.json", "--",
         sys.executable, str(script)],
        capture_output=True, text=True, cwd=tmp_path, env=child_env, timeout=600,
    )
    assert result.returncode == 3, result.stderr  # the script's own status
    # run made profiles/ under its own directory, and counted both compiles.
    assert len(list((tmp_path / "profiles").glob("p-*-*.json"))) == 2
    assert result.stderr.splitlines()[-1] == "passtiming run: wrote 2 profiles", result.stderr
