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
# What a save leaves on disk, seen from the command (tests/cli/cli_save_layout_test.py).
add_test(NAME cli_save_layout
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_save_layout_test.py $<TARGET_FILE:onnxforge_cli>)
set_tests_properties(cli_save_layout PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
# Slow (label `slow`: not in the sanitizer run): 240 interrupted saves of a 256 MiB model
# (1.5 min), and two saves of a model over 2 GiB read back by onnx.load (1 min, 4.3 GB written
# and removed; skipped without 6 GiB free).
add_test(NAME cli_interrupted_save
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_interrupt_test.py $<TARGET_FILE:onnxforge_cli>)
set_tests_properties(cli_interrupted_save PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900 LABELS slow)
add_test(NAME cli_save_over_2gib
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_big_model_test.py $<TARGET_FILE:onnxforge_cli>)
set_tests_properties(cli_save_over_2gib PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1200 LABELS slow)
# bench/bisect_rewrites.py names the rewrite after which a check fails (optimize --max-rewrites);
# skipped (exit 77) without the shared models.
add_test(NAME bisect_rewrites
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/bisect_rewrites_test.py $<TARGET_FILE:onnxforge_cli>)
set_tests_properties(bisect_rewrites PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
  ENVIRONMENT "ONNXFORGE_DATA=${OFG_DATA_DIR}")
