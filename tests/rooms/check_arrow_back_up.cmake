# cmake -DBINARY_DIR=DIR -DCONFIG=CFG -DBACK_UP_TARGET=T -DCONTROL_TARGET=C
#       -DFUNCTION=NAME -P check_arrow_back_up.cmake
#
# Passes only when the build of CONTROL_TARGET (the source linked against the
# right room) succeeds and the build of BACK_UP_TARGET (the same source linked
# against a room below the one it calls) fails with an undefined reference
# naming FUNCTION. Any other failure, or a back-up build that links, fails.
foreach(var BINARY_DIR BACK_UP_TARGET CONTROL_TARGET FUNCTION)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "check_arrow_back_up.cmake: ${var} is not set")
  endif()
endforeach()

set(config_args "")
if(NOT "${CONFIG}" STREQUAL "")
  set(config_args --config "${CONFIG}")
endif()

function(build target result output)
  execute_process(
    COMMAND ${CMAKE_COMMAND} --build "${BINARY_DIR}" ${config_args} --target ${target}
    RESULT_VARIABLE rc
    OUTPUT_VARIABLE out
    ERROR_VARIABLE out)
  set(${result} "${rc}" PARENT_SCOPE)
  set(${output} "${out}" PARENT_SCOPE)
endfunction()

# The control first: the source itself compiles and links against its room.
build(${CONTROL_TARGET} control_rc control_out)
if(NOT control_rc EQUAL 0)
  message(FATAL_ERROR
    "${CONTROL_TARGET}, the source linked against the right room, did not build "
    "(${control_rc}):\n${control_out}")
endif()
message(STATUS "${CONTROL_TARGET} builds")

build(${BACK_UP_TARGET} back_up_rc back_up_out)
if(back_up_rc EQUAL 0)
  message(FATAL_ERROR
    "${BACK_UP_TARGET} linked, though it calls ${FUNCTION} of a room its library does not "
    "link: the rooms' arrows are not enforced\n${back_up_out}")
endif()
# GNU ld: "undefined reference to `NAME(...)'"; lld: "undefined symbol: NAME(...)".
if(NOT back_up_out MATCHES "(undefined reference to [`']|undefined symbol: )${FUNCTION}[[(]")
  message(FATAL_ERROR
    "${BACK_UP_TARGET} failed, but not with an undefined reference to ${FUNCTION}:\n"
    "${back_up_out}")
endif()
message(STATUS "${BACK_UP_TARGET} fails to link: undefined reference to ${FUNCTION}")
