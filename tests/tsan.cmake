# The worker pool of kernels/parallel.cpp under ThreadSanitizer: the pool alone (it uses only the
# standard library) is built a second time with -fsanitize=thread into a small program, so the
# check costs two small compiles instead of a third build of the library. Skipped under the
# ASan/UBSan build (the two sanitizers do not mix) and where the compiler cannot link TSan.
if(OFG_SANITIZE OR OFG_FUZZ)
  return()
endif()
include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_FLAGS -fsanitize=thread)
set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=thread)
check_cxx_source_compiles("int main() { return 0; }" OFG_HAVE_TSAN)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(NOT OFG_HAVE_TSAN)
  return()
endif()
add_executable(ofg_parallel_tsan ${CMAKE_CURRENT_SOURCE_DIR}/tsan/parallel_tsan.cpp
  ${CMAKE_SOURCE_DIR}/src/kernels/parallel.cpp)
target_include_directories(ofg_parallel_tsan PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_compile_options(ofg_parallel_tsan PRIVATE -fsanitize=thread -g -O1)
target_link_options(ofg_parallel_tsan PRIVATE -fsanitize=thread)
find_package(Threads REQUIRED)
target_link_libraries(ofg_parallel_tsan PRIVATE Threads::Threads)
add_test(NAME parallel_pool_tsan COMMAND ofg_parallel_tsan)
set_tests_properties(parallel_pool_tsan PROPERTIES TIMEOUT 300
  ENVIRONMENT "TSAN_OPTIONS=halt_on_error=1 exitcode=66")
