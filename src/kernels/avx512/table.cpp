// The AVX-512 table: the AVX2 table (its integer GEMMs, conversions and quantization stay) with
// the float entries of the shared templates instantiated for 16 lanes.
#include "kernels/avx512/avx512.h"

namespace ofg::kernels {

void fill_avx512_table(KernelTable& t) {
  fill_avx2_table(t);
  t.isa = "avx512";
  OFG_SET_ISA_ENTRIES(avx512, OFG_AVX512_KERNELS)
}

}  // namespace ofg::kernels
