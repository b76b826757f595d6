"""Every command block of the README, run verbatim.

The README's indented blocks are commands a new user copies. Each one is
listed below with how it runs and what it must leave behind; a block the
README gains or changes without this file knowing fails the test, so the
README cannot drift from what works. The blocks run in a scratch directory
holding the files they name (file.c, in.ll, a Makefile, my_kernels.py),
with `passtiming` on the PATH as the README assumes, `python` being the
TileLang environment's, and `build` pointing at this build.

One command is not run: `scripts/test.sh`, the whole suite, which is what
runs this test.
"""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SOURCE_DIR = Path(os.environ["PASSTIMING_SOURCE_DIR"])
BUILD_DIR = Path(os.environ["PASSTIMING_BUILD_DIR"])
README = SOURCE_DIR / "README.md"

# The one command that cannot run inside the suite: it is the suite.
NOT_RUN = {"scripts/test.sh"}


def command_blocks(text):
    """The README's indented blocks (four spaces after a blank line), as
    lists of lines without the indent; fenced blocks are not commands."""
    blocks, current, fenced, previous_blank = [], None, False, True
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if line.startswith("    ") and (current is not None or previous_blank):
            if current is None:
                current = []
                blocks.append(current)
            current.append(line[4:])
        elif line.strip() == "" and current is not None:
            current.append("")
        else:
            current = None
        previous_blank = line.strip() == ""
    return [[l for l in b if l.strip()] for b in blocks]


def first_word(line):
    return line.split()[0]


@pytest.fixture(scope="module")
def blocks():
    return command_blocks(README.read_text())


C_FILE = """\
static int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
int sum(const int* v, int n) {
  int t = 0;
  for (int i = 0; i < n; ++i) t += clamp(v[i], 0, 255);
  return t;
}
"""

MAKEFILE = """\
OBJS = a.o b.o
all: $(OBJS)
clean:
\trm -f $(OBJS)
"""


