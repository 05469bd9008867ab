// The AVX2 table: the scalar table with the entries this folder speeds up.
#include "kernels/avx2/avx2.h"

namespace ofg::kernels {

void fill_avx2_table(KernelTable& t) {
  detail::fill_scalar_table(t);
  t.isa = "avx2";
  t.sgemm = avx2::sgemm;
  t.conv2d = avx2::conv2d;
  t.max_pool2d = avx2::max_pool2d;
  t.conv2d_packed_size = avx2::conv2d_packed_size;
  t.conv2d_pack = avx2::conv2d_pack;
  t.conv2d_prepacked = avx2::conv2d_prepacked;
  t.binary_vv = avx2::binary_vv;
  t.binary_vs = avx2::binary_vs;
  t.binary_sv = avx2::binary_sv;
  t.unary = avx2::unary;
  t.reduce = avx2::reduce;
  t.softmax = avx2::softmax;
  t.layer_norm = avx2::layer_norm;
  t.transpose2d = avx2::transpose2d;
  t.hash_bytes = avx2::hash_bytes;
  t.diff_f32 = avx2::diff_f32;
  t.f16_to_f32 = avx2::f16_to_f32;
  t.f32_to_f16 = avx2::f32_to_f16;
  t.bf16_to_f32 = avx2::bf16_to_f32;
  t.f32_to_bf16 = avx2::f32_to_bf16;
}

}  // namespace ofg::kernels
