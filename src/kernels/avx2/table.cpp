// The AVX2 table: the scalar table with the entries this folder speeds up.
#include "kernels/avx2/avx2.h"

namespace ofg::kernels {

void fill_avx2_table(KernelTable& t) {
  detail::fill_scalar_table(t);
  t.isa = "avx2";
#define OFG_SET_KERNEL(name) t.name = avx2::name;
  OFG_AVX2_KERNELS(OFG_SET_KERNEL)
#undef OFG_SET_KERNEL
  avx2::set_blocked_entries(t);
  avx2::set_vector_entries(t);
#if defined(OFG_HAVE_AVX512VNNI)
  if (x86_vnni() & kVnniAvx512) t.igemm = avx2::igemm_avx512vnni;
#endif
#if defined(OFG_HAVE_AVXVNNI)
  if (x86_vnni() & kVnniAvx) t.igemm = avx2::igemm_avxvnni;
#endif
}

}  // namespace ofg::kernels
