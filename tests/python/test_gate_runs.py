"""`passtiming gate` extends its series where a pass's runs spread too much to
see a change of twice the threshold, up to --max-runs, and names what needs
more; over Python scripts timed by a scripted clock (gate_side.py), so the
runs, the estimates and the verdicts are exact."""

import json
import os
import pathlib
import subprocess
import sys

CLI = os.environ["PASSTIMING_CLI"]
SIDE = pathlib.Path(__file__).with_name("gate_side.py")


def side(name, slower=""):
    return f"{sys.executable} {SIDE} {name} {slower}".strip()


def gate(tmp_path, *flags, new=None):
    return subprocess.run(
        [CLI, "gate", "--seed", "3", "--dir", "runs", "--format", "json", "-o", "verdict.json",
         "--base", side("base"), "--new", new or side("new"), *flags],
        cwd=tmp_path, capture_output=True, text=True, check=False)


def verdict(tmp_path):
    return json.loads((tmp_path / "verdict.json").read_text())


def row(v, key):
    return next(r for r in v["rows"] if r["key"] == key)


def first_look(tmp_path, runs):
    """What `diff --gate` says of the first `runs` profiles of each side."""
    profiles = lambda name: [f"runs/{name}-{k:03}.json" for k in range(1, runs + 1)]
    done = subprocess.run(
        [CLI, "diff", "--gate", "--format", "json", "--base", *profiles("base"), "--new",
         *profiles("new")],
        cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def test_a_noisy_pass_extends_the_series_to_the_runs_it_needs(tmp_path):
    done = gate(tmp_path)
    assert done.returncode == 0, done.stderr
    # The first look, at 10 runs per side, is what diff --gate says of them.
    needed = row(first_look(tmp_path, 10), "noisy")["runs_for_twice_threshold"]
    assert 10 < needed <= 50
    assert (
        f"passtiming gate: with 10 runs per side, 1 pass would miss +10% more than 1 time in 20 "
        f"(runs per side needed: noisy {needed}); running {needed - 10} more per side "
        f"(--max-runs 50)\n") in done.stderr
    v = verdict(tmp_path)
    # The series stopped there: with its runs, the noisy pass is judged.
    assert v["base_profiles"] == v["new_profiles"] == needed
    assert row(v, "noisy")["runs_for_twice_threshold"] <= needed
    assert row(v, "noisy")["detectable_pct"] <= 10
    assert (tmp_path / "runs" / f"new-{needed:03}.json").exists()
    assert not (tmp_path / "runs" / f"base-{needed + 1:03}.json").exists()
    assert (f"passtiming gate: {needed} runs per side (extended from 10), alternated in pairs "
            "of random order (--seed 3); the profiles are in runs\n") in done.stderr
    # The wild pass would need thousands: named, not chased, too noisy.
    wild = row(v, "wild")["runs_for_twice_threshold"]
    assert wild > 1000
    assert ("passtiming gate: not extended for the passes that need more than --max-runs 50 "
            f"runs per side to see +10%: wild {wild}\n") in done.stderr
    assert v["too_noisy"] == ["wild"]
    assert v["verdict"] == "ok"


def test_the_extended_runs_flag_what_the_first_ten_could_not_judge(tmp_path):
    done = gate(tmp_path, new=side("new", "1.12"))
    assert done.returncode == 1, done.stderr
    v = verdict(tmp_path)
    assert v["base_profiles"] > 10
    assert row(v, "noisy")["status"] == "regression"
    assert [r["key"] for r in v["rows"] if r["status"] == "regression"] == ["noisy"]


def test_max_runs_equal_to_runs_never_extends(tmp_path):
    done = gate(tmp_path, "--max-runs", "10")
    assert done.returncode == 0, done.stderr
    v = verdict(tmp_path)
    assert v["base_profiles"] == v["new_profiles"] == 10
    noisy = row(v, "noisy")["runs_for_twice_threshold"]
    wild = row(v, "wild")["runs_for_twice_threshold"]
    assert ("passtiming gate: not extended for the passes that need more than --max-runs 10 "
            f"runs per side to see +10%: wild {wild}, noisy {noisy}\n") in done.stderr
    assert v["too_noisy"] == ["wild", "noisy"]
    assert not (tmp_path / "runs" / "base-011.json").exists()


def test_max_runs_below_runs_is_refused(tmp_path):
    done = gate(tmp_path, "--runs", "10", "--max-runs", "5")
    assert done.returncode == 2
    assert done.stderr == "passtiming gate: --max-runs 5 is below --runs 10\n"
    assert not (tmp_path / "runs").exists()
