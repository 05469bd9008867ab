# Installs the shared and static library, header, command line, pkg-config file, CMake package
# files and the Python package.
include(CMakePackageConfigHelpers)

install(TARGETS onnxforge onnxforge_static EXPORT onnxforgeTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
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

# Python package: the sources of bindings/python/onnxforge, plus _install_paths.py telling the
# package where the library is relative to itself (computed at install time, so that
# `cmake --install build --prefix P` works for any P).
if(OFG_INSTALL_PYTHON)
  install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/bindings/python/onnxforge DESTINATION ${OFG_PYTHON_INSTALL_DIR}
    PATTERN "__pycache__" EXCLUDE PATTERN "_install_paths.py" EXCLUDE)
  install(CODE "
    set(_pkg \"${OFG_PYTHON_INSTALL_DIR}/onnxforge\")
    set(_lib \"${CMAKE_INSTALL_LIBDIR}\")
    if(NOT IS_ABSOLUTE \"\${_pkg}\")
      set(_pkg \"\${CMAKE_INSTALL_PREFIX}/\${_pkg}\")
    endif()
    if(NOT IS_ABSOLUTE \"\${_lib}\")
      set(_lib \"\${CMAKE_INSTALL_PREFIX}/\${_lib}\")
    endif()
    file(RELATIVE_PATH _rel \"\${_pkg}\" \"\${_lib}\")
    message(STATUS \"Installing: \$ENV{DESTDIR}\${_pkg}/_install_paths.py\")
    file(WRITE \"\$ENV{DESTDIR}\${_pkg}/_install_paths.py\"
      \"# Written by cmake --install: the library folder, relative to this package.\\nLIBDIR_FROM_PACKAGE = '\${_rel}'\\n\")
  ")
endif()
