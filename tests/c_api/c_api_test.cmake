# The C program that calls every exported function (compiled as C), natively from packaging.cmake
# and under the emulator from cross/cross.cmake.
add_executable(ofg_c_api_test ${CMAKE_SOURCE_DIR}/tests/c_api/c_api_test.c)
set_source_files_properties(${CMAKE_SOURCE_DIR}/tests/c_api/c_api_test.c PROPERTIES LANGUAGE C)
target_link_libraries(ofg_c_api_test PRIVATE onnxforge)
add_test(NAME c_api_every_function COMMAND ofg_c_api_test ${CMAKE_BINARY_DIR})
set_tests_properties(c_api_every_function PROPERTIES LABELS capi)
