// libFuzzer target: loading (ofg_load_from_memory with a copied buffer) and the model queries.
// Built with -DOFG_FUZZ=ON (clang); run with tests/fuzz/run_fuzz.sh load SECONDS.
#include <cstddef>
#include <cstdint>

#include "fuzz_sequence.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ofg_fuzz::run_sequence(data, size, ofg_fuzz::kLoadOnly);
  return 0;
}
