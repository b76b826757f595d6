"""One run of a side of `passtiming gate`, timed by a scripted clock: the
passes steady (50 ms), noisy (20 ms, its runs spreading by 4 % on a log
scale) and wild (30 ms, spreading by 50 %). The k-th run of a side (counted
in the file count-SIDE of the working directory) takes the k-th value of a
fixed sequence of normal quantiles, so every run and every verdict is the
same on every machine.

    python gate_side.py base
    python gate_side.py new 1.12   # noisy 12 % slower
"""

import math
import os
import sys
from statistics import NormalDist

import passtiming

side = sys.argv[1]
slower = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
counter = f"count-{side}"
k = int(open(counter).read()) if os.path.exists(counter) else 0
with open(counter, "w") as out:
    out.write(str(k + 1))
# 60 quantiles in an order that runs through them evenly; the new side
# starts halfway, so the two sides' values differ.
i = k + (0 if side == "base" else 30)
z = NormalDist().inv_cdf(((i * 37) % 60 + 0.5) / 60)
seconds = {
    "steady": 0.050 * (1 + 0.001 * z),
    "noisy": 0.020 * math.exp(0.04 * z) * slower,
    "wild": 0.030 * math.exp(0.5 * z),
}

clock = passtiming.ManualClock()
timing = passtiming.TileLangPassTimingInstrument(clock=clock)
reads, now = [0.0], 0.0  # enter, then before and after each pass, then exit
for duration in seconds.values():
    reads += [now, now + duration]
    now += duration
clock.script_seconds(reads + [now])


class PassInfo:
    def __init__(self, name):
        self.name = name


instrument = timing.instrument
instrument.enter_pass_ctx()
for name in seconds:
    instrument.run_before_pass(None, PassInfo(name))
    instrument.run_after_pass(None, PassInfo(name))
instrument.exit_pass_ctx()
