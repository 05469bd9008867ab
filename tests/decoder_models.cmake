# Issue 23: the decoders of bench/models/decoders.py (Qwen2-style GQA with q/k/v bias; MHA with
# interleaved rotary), generated into a temporary folder and checked end to end: `onnxforge run`
# against their numpy references, `optimize --verify` at opset 17 and with --target-opset 23, the
# results run again, and ONNX Runtime on every graph when node and onnxruntime-node are there (else
# that part is skipped with a note). Skips (77) when /usr/bin/python3 lacks numpy or onnx.
add_test(NAME decoder_models
  COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/decoder_models.py ${OFG_TEST_CLI} ${OFG_DATA_DIR})
set_tests_properties(decoder_models PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
