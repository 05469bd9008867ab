// The AVX-512 folder's declarations. It overrides the entries that a 16-lane vector measured
// faster with (bench_kernels, bench_run): of those kernels/simd/ writes once for every ISA, SGEMM and Conv2D
// (blocked.cpp), sgemv, unary, softmax and layer norm (vector.cpp), and the depthwise sums and
// requantization of the quantized convolution (quant.cpp). Everything else (igemm with its VNNI
// choice, conversions, quantize / dequantize, hashing, pooling, binary, reduce, transposes)
// stays the AVX2 table's, which the AVX-512 table starts from.
#pragma once

#include "kernels/internal.h"

#define OFG_AVX512_KERNELS(X) X(dw_row_i16) X(requantize_u8)

namespace ofg::kernels::avx512 {
OFG_DECLARE_ISA_KERNELS(OFG_AVX512_KERNELS)
// igemm and its prepacked-B entries on AVX512-VNNI with a 512-bit tile (igemm_avx512vnni.cpp,
// compiled for AVX512-VNNI and VL only): the AVX2 table's, and so the AVX-512 table's, when
// x86_vnni() reports it.
OFG_DECLARE_DOT_IGEMM(igemm_avx512vnni)
}  // namespace ofg::kernels::avx512
