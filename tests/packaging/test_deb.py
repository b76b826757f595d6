"""The Debian package: `cpack -G DEB` in the build directory, then its
contents (`dpkg-deb -c`), its control fields (`dpkg-deb -I`/`-f`), and an
install into a throwaway root (`dpkg -x`), where the installed
`passtiming run` times a real clang-19 compile with the installed plugin,
the installed passtiming-mlir-opt times an MLIR pipeline, and the README's
ten lines of C++ build with find_package(passtiming) against the
installed CMake package."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import BUILD_DIR, README, SOURCE_DIR, run, user_environment

CPACK = os.environ["PASSTIMING_CPACK"]
CMAKE = os.environ["PASSTIMING_CMAKE"]


@pytest.fixture(scope="module")
def deb(tmp_path_factory, version) -> Path:
    out = tmp_path_factory.mktemp("deb")
    run([CPACK, "-G", "DEB", "--config", BUILD_DIR / "CPackConfig.cmake", "-B", out],
        cwd=out, timeout=1200)
    debs = list(out.glob("*.deb"))
    assert [d.name for d in debs] == [f"passtiming_{version}_amd64.deb"], debs
    return debs[0]


@pytest.fixture(scope="module")
def root(deb, tmp_path_factory) -> Path:
    """The package unpacked into a throwaway root, as dpkg installs it."""
    root = tmp_path_factory.mktemp("root")
    run(["dpkg", "-x", deb, root])
    return root


def field(deb: Path, name: str) -> str:
    return run(["dpkg-deb", "-f", deb, name]).stdout.strip()


def test_contents(deb):
    listed = run(["dpkg-deb", "-c", deb]).stdout
    paths = {line.split()[-1].lstrip(".") for line in listed.splitlines()}
    for required in ("/usr/bin/passtiming", "/usr/bin/passtiming-mlir-opt",
                     "/usr/lib/libpasstiming_llvm.so", "/usr/include/passtiming/passtiming.h",
                     "/usr/include/passtiming/llvm.h", "/usr/include/passtiming/engine/version.h",
                     "/usr/lib/cmake/passtiming/passtimingConfig.cmake",
                     "/usr/lib/cmake/passtiming/passtimingConfigVersion.cmake",
                     "/usr/lib/cmake/passtiming/passtimingTargets.cmake",
                     "/usr/lib/libpasstiming_engine.a"):
        assert required in paths, (required, listed)
    assert all(p.startswith("/usr") or p == "/" for p in paths), listed
    # The Python package is pip's, not the .deb's.
    assert not [p for p in paths if "python" in p], listed


def test_control_fields(deb, version):
    info = run(["dpkg-deb", "-I", deb]).stdout
    assert re.search(r"^ Package: passtiming$", info, re.M), info
    assert field(deb, "Version") == version
    assert field(deb, "Architecture") == "amd64"
    depends = [d.strip() for d in field(deb, "Depends").split(",")]
    names = {re.split(r"[ (]", d)[0] for d in depends}
    # dpkg-shlibdeps' names for what the binaries link, and the -dev
    # packages the CMake package's find_dependency() calls need.
    # libzookeeper-mt2: `push --zookeeper`'s client (scripts/setup.sh
    # installs libzookeeper-mt-dev).
    for expected in ("libc6", "libstdc++6", "libfmt9", "libsimdjson14", "libcurl4",
                     "libzookeeper-mt2", "libmlir-19", "libfmt-dev", "libsimdjson-dev"):
        assert expected in names, (expected, depends)
    # Each is a package this machine's dpkg has installed from Debian, and
    # apt would install the package with them (a simulation: nothing changes).
    for name in names:
        installed = run(["dpkg-query", "-W", "-f=${Status}", name], check=False).stdout
        assert installed == "install ok installed", f"Depends names {name!r}: {installed!r}"
    simulated = run(["apt-get", "install", "--simulate", "--no-install-recommends", deb]).stdout
    assert re.search(rf"^Inst passtiming \({re.escape(version)} ", simulated, re.M), simulated


def test_installed_run_times_clang_with_the_installed_plugin(root, version, tmp_path):
    tool = root / "usr/bin/passtiming"
    env = user_environment()
    assert run([tool, "--version"], env=env).stdout.strip() == f"passtiming {version}"
    source = SOURCE_DIR / "examples/c/particles.c"
    result = run([tool, "run", "--", "clang-19", "-O2", "-c", source, "-o", tmp_path / "out.o"],
                 env=env)
    assert "Pass Timing Report" in result.stdout, result
    assert re.search(r"Total: [0-9.]+s \([0-9]+ passes\)", result.stdout), result.stdout
    assert (tmp_path / "out.o").is_file()
    # The plugin found was the installed one: without it, run names where it looked.
    plugin = root / "usr/lib/libpasstiming_llvm.so"
    plugin.rename(tmp_path / "plugin.so")
    try:
        missing = run([tool, "run", "--", "clang-19", "-c", source, "-o", tmp_path / "o2.o"],
                      env=env, check=False)
    finally:
        (tmp_path / "plugin.so").rename(plugin)
    assert missing.returncode != 0
    assert str(plugin) in missing.stderr, missing.stderr


def test_installed_mlir_opt_times_a_pipeline(root):
    pipeline = (SOURCE_DIR / "examples/mlir/pipeline.txt").read_text().strip()
    result = run([root / "usr/bin/passtiming-mlir-opt", SOURCE_DIR / "examples/mlir/matmul_tiled.mlir",
                  f"--pass-pipeline={pipeline}", "--passtiming", "-o", "/dev/null"])
    assert "Pass Timing Report" in result.stdout + result.stderr, result


def ten_lines_program() -> str:
    """The README's ten lines of C++, verbatim, in a program that defines
    the `mod` and `lowering_pipeline` they use."""
    text = README.read_text()
    block = re.search(r"## Ten lines of C\+\+\n\n```cpp\n(.*?)```", text, re.S)
    assert block, "the README has no ten lines of C++"
    lines = block.group(1).splitlines()
    head = [l for l in lines if l.startswith(("#include", "using namespace"))]
    body = [l for l in lines if l not in head]
    return "\n".join([
        *head,
        "",
        "int main() {",
        '  IRModule mod({{"main", "matmul"}});',
        "  PassPtr lowering_pipeline = make_sequential(",
        '      {make_module_pass([](IRModule m, PassContext&) { return m; }, {.name = "tl.Simplify"}),',
        '       make_module_pass([](IRModule m, PassContext&) { return m; }, {.name = "tl.LowerTileOp"})},',
        '      "tl.lower");',
        *("  " + l for l in body),
        "  return 0;",
        "}",
        ""])


def test_the_ten_lines_build_against_the_installed_cmake_package(root, tmp_path):
    (tmp_path / "ten_lines.cc").write_text(ten_lines_program())
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\n"
        "project(ten_lines LANGUAGES CXX)\n"
        "set(CMAKE_CXX_STANDARD 20)\n"
        "find_package(passtiming REQUIRED)\n"
        "message(STATUS \"passtiming_DIR=${passtiming_DIR}\")\n"
        "add_executable(ten_lines ten_lines.cc)\n"
        "target_link_libraries(ten_lines PRIVATE passtiming::passtiming)\n")
    configured = run([CMAKE, "-S", tmp_path, "-B", tmp_path / "build", "-G", "Ninja",
                      f"-DCMAKE_PREFIX_PATH={root / 'usr'}"])
    assert f"passtiming_DIR={root}/usr/lib/cmake/passtiming" in configured.stdout, configured.stdout
    run([CMAKE, "--build", tmp_path / "build"])
    result = run([tmp_path / "build/ten_lines"])
    output = result.stdout + result.stderr
    assert "Pass Timing Report" in output and "stage=lower, kernel=matmul" in output, output
    for name in ("tl.lower", "tl.Simplify", "tl.LowerTileOp"):
        assert name in output, (name, output)
