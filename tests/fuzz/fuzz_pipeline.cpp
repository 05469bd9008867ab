// libFuzzer target: loading, queries, the default pipeline, saving to memory and reloading.
// Built with -DOFG_FUZZ=ON (clang); run with tests/fuzz/run_fuzz.sh pipeline SECONDS.
#include <cstddef>
#include <cstdint>

#include "fuzz_sequence.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ofg_fuzz::run_sequence(data, size, ofg_fuzz::kOptimize);
  return 0;
}
