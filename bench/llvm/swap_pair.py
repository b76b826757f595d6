#!/usr/bin/env python3
"""Runs two commands at the same time on two processors, swapping the
processors between them every INTERVAL seconds, and prints each one's wall
and CPU seconds: `WALL_A WALL_B CPU_A CPU_B`.

Why swap: on a virtual machine one processor can run tens of percent slower
than the other for minutes at a time. Two compiles started together and
pinned one to each processor then differ by the processors' speeds as much
as by their own. Swapped every quarter of a second, each command spends
half its life on either processor, so both see the same machine: what
slows one processor down, or the whole host, slows both alike.

Usage: swap_pair.py INTERVAL CPU_A CPU_B 'COMMAND A' 'COMMAND B'
  INTERVAL  seconds between swaps (0: never swap, each stays pinned)
  CPU_A     the processor command A starts on (and command B on CPU_B); the
            caller alternates them between pairs, and which command is
            started first follows the same order: A first when
            CPU_A < CPU_B
  COMMAND   split into words as the shell would, without expanding
            anything; `env NAME=VALUE ...` sets a command's environment
The commands' standard output is discarded; a command that fails has its
standard error printed, and the exit status is 1. Linux only (pidfd,
sched_setaffinity).
"""
import os
import select
import shlex
import subprocess
import sys
import tempfile
import time


def pin(pid, cpu):
    """Moves every thread of `pid` to `cpu`; a thread that has just exited
    is not an error."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return
    for tid in threads:
        try:
            os.sched_setaffinity(int(tid), {cpu})
        except (ProcessLookupError, FileNotFoundError):
            pass


def main(argv):
    if len(argv) != 6:
        sys.stderr.write(__doc__)
        return 2
    try:
        interval = float(argv[1])
        cpus = [int(argv[2]), int(argv[3])]
    except ValueError as error:
        sys.stderr.write(f"swap_pair: {error}\n")
        return 2
    commands = [shlex.split(argv[4]), shlex.split(argv[5])]
    if interval < 0 or cpus[0] == cpus[1] or not all(commands):
        sys.stderr.write(
            "swap_pair: INTERVAL must be >= 0, CPU_A and CPU_B must differ, "
            "and both commands must be given\n")
        return 2

    errors = [tempfile.TemporaryFile() for _ in commands]
    processes = [None, None]
    started = [0.0, 0.0]
    order = [0, 1] if cpus[0] < cpus[1] else [1, 0]
    for i in order:
        cpu = cpus[i]
        started[i] = time.monotonic()
        processes[i] = subprocess.Popen(
            commands[i], stdout=subprocess.DEVNULL, stderr=errors[i],
            preexec_fn=lambda cpu=cpu: os.sched_setaffinity(0, {cpu}))

    pidfds = {os.pidfd_open(p.pid): i for i, p in enumerate(processes)}
    wall = [None, None]
    cpu_seconds = [None, None]
    statuses = [None, None]
    next_swap = time.monotonic() + interval
    swaps = 0
    while pidfds:
        timeout = max(0.0, next_swap - time.monotonic()) if interval else None
        ready, _, _ = select.select(list(pidfds), [], [], timeout)
        now = time.monotonic()
        for fd in ready:
            i = pidfds.pop(fd)
            os.close(fd)
            wall[i] = now - started[i]
            _, status, usage = os.wait4(processes[i].pid, 0)
            statuses[i] = os.waitstatus_to_exitcode(status)
            cpu_seconds[i] = usage.ru_utime + usage.ru_stime
        if interval and now >= next_swap:
            swaps += 1
            cpus.reverse()
            # Moving one command first puts both on one processor for a few
            # microseconds; alternating which one goes first shares that out.
            for i in ([0, 1] if swaps % 2 else [1, 0]):
                if statuses[i] is None:
                    pin(processes[i].pid, cpus[i])
            next_swap += interval
            if next_swap < now:
                next_swap = now + interval

    failed = False
    for i, status in enumerate(statuses):
        if status != 0:
            failed = True
            errors[i].seek(0)
            sys.stderr.write(f"swap_pair: command {'AB'[i]} exited with {status}: "
                             f"{shlex.join(commands[i])}\n")
            sys.stderr.write(errors[i].read().decode(errors="replace"))
    if failed:
        return 1
    print(f"{wall[0]:.3f} {wall[1]:.3f} {cpu_seconds[0]:.3f} {cpu_seconds[1]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
