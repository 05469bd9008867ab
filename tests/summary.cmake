# The test summary's reader (tests/ctest_summary.py, used by .ci/dev and tests/cross/run_cross.sh)
# on a JUnit file with passes, skips of every kind, failures and a timeout.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME ctest_summary_counts_skips
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/summary/ctest_summary_test.py)
endif()
