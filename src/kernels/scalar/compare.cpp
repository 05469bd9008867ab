// Hash, byte equality and float comparison statistics.
//
// The hash walks 32-byte stripes as four 64-bit lanes; each lane adds the word and the product
// of the two 32-bit halves of (word ^ lane key), and the keys advance every stripe so equal
// stripes at different offsets contribute differently. Only 32x32->64 multiplies are used so
// that AVX2 (vpmuludq) computes the same lanes; the tail and the final mix are scalar code shared
// by every ISA.
#include "kernels/internal.h"

#include <cstring>
#include <limits>

namespace ofg::kernels {

namespace {
uint64_t load64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
uint64_t mix(uint64_t x) {
  x ^= x >> 31;
  x *= 0xD6E8FEB86659FD93ull;
  x ^= x >> 29;
  x *= 0x9FB21C651E98DF25ull;
  x ^= x >> 32;
  return x;
}
}  // namespace

uint64_t hashc::finish(const uint64_t acc[4], const unsigned char* tail, size_t tail_len, size_t n) {
  uint64_t h = mix(static_cast<uint64_t>(n) ^ kStep);
  for (int l = 0; l < 4; ++l) h = mix(h ^ mix(acc[l] + kSeed[l]));
  size_t i = 0;
  for (; i + 8 <= tail_len; i += 8) h = mix(h ^ load64(tail + i));
  if (i < tail_len) {
    uint64_t v = 0;
    std::memcpy(&v, tail + i, tail_len - i);
    h = mix(h ^ v ^ (static_cast<uint64_t>(tail_len - i) << 59));
  }
  return h;
}

namespace scalar {

uint64_t hash_bytes(const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t acc[4], key[4];
  for (int l = 0; l < 4; ++l) {
    acc[l] = 0;
    key[l] = hashc::kSeed[(l + 1) & 3];
  }
  const size_t stripes = n / 32;
  for (size_t s = 0; s < stripes; ++s) {
    for (int l = 0; l < 4; ++l) {
      const uint64_t d = load64(p + s * 32 + 8 * l);
      const uint64_t k = d ^ key[l];
      acc[l] += d + (k & 0xFFFFFFFFull) * (k >> 32);
      key[l] += hashc::kStep;
    }
  }
  return hashc::finish(acc, p + stripes * 32, n - stripes * 32, n);
}

bool equal_bytes(const void* a, const void* b, size_t n) {
  // libc memcmp is already vectorised for the running CPU.
  return n == 0 || std::memcmp(a, b, n) == 0;
}

DiffStats diff(const float* a, const float* b, size_t n, double atol, double rtol) {
  const double inf = std::numeric_limits<double>::infinity();
  DiffStats st;
  for (size_t i = 0; i < n; ++i) {
    const double x = a[i], e = b[i];
    double d;
    if (std::isnan(x) || std::isnan(e)) d = (std::isnan(x) && std::isnan(e)) ? 0.0 : inf;
    else if (x == e) d = 0.0;
    else d = std::fabs(x - e);
    const double ae = std::fabs(e);
    const double rel = d == 0.0 ? 0.0 : (d == inf || ae == 0.0) ? inf : d / ae;
    if (d == inf || d > atol + rtol * ae) ++st.mismatches;
    if (d > st.max_abs) {
      st.max_abs = d;
      st.worst_index = i;
    }
    if (rel > st.max_rel) st.max_rel = rel;
  }
  return st;
}

}  // namespace scalar
}  // namespace ofg::kernels
