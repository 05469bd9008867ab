/* Example: load a model, optimize it, verify the result against the original by running both,
 * and save it; prints a short summary.
 *
 *   optimize_model IN.onnx OUT.onnx      optimize a model file
 *   optimize_model --demo OUT.onnx       optimize the library's built-in demo model
 *
 * Exit status: 0 saved, 1 verification found different outputs (nothing saved), 2 an error.
 * Uses only the public header; see the README for building it against an installed onnxforge. */
#include <onnxforge.h>
#include <stdio.h>
#include <string.h>

static int fail(const char* what, ofg_status s) {
  fprintf(stderr, "%s failed: %s: %s\n", what, ofg_status_string(s), ofg_last_error());
  return 2;
}

/* Progress callback: one dot per pass. Returning non-zero would cancel the call. */
static int32_t on_progress(void* user, uint32_t done, uint32_t total) {
  (void)user;
  (void)done;
  (void)total;
  fputc('.', stderr);
  return 0;
}

/* Log callback: notable events, such as a pass rolled back or verification inputs rejected. */
static void on_log(void* user, int32_t level, const char* message) {
  (void)user;
  fprintf(stderr, "\n[%s] %s\n", level >= OFG_LOG_WARNING ? "warning" : "info", message);
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s IN.onnx OUT.onnx | %s --demo OUT.onnx\n", argv[0], argv[0]);
    return 2;
  }
  ofg_model* model = NULL;
  ofg_model* original = NULL;
  ofg_options* opts = NULL;
  ofg_pass_report* passes = NULL;
  ofg_report* check = NULL;
  int rc = 2;
  ofg_status s;

  if (strcmp(argv[1], "--demo") == 0) s = ofg_model_create_demo(&model);
  else s = ofg_load(argv[1], NULL, &model);
  if (s != OFG_OK) return fail("load", s);

  /* Keep the model as it was, to verify against. */
  if ((s = ofg_model_clone(model, &original)) != OFG_OK) { rc = fail("clone", s); goto done; }

  if ((s = ofg_options_create(&opts)) != OFG_OK) { rc = fail("options", s); goto done; }
  if ((s = ofg_options_set(opts, "verify.samples", "2")) != OFG_OK) { rc = fail("options", s); goto done; }
  ofg_options_set_progress(opts, on_progress, NULL);
  ofg_options_set_log(opts, on_log, NULL);

  if ((s = ofg_optimize(model, opts, &passes)) != OFG_OK) { rc = fail("optimize", s); goto done; }
  fputc('\n', stderr);
  int64_t nodes_before = 0, nodes_after = 0;
  uint64_t bytes_before = 0, bytes_after = 0;
  double ms = 0;
  ofg_pass_report_totals(passes, &nodes_before, &nodes_after, &bytes_before, &bytes_after, &ms, NULL);
  printf("onnxforge %s: nodes %lld -> %lld, weights %.1f -> %.1f KiB, %.1f ms\n", ofg_version_string(),
         (long long)nodes_before, (long long)nodes_after, bytes_before / 1024.0, bytes_after / 1024.0, ms);

  if ((s = ofg_verify(original, model, opts, &check)) != OFG_OK) { rc = fail("verify", s); goto done; }
  int32_t passed = 0;
  ofg_report_passed(check, &passed);
  size_t outputs = 0;
  ofg_report_output_count(check, &outputs);
  for (size_t i = 0; i < outputs; ++i) {
    ofg_diff d;
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    if (ofg_report_output(check, i, &d) == OFG_OK)
      printf("  output %s: max abs diff %.3g, %s\n", d.name, d.max_abs, d.passed ? "ok" : "DIFFERS");
  }
  printf("verified: %s (%s)\n", passed ? "passed" : "FAILED", ofg_report_note(check));
  if (!passed) { rc = 1; goto done; }

  if ((s = ofg_save(model, argv[2], NULL)) != OFG_OK) { rc = fail("save", s); goto done; }
  printf("saved %s\n", argv[2]);
  rc = 0;

done:
  ofg_report_free(check);
  ofg_pass_report_free(passes);
  ofg_options_free(opts);
  ofg_model_free(original);
  ofg_model_free(model);
  return rc;
}
