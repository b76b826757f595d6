"""The seed API's instrument writes PASSTIMING_PROFILE and PASSTIMING_EVENTS,
as every event source does: the event log from the start, the JSON profile of
each PassContext when it exits."""

import json

import passtiming
from conftest import module_of, run_pass


def run_one_context(timing, clock):
    clock.script_seconds([0, 1, 4, 5, 9, 9])  # enter, before, before, after, after, exit
    inst = timing.instrument
    inst.enter_pass_ctx()
    mod = module_of("gemm")
    run_pass(inst, "outer", mod, body=lambda: run_pass(inst, "inner", mod))
    inst.exit_pass_ctx()


def test_profile_and_event_log_from_the_environment(tmp_path, monkeypatch, clock):
    monkeypatch.setenv("PASSTIMING_PROFILE", str(tmp_path / "p-%p-%n.json"))
    monkeypatch.setenv("PASSTIMING_EVENTS", str(tmp_path / "e-%p-%n.jsonl"))
    timing = passtiming.TileLangPassTimingInstrument(clock=clock)
    assert list(tmp_path.glob("p-*.json")) == []  # written when the context exits, not before
    (events_path,) = tmp_path.glob("e-*.jsonl")  # created at once: streamed from the start
    run_one_context(timing, clock)

    (profile_path,) = tmp_path.glob("p-*.json")
    assert profile_path.stem.split("-")[-1] == events_path.stem.split("-")[-1]
    profile = json.loads(profile_path.read_text())
    (section,) = profile["sections"]
    names = sorted(r["name"] for r in section["records"])
    assert names == ["inner", "outer"]
    lines = [json.loads(line) for line in events_path.read_text().splitlines() if line.strip("\0")]
    assert [line["ev"] for line in lines] == [
        "meta", "enter_ctx", "before", "before", "after", "after", "exit_ctx"
    ]


def test_each_instrument_gets_its_own_files(tmp_path, monkeypatch, clock):
    monkeypatch.setenv("PASSTIMING_PROFILE", str(tmp_path / "p-%n.json"))
    first = passtiming.TileLangPassTimingInstrument(clock=clock)
    second = passtiming.TileLangPassTimingInstrument(clock=clock)
    run_one_context(first, clock)
    run_one_context(second, clock)
    numbers = sorted(int(p.stem.split("-")[-1]) for p in tmp_path.glob("p-*.json"))
    assert len(numbers) == 2 and numbers[1] == numbers[0] + 1


def test_an_unwritable_profile_is_logged_and_the_compile_goes_on(monkeypatch, clock, timing_log):
    monkeypatch.setenv("PASSTIMING_PROFILE", "/nonexistent/dir/p.json")
    timing = passtiming.TileLangPassTimingInstrument(clock=clock)
    run_one_context(timing, clock)
    assert [r.name for r in timing.records] == ["outer", "inner"]
    errors = [r.getMessage() for r in timing_log.records if r.levelname == "ERROR"]
    assert len(errors) == 1 and "/nonexistent/dir/p.json" in errors[0]


def test_without_the_variables_nothing_is_written(tmp_path, monkeypatch, clock):
    monkeypatch.delenv("PASSTIMING_PROFILE", raising=False)
    monkeypatch.delenv("PASSTIMING_EVENTS", raising=False)
    monkeypatch.chdir(tmp_path)
    run_one_context(passtiming.TileLangPassTimingInstrument(clock=clock), clock)
    assert list(tmp_path.iterdir()) == []
