// The kernel-table entries that kernels/simd/ implements once for every SIMD table from an ISA's
// lane operations: the matrix-vector products, binary and unary elementwise, reduce, softmax, layer norm, 4-byte transposes
// and diff (where the ISA has double vectors). An ISA folder instantiates them with its Isa
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

// The entries that do several operations per element loaded (the vector math of unary,
// softmax's exponentials, layer norm's two passes, the matrix-vector product's multiply-adds),
// which a wider vector speeds up; and those whose speed is the memory traffic's (sgemv_t streams
// its matrix from L2 in 64-column panels, which 8 vectors of 8 lanes cover).
#define OFG_SIMD_COMPUTE_KERNELS(X) X(sgemv) X(unary) X(softmax) X(layer_norm)
#define OFG_SIMD_MEMORY_KERNELS(X) X(sgemv_t) X(binary_vv) X(binary_vs) X(binary_sv) X(affine_vs) X(reduce) X(transpose2d)
#define OFG_SET_KERNEL(name) t.name = name<S>;

template <class S>
void set_compute_entries(KernelTable& t) {
  OFG_SIMD_COMPUTE_KERNELS(OFG_SET_KERNEL)
}

// Every entry of this file. (The AVX-512 table takes only set_compute_entries: the others
// measured no faster than AVX2's, transpose2d slower, see README.)
template <class S>
void set_vector_entries(KernelTable& t) {
  OFG_SIMD_COMPUTE_KERNELS(OFG_SET_KERNEL)
  OFG_SIMD_MEMORY_KERNELS(OFG_SET_KERNEL)
  if constexpr (S::kHasF64) t.diff = diff<S>;
}

#undef OFG_SET_KERNEL

}  // namespace ofg::kernels::simd
