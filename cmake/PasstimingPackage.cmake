# The Debian package, `cpack -G DEB` in a build directory: what
# `cmake --install` puts in place but the Python package (pip installs that,
# pyproject.toml), under /usr. That is the `passtiming` command, the LLVM
# pass plugin beside the libraries (where the installed `passtiming run`
# finds it), `passtiming-mlir-opt`, the headers, the static libraries and the
# CMake package (find_package(passtiming)).
#
# Depends: the shared libraries the binaries link, as dpkg-shlibdeps names
# their packages, and the -dev packages the CMake package's
# find_dependency() calls need (cmake/passtimingConfig.cmake.in).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME passtiming)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_VENDOR passtiming)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "per-pass timing for compiler pipelines (clang-19 plugin, MLIR, C++ library)")
set(CPACK_PACKAGE_DESCRIPTION
    "passtiming times every pass of a compile: `passtiming run -- clang-19 ...` loads the\n\
LLVM pass plugin into clang-19 or opt-19 and prints a report per translation unit;\n\
passtiming-mlir-opt times MLIR pipelines; the C++ library (find_package(passtiming))\n\
times a TVM-shaped PassContext. Profiles are aggregated, compared and gated in CI\n\
by the passtiming command.")
set(CPACK_PACKAGE_CONTACT "passtiming maintainers <passtiming@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
# The default component only: the Python package is pip's (`python`).
set(CPACK_INSTALL_CMAKE_PROJECTS "${PROJECT_BINARY_DIR};${PROJECT_NAME};Unspecified;/")

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libfmt-dev (>= 9), libsimdjson-dev")
# The plugin is loaded by LLVM 19's clang and opt.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "clang-19")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "llvm-19, cmake")

include(CPack)
