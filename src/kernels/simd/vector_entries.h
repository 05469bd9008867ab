// The kernel-table entries that kernels/simd/ implements once for every SIMD table from an ISA's
// lane operations: the matrix-vector products, binary and unary elementwise, reduce, softmax, layer norm, 4-byte transposes
// and diff_f32 (where the ISA has double vectors). An ISA folder instantiates them with its Isa
// struct from one translation unit compiled with its flags (avx2/vector.cpp, neon/vector.cpp).
#pragma once

#include "kernels/simd/diff.h"
#include "kernels/simd/elementwise.h"
#include "kernels/simd/gemv.h"
#include "kernels/simd/reduce.h"
#include "kernels/simd/transpose.h"

namespace ofg::kernels::simd {

template <class S>
void binary_vv(BinaryOp op, const float* a, const float* b, float* y, size_t n) {
  binary<S, Operands::VV>(op, a, b, y, n);
}
template <class S>
void binary_vs(BinaryOp op, const float* a, float b, float* y, size_t n) {
  binary<S, Operands::VS>(op, a, &b, y, n);
}
template <class S>
void binary_sv(BinaryOp op, float a, const float* b, float* y, size_t n) {
  binary<S, Operands::SV>(op, &a, b, y, n);
}

#define OFG_SIMD_VECTOR_KERNELS(X) \
  X(sgemv) X(sgemv_t) X(binary_vv) X(binary_vs) X(binary_sv) X(unary) X(reduce) X(softmax) X(layer_norm) X(transpose2d)

template <class S>
void set_vector_entries(KernelTable& t) {
#define OFG_SET_KERNEL(name) t.name = name<S>;
  OFG_SIMD_VECTOR_KERNELS(OFG_SET_KERNEL)
#undef OFG_SET_KERNEL
  if constexpr (S::kHasF64) t.diff_f32 = diff_f32<S>;
}

}  // namespace ofg::kernels::simd
