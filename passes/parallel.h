// Data-parallel loops for passes that produce large new tensors (fused weights). Filling fresh
// memory is bound by page faults, which two cores take about a third off; the graph itself is
// only ever edited on the calling thread.
#pragma once
#include <cstddef>
#include <functional>

#include "passes/pass.h"

namespace ofg::passes {

// Threads a pass may use: option optimize.threads (1 = the calling thread only), by default the
// hardware threads, at most 4.
unsigned pass_threads(const PassContext& ctx);

// Calls fn(i) for every i in [0, count), spread over up to `threads` threads (the caller's one
// included). fn must only touch memory that no other index touches and must not throw.
void parallel_for(size_t count, unsigned threads, const std::function<void(size_t)>& fn);

}  // namespace ofg::passes
