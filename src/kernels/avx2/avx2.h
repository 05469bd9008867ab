// The entries of the kernel table that the AVX2 table overrides (the others stay scalar): the
// names are declared here with their types from kernels/kernel_list.h and set by table.cpp,
// which also sets the entries written once in kernels/simd/: set_blocked_entries (sgemm, conv2d,
// conv2d_packed_size, conv2d_pack, conv2d_prepacked, max_pool2d, avg_pool2d) and
// set_vector_entries (sgemv, sgemv_t, binary_vv/vs/sv, affine_vs, unary, reduce, softmax, layer_norm, transpose2d,
// diff).
#pragma once

#include "kernels/internal.h"

#define OFG_AVX2_KERNELS(X)                                                                      \
  X(igemm) X(dw_row_i16) X(quantize_u8) X(dequantize_u8) X(requantize_u8) X(hash_bytes) X(f16_to_f32) X(f32_to_f16) X(bf16_to_f32) X(f32_to_bf16)

namespace ofg::kernels::avx2 {
OFG_DECLARE_ISA_KERNELS(OFG_AVX2_KERNELS)
// igemm and its prepacked-B entries on AVX-VNNI, replacing the AVX2 igemm (which has no packed
// form) when x86_vnni() reports it (the tests call both; the AVX512-VNNI flavour is
// kernels/avx512/'s igemm_avx512vnni).
OFG_DECLARE_DOT_IGEMM(igemm_avxvnni)
}  // namespace ofg::kernels::avx2
