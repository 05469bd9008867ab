# Opset conversion (issue 22, part 2) on the shared data; both skip with a message when absent.
# Every shared model to opsets 11 and the newest and back, against the reference outputs (and
# onnx.checker / ONNX Runtime where installed); tests/opset_models.py --targets 11,13,17,newest
# gives the full table (about 3 minutes, so not in CI).
# The sanitizer build (about ten times slower) converts four small models (a transformer, a CNN,
# If/LSTM with float16, an audio front end); the Release build all of them.
if(OFG_SANITIZE)
  set(OFG_OPSET_MODELS --models squeezenet11_clean,bert_tiny_dirty,silero_vad_half,oww_melspectrogram)
else()
  set(OFG_OPSET_MODELS "")
endif()
add_test(NAME opset_models
  COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/opset_models.py ${OFG_TEST_CLI} ${OFG_DATA_DIR} --targets 11,newest
    ${OFG_OPSET_MODELS})
set_tests_properties(opset_models PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77)
# --target-opset on the command line: exit 4 and nothing written when a node has no adapter.
add_test(NAME cli_target_opset
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/cli_target_opset.sh ${OFG_TEST_CLI} ${OFG_DATA_DIR})
set_tests_properties(cli_target_opset PROPERTIES SKIP_RETURN_CODE 77)
