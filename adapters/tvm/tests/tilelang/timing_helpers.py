"""Helpers shared by the real-TileLang tests: the timing log's messages,
exact nanoseconds from records, upstream's instrument refilled with
passtiming's records, and the `passtiming` command."""

from __future__ import annotations

import dataclasses
import json
import subprocess

from tilelang.tools import pass_timing as upstream

LOGGER = "tilelang.pass_timing"


def timing_messages(caplog, level=None):
    """(levelname, message) of each record logged on `tilelang.pass_timing`."""
    return [
        (r.levelname, r.getMessage())
        for r in caplog.records
        if r.name == LOGGER and (level is None or r.levelname == level)
    ]


def to_ns(seconds: float) -> int:
    """A passtiming record's time back in the integer nanoseconds it was
    measured in (passtiming's seconds are exactly ns / 1e9)."""
    return round(seconds * 1e9)


def children_of(records, parent):
    """The direct children of `parent` among `records` (sorted by sequence)."""
    ordered = sorted(records, key=lambda r: r.sequence)
    start = ordered.index(parent)
    children = []
    for record in ordered[start + 1 :]:
        if record.depth <= parent.depth:
            break
        if record.depth == parent.depth + 1:
            children.append(record)
    return children


def completion_order(records):
    """`records` (well nested) in the order their passes finished: each pass
    after its children. Upstream keeps its records in that order, and its
    "Top N" list keeps it among equal durations."""
    finished, open_frames = [], []
    for record in sorted(records, key=lambda r: r.sequence):
        while open_frames and open_frames[-1].depth >= record.depth:
            finished.append(open_frames.pop())
        open_frames.append(record)
    finished.extend(reversed(open_frames))
    return finished


def upstream_instrument_with(records, threshold_ms):
    """Upstream's `TileLangPassTimingInstrument` holding upstream records made
    from the fields of `records`, as if its own callbacks had made them."""
    instrument = upstream.TileLangPassTimingInstrument(threshold_ms=threshold_ms)
    instrument._records.extend(
        upstream.PassTimingRecord(**dataclasses.asdict(record)) for record in completion_order(records)
    )
    return instrument


def shape(records):
    """What must match exactly between two timings of one run: per record
    its name, depth, kernel label and sequence."""
    return [(r.name, r.depth, r.kernel, r.sequence) for r in records]


def seed_report(cli_output: str) -> str:
    """The passes' report in what `passtiming report` prints: all before the
    phase table that follows it, after an empty line, when the profile
    holds phases (every TileLang compile's does)."""
    head, table, _ = cli_output.partition("\n\nPhases\n")
    return head + "\n" if table else cli_output


def run_cli(cli, *args, check=True):
    """Runs `passtiming ARGS`; returns the completed process (text mode)."""
    done = subprocess.run([cli, *args], capture_output=True, text=True, timeout=120)
    if check:
        assert done.returncode == 0, f"passtiming {' '.join(args)} failed: {done.stderr}"
    return done


def profile_records(path):
    """[(context, [record dict, ...]), ...] of a JSON profile, per section."""
    with open(path, encoding="utf-8") as f:
        profile = json.load(f)
    assert profile["format"] == "passtiming-profile"
    return [(section["context"], section["records"]) for section in profile["sections"]]
