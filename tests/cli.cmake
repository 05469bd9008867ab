# One Python test of the command line: NAME runs tests/cli/SCRIPT with the CLI's path; exit 77 is a
# skip (Debian's python3-onnx missing); extra arguments are test properties (LABELS slow).
function(ofg_cli_test name script timeout)
  add_test(NAME ${name} COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/${script} $<TARGET_FILE:onnxforge_cli>)
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT ${timeout} ${ARGN})
endfunction()

# The command line's promises about the user's files and about verification inputs
# (tests/cli/cli_trust_test.py; skipped, exit 77, without Debian's python3-onnx).
ofg_cli_test(cli_trust cli_trust_test.py 300)
ofg_cli_test(cli_options cli_options_test.py 300)
ofg_cli_test(cli_saved_model cli_saved_model_test.py 300)
# Issue 20's defects 4, 7 and 8: output locations checked before work, nothing left by a failed
# command, given inputs checked against the declared ones, one-line messages with "did you mean".
ofg_cli_test(cli_edges cli_edges_test.py 300)
# optimize --explain NODE and the report's "not_applied" (tests/cli/cli_explain_test.py).
ofg_cli_test(cli_explain cli_explain_test.py 120)
# What a save leaves on disk, seen from the command (tests/cli/cli_save_layout_test.py).
ofg_cli_test(cli_save_layout cli_save_layout_test.py 300)
# onnxforge targets / check --target (issue 24): findings, exit codes, bad names.
ofg_cli_test(cli_targets cli_targets_test.py 120)
# optimize --target NAME: legalisation, exit 6 for what is left, --allow-illegal.
ofg_cli_test(cli_optimize_target cli_optimize_target_test.py 120)
# optimize --report's "provenance"/"folded" and --keep-names (issue 24, part 2).
ofg_cli_test(cli_provenance cli_provenance_test.py 120)
# Slow (label `slow`: not in the sanitizer run): 240 interrupted saves of a 256 MiB model
# (1.5 min), and two saves of a model over 2 GiB read back by onnx.load (1 min, 4.3 GB written
# and removed; skipped without 6 GiB free).
ofg_cli_test(cli_interrupted_save cli_interrupt_test.py 900 LABELS slow)
ofg_cli_test(cli_save_over_2gib cli_big_model_test.py 1200 LABELS slow)
# bench/bisect_rewrites.py names the rewrite after which a check fails (optimize --max-rewrites);
# skipped (exit 77) without the shared models.
add_test(NAME bisect_rewrites
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/bisect_rewrites_test.py $<TARGET_FILE:onnxforge_cli>)
set_tests_properties(bisect_rewrites PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
  ENVIRONMENT "ONNXFORGE_DATA=${OFG_DATA_DIR}")

# onnxforge diff A B (issue 24, part 4): provenance and fallback matching, text/JSON, exit codes.
ofg_cli_test(cli_diff cli_diff_test.py 120)
add_test(NAME cli_diff_shared
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_diff_test.py $<TARGET_FILE:onnxforge_cli> --shared)
set_tests_properties(cli_diff_shared PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 ENVIRONMENT "ONNXFORGE_DATA=${OFG_DATA_DIR}")
