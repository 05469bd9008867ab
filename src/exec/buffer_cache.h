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

// Uninitialised scratch of one call from the buffer cache, given back when it goes out of scope
// (a kernel's per-call buffers come back at the same sizes on every run; from the system, each
// large one faults its pages in afresh).
class ScratchBlock {
 public:
  explicit ScratchBlock(size_t bytes) : p_(bytes ? buffer_take((bytes + 63) / 64 * 64, got_) : nullptr) {}
  ~ScratchBlock() {
    if (p_) buffer_give(p_, got_);
  }
  ScratchBlock(const ScratchBlock&) = delete;
  ScratchBlock& operator=(const ScratchBlock&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }

 private:
  size_t got_ = 0;
  void* p_;
};

}  // namespace ofg::exec
