// The NEON table: scalar table plus NEON elementwise Add/Sub/Mul/Div and Relu, and the integer
// kernels of igemm.cpp. Not run on the
// x86 development machine (compile-checked only); everything else falls back to scalar.
#if defined(__aarch64__)
#include "kernels/internal.h"

#include <arm_neon.h>

// The entries of the kernel table that the NEON table overrides (the others stay scalar).
#define OFG_NEON_KERNELS(X) \
  X(binary_vv) X(binary_vs) X(binary_sv) X(unary) X(igemm) X(dw_row_i16) X(quantize_u8) X(dequantize_u8) X(requantize_u8)

namespace ofg::kernels {

namespace neon {
// Defined in igemm.cpp.
fn::igemm igemm;
fn::dw_row_i16 dw_row_i16;
fn::quantize_u8 quantize_u8;
fn::dequantize_u8 dequantize_u8;
fn::requantize_u8 requantize_u8;

namespace {
inline float32x4_t neon_bin(BinaryOp op, float32x4_t a, float32x4_t b) {
  switch (op) {
    case BinaryOp::Add: return vaddq_f32(a, b);
    case BinaryOp::Sub: return vsubq_f32(a, b);
    case BinaryOp::Mul: return vmulq_f32(a, b);
    default: return vdivq_f32(a, b);
  }
}
bool neon_supported(BinaryOp op) {
  return op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul || op == BinaryOp::Div;
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
