# Acceptance of the pass pipeline on the shared real models (skips with a message when absent).
add_test(NAME passes_real_models
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/passes_acceptance.sh $<TARGET_FILE:onnxforge_cli> ${OFG_DATA_DIR})
