// The per-thread cache of tensor buffers: a large block freed is handed to the next request of a
// close size, small and far-off requests get their own blocks, and alloc() still zeroes a reused
// block.
#include <gtest/gtest.h>

#include <cstring>

#include "exec/buffer_cache.h"
#include "exec/tensor.h"

using namespace ofg::exec;

TEST(ExecBufferCache, ReusesCloseSizesOnly) {
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
}

TEST(ExecBufferCache, ReusedBlockIsZeroedByAlloc) {
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
}
