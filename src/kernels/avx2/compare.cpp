// AVX2 hash; reproduces the scalar result bit for bit.
#include "kernels/avx2/avx2.h"
#include "kernels/avx2/isa.h"

namespace ofg::kernels::avx2 {

uint64_t hash_bytes(const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  const uint64_t key0[4] = {hashc::kSeed[1], hashc::kSeed[2], hashc::kSeed[3], hashc::kSeed[0]};
  __m256i key = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(key0));
  __m256i acc = _mm256_setzero_si256();
  const __m256i step = _mm256_set1_epi64x(static_cast<long long>(hashc::kStep));
  const size_t stripes = n / 32;
  for (size_t s = 0; s < stripes; ++s) {
    const __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + s * 32));
    const __m256i k = _mm256_xor_si256(d, key);
    const __m256i prod = _mm256_mul_epu32(k, _mm256_srli_epi64(k, 32));  // lo32 * hi32
    acc = _mm256_add_epi64(acc, _mm256_add_epi64(d, prod));
    key = _mm256_add_epi64(key, step);
  }
  uint64_t a[4];
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(a), acc);
  return hashc::finish(a, p + stripes * 32, n - stripes * 32, n);
}

}  // namespace ofg::kernels::avx2
