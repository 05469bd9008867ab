# Acceptance of the pass pipeline on the shared real models (skips with a message when absent).
add_test(NAME passes_real_models
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/passes_acceptance.sh ${OFG_TEST_CLI} ${OFG_DATA_DIR})
set_tests_properties(passes_real_models PROPERTIES SKIP_RETURN_CODE 77)

# Real third-party models: the interpreter and the optimized models against ONNX Runtime's
# outputs, and optimize --verify on real and on derived inputs (skips when the data is absent).
add_test(NAME realworld_models
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/realworld_models.sh ${OFG_TEST_CLI} ${OFG_DATA_DIR})
set_tests_properties(realworld_models PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77)

# Precision conversion of the shared models to float16/bfloat16: verified, sized, run by our
# interpreter and (when onnxruntime-node is there) by ONNX Runtime against the references.
# The sanitizer build (about ten times slower) converts four small models that still cover a
# transformer, a CNN, If/LSTM and float16 inputs; the Release build converts all of them.
if(OFG_SANITIZE)
  set(OFG_CONVERT_MODELS --models squeezenet11_clean,bert_tiny_dirty,silero_vad_half,oww_melspectrogram)
else()
  set(OFG_CONVERT_MODELS "")
endif()
if(NOT CMAKE_CROSSCOMPILING)
  add_test(NAME convert_float_models
    COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/convert_float_models.py ${OFG_TEST_CLI} ${OFG_DATA_DIR}
      ${OFG_CONVERT_MODELS})
  set_tests_properties(convert_float_models PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
endif()
