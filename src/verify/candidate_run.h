// Runs the candidate model of a verification beside the reference: on a thread of its own while
// the caller runs the reference, when the call may use at least two threads (kernels::threads());
// else on the caller's thread when the result is asked for, exactly as before threads existed.
// Either way the outputs are the same: each model has its own interpreter and every kernel gives
// the same bits on any number of threads.
#pragma once

#include <exception>
#include <optional>
#include <thread>
#include <vector>

#include "exec/interp.h"
#include "kernels/parallel.h"
#include "verify/verify.h"

namespace ofg::verify {

class CandidateRun {
 public:
  // Splits the caller's threads between the two models while this object lives (the reference
  // keeps the larger half on the calling thread).
  explicit CandidateRun(exec::Interpreter& candidate);
  ~CandidateRun();
  CandidateRun(const CandidateRun&) = delete;
  CandidateRun& operator=(const CandidateRun&) = delete;

  // Begins a run on `inputs` (a previous run not collected is dropped first).
  void start(NamedValues inputs);
  // Drops the current run (its result or error), waiting for it to end.
  void abandon();
  // The outputs of the run begun last; its error is rethrown here.
  std::vector<exec::RValue> finish();

 private:
  void join();

  exec::Interpreter& candidate_;
  const unsigned total_;              // threads of the whole call
  const bool concurrent_;
  std::optional<kernels::ThreadsScope> reference_threads_;
  std::thread thread_;
  NamedValues inputs_;                // sequential mode: the inputs of the pending run
  bool pending_ = false;
  std::vector<exec::RValue> outputs_;
  std::exception_ptr error_;
};

}  // namespace ofg::verify
