// NEON reductions (sum, mean, max, min), softmax and layer norm: the shared kernels of
// kernels/simd/ on 4-lane NEON vectors.
#if defined(__aarch64__) || defined(__ARM_NEON)
#include "kernels/neon/neon.h"
#include "kernels/neon/isa.h"
#include "kernels/simd/reduce.h"

namespace ofg::kernels::neon {

void reduce(ReduceOp op, const float* x, float* y, size_t outer, size_t len, size_t inner) {
  simd::reduce<Isa>(op, x, y, outer, len, inner);
}
void softmax(const float* x, float* y, size_t outer, size_t len, size_t inner, bool log) {
  simd::softmax<Isa>(x, y, outer, len, inner, log);
}
void layer_norm(const float* x, const float* scale, const float* bias, float* y, size_t rows, size_t D,
                float eps, float* mean, float* inv_std) {
  simd::layer_norm<Isa>(x, scale, bias, y, rows, D, eps, mean, inv_std);
}

}  // namespace ofg::kernels::neon
#endif
