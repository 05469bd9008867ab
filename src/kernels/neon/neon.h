// The entries of the kernel table that the NEON table overrides (the others stay scalar): the
// names are declared here with their types from kernels/kernel_list.h and set by table.cpp,
// which also sets the entries written once in kernels/simd/: set_blocked_entries (sgemm, conv2d,
// conv2d_packed_size, conv2d_pack, conv2d_prepacked, max_pool2d, avg_pool2d) and
// set_vector_entries (sgemv, sgemv_t, binary_vv/vs/sv, affine_vs, unary, reduce, softmax, layer_norm, transpose2d,
// diff).
// The files of this folder are compiled for aarch64 and for 32-bit ARM with NEON (each is empty
// without __ARM_NEON); entries that 32-bit ARM cannot do exactly fall back to the scalar
// reference inside the NEON function (see isa.h).
#pragma once

#include "kernels/internal.h"

// The integer kernels of igemm.cpp use aarch64-only instructions (FRINTN, vector divide, float64
// lanes): on 32-bit ARM they stay scalar.
#if defined(__aarch64__)
#define OFG_NEON_INT_KERNELS(X) X(igemm) X(dw_row_i16) X(quantize_u8) X(dequantize_u8) X(requantize_u8)
#else
#define OFG_NEON_INT_KERNELS(X)
#endif
#define OFG_NEON_KERNELS(X)                                                                      \
  X(hash_bytes) X(equal_bytes) X(f16_to_f32) X(f32_to_f16) X(bf16_to_f32) X(f32_to_bf16) \
  OFG_NEON_INT_KERNELS(X)

#if defined(__aarch64__)
namespace ofg::kernels {
// Whether the CPU has the Armv8.2 dot product instructions (HWCAP_ASIMDDP; dispatch.cpp).
bool arm_dotprod();
}  // namespace ofg::kernels
#endif

namespace ofg::kernels::neon {
OFG_DECLARE_ISA_KERNELS(OFG_NEON_KERNELS)
#if defined(__aarch64__)
// igemm and its prepacked-B entries on the dot product (igemm_sdot.cpp), replacing the int16 igemm
// (which has no packed form) when arm_dotprod() says so and the compiler could build it
// (OFG_HAVE_SDOT); the tests call both.
OFG_DECLARE_DOT_IGEMM(igemm_sdot)
#endif
}  // namespace ofg::kernels::neon
