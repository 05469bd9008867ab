#include "exec/buffer_cache.h"

#include <cstdlib>
#include <new>
#include <vector>

namespace ofg::exec {
namespace {

// Large blocks: kept by size, up to kMaxHeldBytes in kMaxBlocks blocks. The byte bound is what
// limits the memory held; the block bound must not be the tighter one on a network of many
// distinct sizes: DenseNet-121 frees ~300 large tensors per run (each dense layer's Concat one
// channel group wider than the last), and with 32 blocks only the last 32 freed survived to the
// next run, whose other tensors all faulted their pages in afresh (run 96 -> 60 ms, one thread).
constexpr size_t kMinBytes = size_t{64} << 10;
constexpr size_t kMaxHeldBytes = size_t{64} << 20;
constexpr size_t kMaxBlocks = 256;
// Small blocks (under kMinBytes): one free list per power-of-two size from 64 bytes. A 64-byte
// aligned malloc of a few KiB goes through glibc's memalign path, which splits chunks and
// consolidates the fast bins: a tenth of the time of a small transformer, whose hundreds of
// intermediates are all small. Each list holds up to kSmallPerClass blocks (at most ~4 MiB over
// all classes). The classes reach kMinBytes: with a gap between them and the large blocks, every
// tensor of 32..64 KiB (a [1, 100, 144] float activation of a speech encoder) went back to glibc
// on each free, which trimmed the heap and faulted it in again on every run.
constexpr size_t kSmallClasses = 11;  // 64 B .. 64 KiB
constexpr size_t kLargestSmall = size_t{64} << (kSmallClasses - 1);
static_assert(kLargestSmall == kMinBytes, "the small classes end where the large blocks begin");
constexpr size_t kSmallPerClass = 32;

// The class of a small request: blocks of 64 << k bytes hold it; kSmallClasses when none does.
size_t small_class(size_t bytes) {
  size_t k = 0;
  while (k < kSmallClasses && (size_t{64} << k) < bytes) ++k;
  return k;
}

void* system_alloc(size_t bytes) {
#if defined(__ANDROID__) && __ANDROID_API__ < 28  // Bionic has aligned_alloc from API 28
  void* p = nullptr;
  if (posix_memalign(&p, 64, bytes) != 0) p = nullptr;
#else
  void* p = std::aligned_alloc(64, bytes);
#endif
  if (!p) throw std::bad_alloc();
  return p;
}

class Cache {
 public:
  ~Cache() {
    for (const Block& b : blocks_) std::free(b.p);
    for (const std::vector<void*>& list : small_)
      for (void* p : list) std::free(p);
    dead = true;
  }
  // The smallest cached block of at least `bytes` and at most half as large again (so a small
  // request does not pin a big block); its size goes to `got`.
  void* take(size_t bytes, size_t& got) {
    size_t best = blocks_.size();
    for (size_t i = 0; i < blocks_.size(); ++i) {
      size_t b = blocks_[i].bytes;
      if (b >= bytes && b - bytes <= bytes / 2 && (best == blocks_.size() || b < blocks_[best].bytes)) best = i;
    }
    if (best == blocks_.size()) return nullptr;
    void* p = blocks_[best].p;
    got = blocks_[best].bytes;
    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(best));
    held_ -= got;
    return p;
  }
  // A block of a small class, or null.
  void* take_small(size_t k) {
    std::vector<void*>& list = small_[k];
    if (list.empty()) return nullptr;
    void* p = list.back();
    list.pop_back();
    return p;
  }
  // Keeps a block of a small class unless its list is full.
  bool give_small(void* p, size_t k) {
    std::vector<void*>& list = small_[k];
    if (list.size() >= kSmallPerClass) return false;
    if (list.capacity() == 0) list.reserve(kSmallPerClass);
    list.push_back(p);
    return true;
  }
  bool give(void* p, size_t bytes) {
    if (bytes < kMinBytes || bytes > kMaxHeldBytes) return false;
    // The oldest blocks make room.
    while (!blocks_.empty() && (held_ + bytes > kMaxHeldBytes || blocks_.size() >= kMaxBlocks)) {
      std::free(blocks_.front().p);
      held_ -= blocks_.front().bytes;
      blocks_.erase(blocks_.begin());
    }
    blocks_.push_back({p, bytes});
    held_ += bytes;
    return true;
  }
  // Set once the thread's cache is destroyed: a tensor released later on that thread (a static
  // destroyed at exit) frees its block directly.
  static thread_local bool dead;

 private:
  struct Block {
    void* p;
    size_t bytes;
  };
  std::vector<Block> blocks_;
  size_t held_ = 0;
  std::vector<void*> small_[kSmallClasses];
};

thread_local bool Cache::dead = false;
thread_local Cache cache;

}  // namespace

void* buffer_take(size_t bytes, size_t& got) {
  // Up to the largest class included: buffer_give files a block of exactly kLargestSmall bytes
  // in that class's list, so it must be taken from there too (when the large path took it, every
  // 64 KiB tensor came from the system until the list was full: fresh pages on each run).
  if (bytes <= kLargestSmall) {
    // Rounded up to its class, so the block goes back to the same list.
    const size_t k = small_class(bytes);
    if (k < kSmallClasses) {
      got = size_t{64} << k;
      if (!Cache::dead)
        if (void* p = cache.take_small(k)) return p;
      return system_alloc(got);
    }
  } else if (!Cache::dead) {
    if (void* p = cache.take(bytes, got)) return p;
  }
  got = bytes;
  return system_alloc(bytes);
}

void buffer_give(void* p, size_t bytes) {
  if (Cache::dead) {
    std::free(p);
    return;
  }
  const size_t k = bytes <= kLargestSmall ? small_class(bytes) : kSmallClasses;
  const bool kept = k < kSmallClasses && (size_t{64} << k) == bytes ? cache.give_small(p, k) : cache.give(p, bytes);
  if (!kept) std::free(p);
}

}  // namespace ofg::exec
