#include "verify/candidate_run.h"

#include <utility>

#include "exec/tensor.h"

namespace ofg::verify {

CandidateRun::CandidateRun(exec::Interpreter& candidate)
    : candidate_(candidate), total_(kernels::threads()), concurrent_(total_ >= 2) {
  if (concurrent_) reference_threads_.emplace(total_ - total_ / 2);
}

CandidateRun::~CandidateRun() { join(); }

void CandidateRun::join() {
  if (thread_.joinable()) thread_.join();
}

void CandidateRun::start(NamedValues inputs) {
  abandon();
  pending_ = true;
  if (!concurrent_) {
    inputs_ = std::move(inputs);
    return;
  }
  // The tensor budget and the thread count are per thread: the candidate's thread takes the
  // caller's budget and its half of the threads.
  const size_t budget = exec::max_tensor_bytes();
  const unsigned threads = total_ / 2;
  thread_ = std::thread([this, budget, threads, in = std::move(inputs)] {
    exec::TensorBudgetScope budget_scope(budget);
    kernels::ThreadsScope threads_scope(threads);
    try {
      outputs_ = candidate_.run(in);
    } catch (...) {
      error_ = std::current_exception();
    }
  });
}

void CandidateRun::abandon() {
  join();
  pending_ = false;
  inputs_.clear();
  outputs_.clear();
  error_ = nullptr;
}

std::vector<exec::RValue> CandidateRun::finish() {
  if (!pending_) return {};
  pending_ = false;
  if (!concurrent_) return candidate_.run(std::exchange(inputs_, {}));
  join();
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  return std::exchange(outputs_, {});
}

}  // namespace ofg::verify
