# Differential testing of the optimizer on random valid models (tests/fuzz/modelgen_main.cpp says
# how to run it longer). ctest runs a fixed range of seeds; `ofg_modelgen --seconds 60` is the
# time-budgeted mode for smoke and long runs.
add_executable(ofg_modelgen
  ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/modelgen.cpp ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/modelgen_main.cpp)
target_include_directories(ofg_modelgen PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(ofg_modelgen PRIVATE onnxforge_internal)
# The sanitizer build (Debug, ASan + UBSan) runs a tenth as fast: 2000 seeds took over its
# 300 s there beside the other sanitized tests, so it checks the first 600 for memory errors and
# the Release build keeps the whole range for the differential check.
if(OFG_SANITIZE)
  add_test(NAME modelgen_seeds COMMAND ofg_modelgen --seeds 0 600)
else()
  add_test(NAME modelgen_seeds COMMAND ofg_modelgen --seeds 0 2000)
endif()
set_tests_properties(modelgen_seeds PROPERTIES TIMEOUT 300)
# About a minute more of models from a fixed start far from the range above (deterministic, so a
# failure in CI replays with the seed it prints).
add_test(NAME modelgen_minute COMMAND ofg_modelgen --seconds 60 --start 5000000)
set_tests_properties(modelgen_minute PROPERTIES TIMEOUT 300 LABELS fuzz_smoke)
