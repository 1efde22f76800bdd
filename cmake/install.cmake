# `cmake --install build --prefix P`: the library, its public headers (include/linksim/), the
# CLI, and a CMake package so another project can `find_package(linksim)` and link
# linksim::linksim (examples/allreduce_sweep/ is such a project).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(LINKSIM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/linksim)

install(TARGETS linksim EXPORT linksimTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/linksim DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS linksim_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT linksimTargets NAMESPACE linksim:: DESTINATION ${LINKSIM_CMAKE_DIR})

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/linksimConfig.cmake.in
  ${PROJECT_BINARY_DIR}/linksimConfig.cmake INSTALL_DESTINATION ${LINKSIM_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/linksimConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/linksimConfig.cmake
  ${PROJECT_BINARY_DIR}/linksimConfigVersion.cmake DESTINATION ${LINKSIM_CMAKE_DIR})
