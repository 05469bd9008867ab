// Tensor buffers kept for reuse after they are freed, per thread. A model frees and reallocates
// its intermediates at the same sizes on every run; handing each large block back to the system
// (munmap, or trimming the heap top) makes every page of the next run's block fault in afresh,
// which cost a quarter of the time of a small CNN. Bounded in bytes and blocks.
#pragma once

#include <cstddef>

namespace ofg::exec {

// A 64-byte aligned block of at least `bytes` (a multiple of 64): under 64 KiB one of a
// power-of-two size class, reused from that class's list; from 64 KiB a cached block close in
// size when there is one. `got` receives its real size. Throws std::bad_alloc when the system has none.
void* buffer_take(size_t bytes, size_t& got);
// Returns a block from buffer_take with its real size: cached, or freed when it does not fit.
void buffer_give(void* p, size_t bytes);

}  // namespace ofg::exec
