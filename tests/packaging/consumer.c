/* A plain C program that uses the installed library: loads a model (or the built-in demo),
 * prints its node count and saves it. Built by the packaging test with pkg-config and with CMake. */
#include <onnxforge.h>
#include <stdio.h>

int main(int argc, char** argv) {
  ofg_model* model = NULL;
  ofg_status s = argc > 1 && argv[1][0] ? ofg_load(argv[1], NULL, &model) : ofg_model_create_demo(&model);
  if (s != OFG_OK) {
    fprintf(stderr, "load failed: %s\n", ofg_last_error());
    return 1;
  }
  size_t nodes = 0;
  if (ofg_model_node_count(model, 0, &nodes) != OFG_OK) return 1;
  printf("onnxforge %s: %zu nodes\n", ofg_version_string(), nodes);
  if (argc > 2) {
    s = ofg_save(model, argv[2], NULL);
    if (s != OFG_OK) {
      fprintf(stderr, "save failed: %s\n", ofg_last_error());
      ofg_model_free(model);
      return 1;
    }
  }
  ofg_model_free(model);
  return 0;
}
