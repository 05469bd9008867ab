# Tests only a cross build has (tests/CMakeLists.txt includes this file when CMAKE_CROSSCOMPILING):
# the C program that calls every exported function, run under the emulator, and a C consumer
# cross-built against the installed prefix through pkg-config and run under the emulator.
include(${CMAKE_SOURCE_DIR}/tests/c_api/c_api_test.cmake)

string(REPLACE ";" " " _ofg_emu "${CMAKE_CROSSCOMPILING_EMULATOR}")
add_test(NAME cross_pkgconfig_consumer
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/consume_cross.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR}
          ${CMAKE_C_COMPILER} "${CMAKE_C_FLAGS}" "${_ofg_emu}" "${CMAKE_TOOLCHAIN_FILE}")
set_tests_properties(cross_pkgconfig_consumer PROPERTIES LABELS capi TIMEOUT 600)

# Android (Bionic) guards, checked without an NDK: see android_guards.sh.
add_test(NAME android_api_guards
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/android_guards.sh ${CMAKE_CXX_COMPILER} ${CMAKE_SOURCE_DIR} ${OFG_PROTO_INCLUDE_DIR})
set_tests_properties(android_api_guards PROPERTIES LABELS capi TIMEOUT 600)
