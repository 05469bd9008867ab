// The call sequence every whole-library fuzz input goes through, written against the public
// header only: the libFuzzer targets and the regression test over saved crash inputs share it,
// so a reproducer replays exactly what the fuzzer ran.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ofg_fuzz {

// Which steps run after loading the bytes (copied) and querying the model.
enum Steps : unsigned {
  kLoadOnly = 0,
  kOptimize = 1,  // default pipeline (few rounds), save to memory, reload the saved bytes
  kVerify = 2,    // ofg_verify original against the reloaded model, small models only
  kAll = kOptimize | kVerify,
};

// Runs the sequence on one input. Every status is accepted (bad input must fail cleanly);
// only a crash, a sanitizer report or a broken invariant (a saved model that does not load
// again) aborts the process.
void run_sequence(const uint8_t* data, size_t size, unsigned steps);

}  // namespace ofg_fuzz
