// The per-thread cache of tensor buffers: a large block freed is handed to the next request of a
// close size, small and far-off requests get their own blocks, and alloc() still zeroes a reused
// block.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "exec/buffer_cache.h"
#include "exec/tensor.h"

using namespace ofg::exec;

namespace {
// The cache is per thread and keeps what earlier tests of the same process gave back: each test
// runs on a thread of its own so it starts from an empty cache, whatever ran before it.
template <class Body>
void on_fresh_thread(Body body) {
  std::thread(body).join();
}
}  // namespace

TEST(ExecBufferCache, ReusesCloseSizesOnly) {
  on_fresh_thread([] {
    const size_t big = size_t{1} << 20;
    size_t got = 0;
    void* a = buffer_take(big, got);
    EXPECT_EQ(got, big);
    buffer_give(a, got);
    // A request a little smaller takes the cached block and learns its real size.
    void* b = buffer_take(big - 4096, got);
    EXPECT_EQ(b, a);
    EXPECT_EQ(got, big);
    buffer_give(b, got);
    // Less than two thirds of the block: a fresh one, so a small tensor does not pin a big block.
    void* c = buffer_take(big / 2, got);
    EXPECT_NE(c, a);
    EXPECT_EQ(got, big / 2);
    buffer_give(c, got);
    void* d = buffer_take(big, got);
    EXPECT_EQ(d, a);
    buffer_give(d, got);
  });
}

TEST(ExecBufferCache, ReusedBlockIsZeroedByAlloc) {
  on_fresh_thread([] {
    const int64_t n = 1 << 16;  // 256 KiB of floats: large enough to be cached
    const void* first = nullptr;
    {
      RTensor t = RTensor::alloc_uninit(ofg::kFloat, {n});
      std::memset(t.ptr, 0xff, t.nbytes());
      first = t.ptr;
    }
    RTensor u = RTensor::alloc(ofg::kFloat, {n});
    EXPECT_EQ(static_cast<const void*>(u.ptr), first);
    const float* v = u.data<float>();
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(v[i], 0.f) << i;
  });
}

TEST(ExecBufferCache, SmallBlocksComeInPowerOfTwoClasses) {
  on_fresh_thread([] {
    size_t got = 0;
    // Rounded up to the class: 64 bytes for the smallest, the next power of two above it.
    void* a = buffer_take(64, got);
    EXPECT_EQ(got, 64u);
    buffer_give(a, got);
    void* b = buffer_take(1000, got);
    EXPECT_EQ(got, 1024u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 64, 0u);
    buffer_give(b, got);
    // A request of the same class takes the block just given back; another class does not.
    void* c = buffer_take(640, got);
    EXPECT_EQ(c, b);
    EXPECT_EQ(got, 1024u);
    void* d = buffer_take(1025, got);
    EXPECT_NE(d, b);
    EXPECT_EQ(got, 2048u);
    buffer_give(c, 1024);
    buffer_give(d, 2048);
    // Up to the large blocks (64 KiB) every size has a class: a 57,600-byte activation is kept
    // and the next run's request of that size gets the same block back.
    void* e = buffer_take(57600, got);
    EXPECT_EQ(got, size_t{64} << 10);
    buffer_give(e, got);
    void* f = buffer_take(57600, got);
    EXPECT_EQ(f, e);
    buffer_give(f, got);
  });
}

TEST(ExecBufferCache, SmallClassListsAreBounded) {
  on_fresh_thread([] {
    // Many blocks of one class given back at once: the list keeps some and frees the rest (no leak
    // under ASan, no growth without bound); all can be taken and given again.
    std::vector<void*> blocks;
    size_t got = 0;
    for (int i = 0; i < 100; ++i) blocks.push_back(buffer_take(4096, got));
    for (void* p : blocks) buffer_give(p, 4096);
    std::vector<void*> again;
    for (int i = 0; i < 100; ++i) again.push_back(buffer_take(4096, got));
    int reused = 0;
    for (void* p : again) reused += std::count(blocks.begin(), blocks.end(), p) > 0;
    EXPECT_GE(reused, 1);
    for (void* p : again) buffer_give(p, 4096);
  });
}

// Every size at a class boundary comes back on the next request of that size: a block of exactly
// 64 KiB (the largest small class, e.g. a [1, 64, 16, 16] float tensor) was filed in the small
// list on give but looked for among the large blocks on take, so each run got fresh pages.
TEST(ExecBufferCache, EveryBoundarySizeIsReused) {
  on_fresh_thread([] {
    for (size_t bytes : {size_t{64}, size_t{4096}, size_t{32} << 10, size_t{64} << 10, (size_t{64} << 10) + 64,
                         size_t{128} << 10}) {
      size_t got = 0;
      void* a = buffer_take(bytes, got);
      const size_t first = got;
      buffer_give(a, got);
      void* b = buffer_take(bytes, got);
      EXPECT_EQ(b, a) << bytes << " bytes";
      EXPECT_EQ(got, first) << bytes << " bytes";
      buffer_give(b, got);
    }
  });
}

// A run with many intermediates of distinct large sizes (DenseNet-121: each dense layer's Concat
// output and its BatchNormalization output one channel group wider than the last, ~300 large
// tensors per run) gets every block back on the next run. With room for 32 blocks only the last
// 32 freed survived, so each run faulted in the pages of all the others afresh (a quarter of
// DenseNet-121's time).
TEST(ExecBufferCache, ARunOfManyDistinctSizesIsReusedWhole) {
  on_fresh_thread([] {
    const size_t kBlocks = 100;  // 100 blocks of 128..524 KiB: 32 MiB, under the byte bound
    auto size_of = [](size_t i) { return (size_t{128} << 10) + i * 4096; };
    std::vector<void*> first;
    size_t got = 0;
    for (size_t i = 0; i < kBlocks; ++i) first.push_back(buffer_take(size_of(i), got));
    for (size_t i = 0; i < kBlocks; ++i) buffer_give(first[i], size_of(i));
    std::vector<void*> again;
    for (size_t i = 0; i < kBlocks; ++i) {
      again.push_back(buffer_take(size_of(i), got));
      EXPECT_EQ(got, size_of(i)) << i;
    }
    size_t reused = 0;
    for (void* p : again) reused += std::count(first.begin(), first.end(), p) > 0;
    EXPECT_EQ(reused, kBlocks);
    for (size_t i = 0; i < kBlocks; ++i) buffer_give(again[i], size_of(i));
  });
}
