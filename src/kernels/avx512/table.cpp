// The AVX-512 table: the AVX2 table (its integer GEMMs, conversions and quantization stay) with
// the float entries of the shared templates instantiated for 16 lanes.
#include "kernels/avx512/avx512.h"

namespace ofg::kernels {

namespace {
// Depthwise convolution keeps the AVX2 kernel: planes of MobileNet-like networks are 7 to 112
// columns wide, and 16-lane rows measured slower there (bench_kernels BM_Depthwise3x3*, stride 2
// up to 1.6x slower). Both pointers are set once, when the table is filled.
decltype(KernelTable::conv2d) avx2_conv2d = nullptr, avx512_conv2d = nullptr;
void conv2d_depthwise_on_avx2(const Conv2DParams& p, const float* x, const float* w, float* y) {
  const bool depthwise = p.group == p.C_in && p.group == p.C_out && p.group > 1;
  (depthwise ? avx2_conv2d : avx512_conv2d)(p, x, w, y);
}
}  // namespace

void fill_avx512_table(KernelTable& t) {
  fill_avx2_table(t);
  avx2_conv2d = t.conv2d;
  t.isa = "avx512";
  OFG_SET_ISA_ENTRIES(avx512, OFG_AVX512_KERNELS)
  avx512_conv2d = t.conv2d;
  t.conv2d = conv2d_depthwise_on_avx2;
}

}  // namespace ofg::kernels
