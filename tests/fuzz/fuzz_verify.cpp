// libFuzzer target: the whole sequence: loading, queries, the pipeline, save and reload, then
// ofg_verify of small models (runs the interpreter on both).
// Built with -DOFG_FUZZ=ON (clang); run with tests/fuzz/run_fuzz.sh verify SECONDS.
#include <cstddef>
#include <cstdint>

#include "fuzz_sequence.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ofg_fuzz::run_sequence(data, size, ofg_fuzz::kAll);
  return 0;
}
