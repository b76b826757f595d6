# Installs the project into a scratch prefix (cmake --install), then times a
# real clang-19 compile with the installed `passtiming run`, which must find
# the installed plugin beside its own bin directory (no build tree, no
# PASSTIMING_LLVM_PLUGIN).
#   cmake -DBUILD_DIR=… -DPREFIX=… -DSOURCE=file.c -P install_check.cmake
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}"
                OUTPUT_QUIET RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${status})")
endif()
set(tool "${PREFIX}/bin/passtiming")
if(NOT EXISTS "${tool}")
  message(FATAL_ERROR "no ${tool} after cmake --install")
endif()
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env --unset=PASSTIMING_LLVM_PLUGIN --unset=PASSTIMING_PROFILE
          --unset=PASSTIMING_EVENTS --unset=PASSTIMING_REPORT --unset=PASSTIMING_METRICS
          "${tool}" run -- clang-19 -O2 -c "${SOURCE}" -o "${PREFIX}/out.o"
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the installed passtiming run failed (${status}): ${err}")
endif()
if(NOT out MATCHES "Pass Timing Report" OR NOT out MATCHES "Total: [0-9.]+s \\([0-9]+ passes\\)")
  message(FATAL_ERROR "no report from the installed passtiming run:\n${out}\n${err}")
endif()
if(NOT EXISTS "${PREFIX}/out.o")
  message(FATAL_ERROR "the compile wrote no object file")
endif()
message(STATUS "the installed passtiming run timed ${SOURCE} with the installed plugin")
