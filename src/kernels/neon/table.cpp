// The NEON table: scalar table plus NEON elementwise Add/Sub/Mul/Div and Relu; everything else
// falls back to scalar. Built for aarch64 and for 32-bit ARM with NEON (-mfpu=neon), where Div
// stays scalar (ARMv7 NEON has no vector divide; its reciprocal estimate is not exact division).
// On aarch64 also the integer kernels of igemm.cpp. Tested under qemu-user
// (tests/cross/run_cross.sh).
#if defined(__aarch64__) || defined(__ARM_NEON)
#include "kernels/internal.h"

#include <arm_neon.h>

// The entries of the kernel table that the NEON table overrides (the others stay scalar).
#if defined(__aarch64__)
// igemm.cpp uses aarch64-only instructions (FRINTN, vector divide, float64 lanes).
#define OFG_NEON_INT_KERNELS(X) X(igemm) X(dw_row_i16) X(quantize_u8) X(dequantize_u8) X(requantize_u8)
#else
#define OFG_NEON_INT_KERNELS(X)
#endif
#define OFG_NEON_KERNELS(X) X(binary_vv) X(binary_vs) X(binary_sv) X(unary) OFG_NEON_INT_KERNELS(X)

namespace ofg::kernels {

namespace neon {
#define OFG_DECLARE_KERNEL(name) fn::name name;  // defined in igemm.cpp
OFG_NEON_INT_KERNELS(OFG_DECLARE_KERNEL)
#undef OFG_DECLARE_KERNEL

namespace {
inline float32x4_t neon_bin(BinaryOp op, float32x4_t a, float32x4_t b) {
  switch (op) {
    case BinaryOp::Add: return vaddq_f32(a, b);
    case BinaryOp::Sub: return vsubq_f32(a, b);
    case BinaryOp::Mul: return vmulq_f32(a, b);
#if defined(__aarch64__)
    default: return vdivq_f32(a, b);
#else
    default: return a;  // not reached: Div is not supported on 32-bit ARM (neon_supported)
#endif
  }
}
bool neon_supported(BinaryOp op) {
#if defined(__aarch64__)
  if (op == BinaryOp::Div) return true;
#endif
  return op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul;
}
}  // namespace

void binary_vv(BinaryOp op, const float* a, const float* b, float* y, size_t n) {
  if (!neon_supported(op)) return scalar::binary_vv(op, a, b, y, n);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(y + i, neon_bin(op, vld1q_f32(a + i), vld1q_f32(b + i)));
  scalar::binary_vv(op, a + i, b + i, y + i, n - i);
}
void binary_vs(BinaryOp op, const float* a, float b, float* y, size_t n) {
  if (!neon_supported(op)) return scalar::binary_vs(op, a, b, y, n);
  const float32x4_t vb = vdupq_n_f32(b);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(y + i, neon_bin(op, vld1q_f32(a + i), vb));
  scalar::binary_vs(op, a + i, b, y + i, n - i);
}
void binary_sv(BinaryOp op, float a, const float* b, float* y, size_t n) {
  if (!neon_supported(op)) return scalar::binary_sv(op, a, b, y, n);
  const float32x4_t va = vdupq_n_f32(a);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(y + i, neon_bin(op, va, vld1q_f32(b + i)));
  scalar::binary_sv(op, a, b + i, y + i, n - i);
}
void unary(UnaryOp op, const float* x, float* y, size_t n, float alpha, float beta) {
  if (op != UnaryOp::Relu) return scalar::unary(op, x, y, n, alpha, beta);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const float32x4_t v = vld1q_f32(x + i);
    // Keep NaN (vmaxq would too, but make the intent explicit): select 0 only where v < 0.
    vst1q_f32(y + i, vbslq_f32(vcltq_f32(v, vdupq_n_f32(0.f)), vdupq_n_f32(0.f), v));
  }
  scalar::unary(op, x + i, y + i, n - i, alpha, beta);
}
}  // namespace neon

void fill_neon_table(KernelTable& t) {
  detail::fill_scalar_table(t);
  t.isa = "neon";
#define OFG_SET_KERNEL(name) t.name = neon::name;
  OFG_NEON_KERNELS(OFG_SET_KERNEL)
#undef OFG_SET_KERNEL
}

}  // namespace ofg::kernels
#endif
