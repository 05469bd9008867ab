# Conformance ctests: one per suite so ctest -j runs them in parallel; each writes a table of
# results to the build folder (conformance_<suite>.md). Expectations: conformance_expected.txt.
find_package(Python3 COMPONENTS Interpreter)
# Seconds one conformance test may take: under emulation (qemu-user) the real models run far slower,
# and so do they in the sanitizer build (resnet18 on the scalar kernels took over 120 s there while
# the shared CI machine was slow; 80 s on a quiet one).
if(CMAKE_CROSSCOMPILING)
  set(OFG_CONFORMANCE_TIMEOUT 1200)
elseif(OFG_SANITIZE)
  set(OFG_CONFORMANCE_TIMEOUT 600)
else()
  set(OFG_CONFORMANCE_TIMEOUT 120)
endif()
if(Python3_Interpreter_FOUND)
  foreach(suite node pytorch-converted pytorch-operator simple light models)
    add_test(NAME conformance_${suite}
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/conformance.py
        --cli ${OFG_TEST_CLI} --data ${OFG_DATA_DIR} --suite ${suite}
        --expected ${CMAKE_CURRENT_SOURCE_DIR}/conformance_expected.txt --outdir ${CMAKE_BINARY_DIR} --jobs 1 --timeout ${OFG_CONFORMANCE_TIMEOUT})
    set_tests_properties(conformance_${suite} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 3600)
  endforeach()
  # The real models must also match PyTorch on the scalar kernels.
  add_test(NAME conformance_models_scalar
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/conformance.py
      --cli ${OFG_TEST_CLI} --data ${OFG_DATA_DIR} --suite models --scalar
      --expected ${CMAKE_CURRENT_SOURCE_DIR}/conformance_expected.txt --outdir ${CMAKE_BINARY_DIR} --jobs 1 --timeout ${OFG_CONFORMANCE_TIMEOUT})
  set_tests_properties(conformance_models_scalar PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 3600)
endif()
