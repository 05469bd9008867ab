// The AVX2 table: the scalar table with the entries this folder speeds up.
#include "kernels/avx2/avx2.h"

namespace ofg::kernels {

void fill_avx2_table(KernelTable& t) {
  detail::fill_scalar_table(t);
  t.isa = "avx2";
  t.sgemm = avx2::sgemm;
}

}  // namespace ofg::kernels
