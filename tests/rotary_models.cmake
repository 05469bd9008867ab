# RotaryEmbedding (issue 23) on the shared LLaMA-style decoder: fused at opset 23 (8 nodes),
# verified and run against PyTorch's outputs on both test sets, in ONNX Runtime too when
# onnxruntime-node is there, and lowered back to 17 (skips with a message when the data is absent).
if(NOT CMAKE_CROSSCOMPILING)
  add_test(NAME rotary_models
    COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/rotary_models.py ${OFG_TEST_CLI} ${OFG_DATA_DIR})
  set_tests_properties(rotary_models PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
endif()