@pytest.fixture()
def scratch(tmp_path):
    """The scratch directory and the environment the blocks run in."""
    (tmp_path / "file.c").write_text(C_FILE)
    (tmp_path / "a.c").write_text(C_FILE)
    (tmp_path / "b.c").write_text(C_FILE.replace("sum", "total"))
    (tmp_path / "Makefile").write_text(MAKEFILE)
    subprocess.run(["clang-19", "-O0", "-Xclang", "-disable-O0-optnone", "-S", "-emit-llvm",
                    "file.c", "-o", "in.ll"], cwd=tmp_path, check=True)
    shutil.copy(SOURCE_DIR / "examples/tilelang/gemm.py", tmp_path / "my_kernels.py")
    (tmp_path / "build").symlink_to(BUILD_DIR)
    bin_dir = tmp_path / ".bin"
    bin_dir.mkdir()
    # A script, not a link: a virtual environment's interpreter finds its
    # packages from the path it was started by.
    (bin_dir / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (bin_dir / "python").chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join(
        [str(BUILD_DIR / "tools/passtiming"), str(bin_dir), env.get("PATH", "")])
    return tmp_path, env


def run_line(line, cwd, env, timeout=900):
    """One README line, verbatim, through bash."""
    result = subprocess.run(["bash", "-c", line], cwd=cwd, env=env, capture_output=True,
                            text=True, timeout=timeout)
    assert result.returncode == 0, f"{line}\nstatus {result.returncode}\n{result.stderr[-4000:]}"
    return result


def block_starting(blocks, start):
    found = [b for b in blocks if b[0].startswith(start)]
    assert len(found) == 1, f"the README has {len(found)} blocks starting {start!r}"
    return found[0]


def test_every_block_is_known(blocks):
    """Each block is one of those tested below: a new or changed block needs
    its test."""
    starts = [b[0] for b in blocks]
    known = [
        "scripts/demo.sh",
        "import passtiming.tilelang",
        "passtiming run --threshold-ms 1 -o 'profiles/tl-%p-%n.json' -- python my_kernels.py",
        "passtiming run -- clang-19 -O2 -c file.c -o file.o",
        "passtiming run --no-report --metrics cpu -o 'profiles/tu-%p.json' -- make -j2 CC=clang-19",
        "passtiming run --phases -o file.json -- clang-19 -O2 -c file.c -o file.o",
        "adapters/*, bindings/python, tools/passtiming",
    ]
    assert len(starts) == len(known), starts
    for start, expected in zip(starts, known):
        assert start.startswith(expected), (start, expected)


def test_the_two_commands(blocks, scratch):
    block = block_starting(blocks, "scripts/demo.sh")
    assert [first_word(l) for l in block] == ["scripts/demo.sh", "scripts/test.sh"]
    # The demo runs from the clone, as the README says.
    result = run_line(block[0], SOURCE_DIR, scratch[1])
    assert "Pass Timing Report" in result.stdout + result.stderr
    assert {first_word(l) for l in block if first_word(l) in NOT_RUN} == NOT_RUN


def test_time_tilelang_in_python(blocks, scratch):
    cwd, env = scratch
    block = block_starting(blocks, "import passtiming.tilelang")
    env = dict(env, PYTHONPATH=str(BUILD_DIR / "python"))
    program = "\n".join(block) + "\nimport runpy\nrunpy.run_path('my_kernels.py', run_name='__main__')\n"
    result = subprocess.run([sys.executable, "-c", program], cwd=cwd, env=env, capture_output=True,
                            text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-4000:]
    assert glob.glob(str(cwd / "tl-*.json")), os.listdir(cwd)


def test_time_an_unchanged_tilelang_script(blocks, scratch):
    cwd, env = scratch
    line = block_starting(blocks, "passtiming run --threshold-ms 1 -o 'profiles/tl-")[0]
    result = run_line(line, cwd, env)
    assert "TileLang Pass Timing Report" in result.stdout + result.stderr
    assert glob.glob(str(cwd / "profiles/tl-*.json")), os.listdir(cwd / "profiles")


def test_time_a_real_compiler(blocks, scratch):
    cwd, env = scratch
    block = block_starting(blocks, "passtiming run -- clang-19")
    assert len(block) == 4, block
    outputs = {0: "file.o", 1: "file.json", 2: "out.bc", 3: "file.o"}
    for i, line in enumerate(block):
        for name in ("file.o", "file.json", "out.bc"):
            (cwd / name).unlink(missing_ok=True)
        result = run_line(line, cwd, env)
        assert (cwd / outputs[i]).is_file(), line
        assert "Pass Timing Report" in result.stdout + result.stderr, line


def test_time_a_whole_build(blocks, scratch):
    cwd, env = scratch
    block = block_starting(blocks, "passtiming run --no-report --metrics cpu")
    assert len(block) == 2, block
    result = run_line(block[0], cwd, env)
    assert "passtiming run: wrote 2 profiles" in result.stderr
    assert len(glob.glob(str(cwd / "profiles/tu-*.json"))) == 2
    result = run_line(block[1], cwd, env)
    assert "Pass Timing Summary by kernel, measure: cpu" in result.stdout
    # The functions of both translation units, and the modules themselves.
    for kernel in ("sum", "total", "clamp", "a.c", "b.c"):
        assert re.search(rf"^\s+\d+\s+{re.escape(kernel)}\s", result.stdout, re.M), result.stdout


def test_time_the_whole_compile(blocks, scratch):
    cwd, env = scratch
    block = block_starting(blocks, "passtiming run --phases")
    assert len(block) == 1, block
    for name in ("file.o", "file.json"):
        (cwd / name).unlink(missing_ok=True)
    result = run_line(block[0], cwd, env)
    assert (cwd / "file.o").is_file()
    assert "\nPhases\nPhase " in result.stdout, result.stdout[-2000:]
    profile = json.loads((cwd / "file.json").read_text())
    names = [p["name"] for p in profile["phases"] if p["parent"] == 0]
    assert "front end" in names and "back end" in names, names


def test_the_diagram_is_not_a_command(blocks):
    block = block_starting(blocks, "adapters/*, bindings/python, tools/passtiming")
    assert any("──▶" in line for line in block)
