// The entries of the kernel table that the AVX2 table overrides (the others stay scalar): the
// names are declared here with their types from kernels/kernel_list.h and set by table.cpp.
#pragma once

#include "kernels/internal.h"

#define OFG_AVX2_KERNELS(X)                                                                      \
  X(sgemm) X(igemm) X(dw_row_i16) X(quantize_u8) X(dequantize_u8) X(requantize_u8) X(conv2d) X(conv2d_packed_size) X(conv2d_pack) X(conv2d_prepacked) X(max_pool2d)       \
  X(binary_vv) X(binary_vs) X(binary_sv) X(unary) X(reduce) X(softmax) X(layer_norm)              \
  X(transpose2d) X(hash_bytes) X(diff_f32) X(f16_to_f32) X(f32_to_f16) X(bf16_to_f32) X(f32_to_bf16)

namespace ofg::kernels::avx2 {
#define OFG_DECLARE_KERNEL(name) fn::name name;
OFG_AVX2_KERNELS(OFG_DECLARE_KERNEL)
#undef OFG_DECLARE_KERNEL
// igemm on VNNI, replacing the AVX2 one when x86_vnni() reports the flavour (the tests call
// all of them).
fn::igemm igemm_avxvnni;
fn::igemm igemm_avx512vnni;
}  // namespace ofg::kernels::avx2
