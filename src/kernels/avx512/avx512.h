// The entries of the kernel table that the AVX-512 table overrides; the others (igemm with
// VNNI, conversions, quantization, hashing) stay those of the AVX2 table it starts from. Only
// the entries kernels/simd/ writes once for every ISA: set_blocked_entries (blocked.cpp) and
// set_vector_entries (vector.cpp).
#pragma once

#include "kernels/internal.h"

#define OFG_AVX512_KERNELS(X)

namespace ofg::kernels::avx512 {
OFG_DECLARE_ISA_KERNELS(OFG_AVX512_KERNELS)
}  // namespace ofg::kernels::avx512
