# Installs only the Python component into a scratch prefix and imports the
# module from there with the interpreter it was built for.
#   cmake -DBUILD_DIR=… -DPREFIX=… -DINSTALL_DIR=… -DPYTHON=… -P install_check.cmake
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --component python
                        --prefix "${PREFIX}"
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${status})")
endif()
set(site "${PREFIX}/${INSTALL_DIR}")
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${site}" PYTHONNOUSERSITE=1
          "${PYTHON}" -c "import passtiming; print(passtiming.__file__)"
  OUTPUT_VARIABLE imported OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${PYTHON} could not import the installed module from ${site}")
endif()
cmake_path(GET imported PARENT_PATH package_dir)
cmake_path(GET package_dir PARENT_PATH imported_dir)
file(REAL_PATH "${site}" site)
file(REAL_PATH "${imported_dir}" imported_dir)
if(NOT imported_dir STREQUAL site)
  message(FATAL_ERROR "imported ${imported}, expected a module in ${site}")
endif()
message(STATUS "installed module imports from ${imported}")
