# Fails when a C++ source of the project differs from what clang-format makes
# of it under the checked-in .clang-format. Run by the `format_check` test:
#   cmake -DCLANG_FORMAT=PATH -DSOURCE_DIR=DIR -P CheckFormat.cmake
# The sources are found by globbing, not by asking git, so the check also runs
# on an unpacked release without a repository.
foreach(var CLANG_FORMAT SOURCE_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "CheckFormat.cmake: -D${var}=... is required")
  endif()
endforeach()

set(patterns)
foreach(dir adapters bench bindings examples fuzz include src tests tools)
  list(APPEND patterns "${SOURCE_DIR}/${dir}/*.cc" "${SOURCE_DIR}/${dir}/*.h")
endforeach()
file(GLOB_RECURSE sources LIST_DIRECTORIES false ${patterns})
# Inputs the benchmarks fetch (third-party sources) are not the project's.
list(FILTER sources EXCLUDE REGEX "/bench/\\.inputs/")
list(SORT sources)
list(LENGTH sources count)
if(count EQUAL 0)
  message(FATAL_ERROR "CheckFormat.cmake: no sources under ${SOURCE_DIR}")
endif()

execute_process(
  COMMAND "${CLANG_FORMAT}" --dry-run --Werror --style=file ${sources}
  WORKING_DIRECTORY "${SOURCE_DIR}"
  RESULT_VARIABLE status
  ERROR_VARIABLE diagnostics)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${diagnostics}\n"
    "Some sources are not formatted; run\n"
    "  ${CLANG_FORMAT} -i FILE...\n"
    "on the files named above.")
endif()
message(STATUS "${count} sources match .clang-format")
