// Exact float16 / bfloat16 conversions (integer arithmetic, round to nearest even).
#include "kernels/internal.h"

#include <cstring>

namespace ofg::kernels {

namespace {
uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
}  // namespace

float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
  if (e == 0) {
    // Zero or subnormal: m * 2^-24 is exact in float.
    const float v = static_cast<float>(m) * 5.9604644775390625e-8f;
    return from_bits(bits(v) | sign);
  }
  if (e == 31) return from_bits(sign | 0x7F800000u | (m ? 0x400000u | (m << 13) : 0u));
  return from_bits(sign | ((e + 112u) << 23) | (m << 13));
}

uint16_t f32_to_f16(float f) {
  const uint32_t u = bits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u | ((a >> 13) & 0x3FFu));
  if (a >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // >= 65520 rounds to inf
  if (a < 0x38800000u) {
    // Half subnormal range: units of 2^-24.
    const uint32_t e = a >> 23;
    const uint32_t shift = 126u - e;
    if (shift > 24) return sign;
    const uint32_t mant = (a & 0x7FFFFFu) | 0x800000u;
    uint32_t q = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (q & 1u))) ++q;
    return static_cast<uint16_t>(sign | q);
  }
  uint32_t base = (a - 0x38000000u) >> 13;
  const uint32_t rem = a & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (base & 1u))) ++base;
  return static_cast<uint16_t>(sign | base);
}

float bf16_to_f32(uint16_t h) { return from_bits(static_cast<uint32_t>(h) << 16); }

uint16_t f32_to_bf16(float f) {
  const uint32_t u = bits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

namespace scalar {
void f16_to_f32(const uint16_t* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = kernels::f16_to_f32(x[i]);
}
void f32_to_f16(const float* x, uint16_t* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = kernels::f32_to_f16(x[i]);
}
void bf16_to_f32(const uint16_t* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = kernels::bf16_to_f32(x[i]);
}
void f32_to_bf16(const float* x, uint16_t* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = kernels::f32_to_bf16(x[i]);
}
}  // namespace scalar

}  // namespace ofg::kernels
