// NEON hash and byte equality; both reproduce the scalar results (scalar/compare.cpp) bit for
// bit.
#if defined(__aarch64__) || defined(__ARM_NEON)
#include "kernels/neon/neon.h"

#include <arm_neon.h>

#include <cstring>

namespace ofg::kernels::neon {

// The scalar hash's four 64-bit lanes as two uint64x2 vectors; vmull_u32 is its 32x32->64
// product of the halves of (word ^ key).
uint64_t hash_bytes(const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  const uint64_t key0[4] = {hashc::kSeed[1], hashc::kSeed[2], hashc::kSeed[3], hashc::kSeed[0]};
  uint64x2_t key[2] = {vld1q_u64(key0), vld1q_u64(key0 + 2)};
  uint64x2_t acc[2] = {vdupq_n_u64(0), vdupq_n_u64(0)};
  const uint64x2_t step = vdupq_n_u64(hashc::kStep);
  const size_t stripes = n / 32;
  for (size_t s = 0; s < stripes; ++s) {
    for (int h = 0; h < 2; ++h) {
      const uint64x2_t d = vreinterpretq_u64_u8(vld1q_u8(p + s * 32 + 16 * h));  // any alignment
      const uint64x2_t k = veorq_u64(d, key[h]);
      const uint64x2_t prod = vmull_u32(vmovn_u64(k), vshrn_n_u64(k, 32));  // lo32 * hi32
      acc[h] = vaddq_u64(acc[h], vaddq_u64(d, prod));
      key[h] = vaddq_u64(key[h], step);
    }
  }
  uint64_t a[4];
  vst1q_u64(a, acc[0]);
  vst1q_u64(a + 2, acc[1]);
  return hashc::finish(a, p + stripes * 32, n - stripes * 32, n);
}

// 64 bytes per test of the accumulated differences.
bool equal_bytes(const void* a, const void* b, size_t n) {
  const auto* pa = static_cast<const unsigned char*>(a);
  const auto* pb = static_cast<const unsigned char*>(b);
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    uint8x16_t d = vdupq_n_u8(0);
    for (size_t j = 0; j < 64; j += 16) d = vorrq_u8(d, veorq_u8(vld1q_u8(pa + i + j), vld1q_u8(pb + i + j)));
    const uint64x2_t d64 = vreinterpretq_u64_u8(d);
    if ((vgetq_lane_u64(d64, 0) | vgetq_lane_u64(d64, 1)) != 0) return false;
  }
  return i == n || std::memcmp(pa + i, pb + i, n - i) == 0;
}

}  // namespace ofg::kernels::neon
#endif
