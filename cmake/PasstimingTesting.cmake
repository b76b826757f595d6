# passtiming_add_test(NAME SOURCES... [ROOM room] [LIBS libs...] [SERIAL filter]):
# one GoogleTest binary, registered with CTest test by test. Every test sees
# the shared helpers of tests/ (test_support.h and profile_fixtures.h, which
# reach only the engine; host_support.h, for the tests of the host) and, as
# PASSTIMING_GOLDEN_DIR, the golden files of tests/golden. The tests matching
# the GoogleTest filter SERIAL run with nothing else beside them (RUN_SERIAL):
# those that compare two clocks over the same work, which a browser or a
# compiler running on the other core would skew.
find_package(GTest REQUIRED)
include(GoogleTest)

function(passtiming_add_test name)
  cmake_parse_arguments(ARG "" "SERIAL;ROOM" "LIBS" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  # A room's tests link that room's library alone (it brings the rooms below
  # it), so a test, like the room, cannot reach a room above: the link fails.
  if(ARG_ROOM)
    set(core passtiming::${ARG_ROOM})
  else()
    set(core passtiming::passtiming)
  endif()
  target_link_libraries(${name} PRIVATE ${core} GTest::gtest GTest::gtest_main
                                        fmt::fmt ${ARG_LIBS})
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                                             ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(${name} PRIVATE
    PASSTIMING_TEST_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/data"
    PASSTIMING_GOLDEN_DIR="${PROJECT_SOURCE_DIR}/tests/golden")
  passtiming_set_warnings(${name})
  if(ARG_SERIAL)
    gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 TEST_FILTER "-${ARG_SERIAL}")
    gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 TEST_FILTER "${ARG_SERIAL}"
                         PROPERTIES RUN_SERIAL TRUE)
  else()
    gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60)
  endif()
endfunction()
