#include "exec/buffer_cache.h"

#include <cstdlib>
#include <new>
#include <vector>

namespace ofg::exec {
namespace {

// Small blocks come cheaply from malloc's own free lists; only large ones are worth keeping.
constexpr size_t kMinBytes = size_t{64} << 10;
constexpr size_t kMaxHeldBytes = size_t{64} << 20;
constexpr size_t kMaxBlocks = 32;

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
};

thread_local bool Cache::dead = false;
thread_local Cache cache;

}  // namespace

void* buffer_take(size_t bytes, size_t& got) {
  if (bytes >= kMinBytes && !Cache::dead)
    if (void* p = cache.take(bytes, got)) return p;
  got = bytes;
  return system_alloc(bytes);
}

void buffer_give(void* p, size_t bytes) {
  if (Cache::dead || !cache.give(p, bytes)) std::free(p);
}

}  // namespace ofg::exec
