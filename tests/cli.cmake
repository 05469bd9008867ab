# The command line's promises about the user's files and about verification inputs
# (tests/cli/cli_trust_test.py; skipped, exit 77, without Debian's python3-onnx).
add_test(NAME cli_trust
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_trust_test.py $<TARGET_FILE:onnxforge_cli>)
set_tests_properties(cli_trust PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
add_test(NAME cli_options
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_options_test.py $<TARGET_FILE:onnxforge_cli>)
set_tests_properties(cli_options PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
add_test(NAME cli_saved_model
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_saved_model_test.py $<TARGET_FILE:onnxforge_cli>)
set_tests_properties(cli_saved_model PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
# Issue 20's defects 4, 7 and 8: output locations checked before work, nothing left by a failed
# command, given inputs checked against the declared ones, one-line messages with "did you mean".
add_test(NAME cli_edges
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_edges_test.py $<TARGET_FILE:onnxforge_cli>)
set_tests_properties(cli_edges PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
