# Installs the library, header, command line, pkg-config file and CMake package files.
include(CMakePackageConfigHelpers)

install(TARGETS onnxforge EXPORT onnxforgeTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  PUBLIC_HEADER DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS onnxforge_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT onnxforgeTargets NAMESPACE onnxforge:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/onnxforge)

configure_package_config_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/onnxforgeConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/onnxforgeConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/onnxforge)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/onnxforgeConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/onnxforgeConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/onnxforgeConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/onnxforge)

# pkg-config: paths relative to the installed .pc so the prefix can be moved.
set(OFG_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
set(OFG_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/pkgconfig/onnxforge.pc.in ${CMAKE_CURRENT_BINARY_DIR}/onnxforge.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/onnxforge.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
