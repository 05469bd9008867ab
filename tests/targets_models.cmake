# optimize --target NAME (issue 24, part 1) on the shared data: every profile (and opset:13,
# opset:18) over DATA/models and DATA/realworld/models, asserting that each output verifies
# against the original, that legalisation never leaves more illegal nodes than the optimized model
# had, and that ONNX Runtime runs each output to the reference outputs where onnxruntime-node is
# installed (ORT_NODE or BUILD/ort-node). Skips (77) without the shared models. The table itself:
# bench/target_table.py. The sanitizer build checks three small models only.
if(OFG_SANITIZE)
  set(OFG_TARGET_MODELS --models squeezenet11_clean,gpt_tiny_dirty,oww_hey_jarvis)
else()
  set(OFG_TARGET_MODELS "")
endif()
add_test(NAME targets_models
  COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/bench/target_table.py ${OFG_TEST_CLI} ${OFG_DATA_DIR} --assert
    ${OFG_TARGET_MODELS})
set_tests_properties(targets_models PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77)
