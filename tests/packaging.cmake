# Install + consumer builds (C through pkg-config and find_package, shared and static; the
# example program; the Python package), the exported-symbol list, and a C program that calls every
# exported function (compiled as C, also under the sanitizer build).
include(${CMAKE_SOURCE_DIR}/cmake/TestPython.cmake)
if(NOT OFG_SANITIZE)
  add_test(NAME packaging_consumers
    COMMAND bash ${CMAKE_SOURCE_DIR}/tests/packaging/consume.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR} ${OFG_PYTHON3})
  set_tests_properties(packaging_consumers PROPERTIES TIMEOUT 600)
endif()

add_test(NAME abi_exported_symbols
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/abi/check_symbols.sh $<TARGET_FILE:onnxforge> ${CMAKE_SOURCE_DIR}/tests/abi/exported_symbols.txt)

include(${CMAKE_SOURCE_DIR}/tests/c_api/c_api_test.cmake)

# A machine without GoogleTest or Google Benchmark: configuring succeeds and leaves tests and
# benchmarks off (simulated by hiding both packages from find_package).
add_test(NAME configure_without_gtest
  COMMAND sh -c "d=$(mktemp -d) && trap 'rm -rf \"$d\"' EXIT && cmake -S \"$0\" -B \"$d\" -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON >\"$d.log\" 2>&1 || { cat \"$d.log\"; rm -f \"$d.log\"; exit 1; }; rm -f \"$d.log\"; grep -q '^OFG_BUILD_TESTS:BOOL=OFF' \"$d/CMakeCache.txt\" && grep -q '^OFG_BUILD_BENCH:BOOL=OFF' \"$d/CMakeCache.txt\" && echo 'configured without GoogleTest and Google Benchmark: tests and benchmarks off'"
          ${CMAKE_SOURCE_DIR})
set_tests_properties(configure_without_gtest PROPERTIES TIMEOUT 300)
