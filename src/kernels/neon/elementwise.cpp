// NEON binary and unary elementwise kernels: the shared kernels of kernels/simd/ on 4-lane NEON
// vectors (32-bit ARM: Div, Reciprocal and Sqrt stay scalar, see isa.h).
#if defined(__aarch64__) || defined(__ARM_NEON)
#include "kernels/neon/neon.h"
#include "kernels/neon/isa.h"
#include "kernels/simd/elementwise.h"

namespace ofg::kernels::neon {

void binary_vv(BinaryOp op, const float* a, const float* b, float* y, size_t n) {
  simd::binary<Isa, simd::Operands::VV>(op, a, b, y, n);
}
void binary_vs(BinaryOp op, const float* a, float b, float* y, size_t n) {
  simd::binary<Isa, simd::Operands::VS>(op, a, &b, y, n);
}
void binary_sv(BinaryOp op, float a, const float* b, float* y, size_t n) {
  simd::binary<Isa, simd::Operands::SV>(op, &a, b, y, n);
}
void unary(UnaryOp op, const float* x, float* y, size_t n, float alpha, float beta) {
  simd::unary<Isa>(op, x, y, n, alpha, beta);
}

}  // namespace ofg::kernels::neon
#endif
