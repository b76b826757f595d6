# Install the core library, its headers and a CMake package so that consumers
# write find_package(passtiming) and link passtiming::passtiming.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS passtiming passtiming_engine passtiming_formats passtiming_analysis
                passtiming_recorder passtiming_host EXPORT passtimingTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The fleet room (libcurl) is the command's, not installed as a library:
# its headers stay with it.
install(DIRECTORY include/passtiming DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        PATTERN fleet EXCLUDE)
if(TARGET passtiming_cli)
  install(TARGETS passtiming_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
if(TARGET passtiming_mlir_opt)
  # Debian's libMLIR.so and libLLVM.so live in /usr/lib/llvm-19/lib, which the
  # loader does not search: the installed tool keeps that directory as its
  # run path.
  set_target_properties(passtiming_mlir_opt PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
  install(TARGETS passtiming_mlir_opt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

set(PASSTIMING_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/passtiming)
install(EXPORT passtimingTargets NAMESPACE passtiming:: DESTINATION ${PASSTIMING_CMAKE_DIR})
export(EXPORT passtimingTargets NAMESPACE passtiming::
       FILE ${PROJECT_BINARY_DIR}/passtimingTargets.cmake)
configure_package_config_file(cmake/passtimingConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/passtimingConfig.cmake
                              INSTALL_DESTINATION ${PASSTIMING_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/passtimingConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/passtimingConfig.cmake
              ${PROJECT_BINARY_DIR}/passtimingConfigVersion.cmake
        DESTINATION ${PASSTIMING_CMAKE_DIR})
