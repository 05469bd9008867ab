// A convolution's spatial geometry of rank 1..3 seen as 3-D, so one loop nest serves every rank:
// leading axes of size 1 (stride and dilation 1, padding 0) in front of the real ones. Read from
// any geometry with the fields in, kernel, out, stride, dilation, pad_begin indexed by axis
// (kernels' ConvNdParams, exec's ConvTransposeGeometry).
#pragma once
#include <cstddef>

namespace ofg::kernels {

template <class T>
struct Spatial3 {
  T in[3], kernel[3], out[3], stride[3], dilation[3], pad_begin[3];
};

template <class T, class Geometry>
Spatial3<T> spatial3(const Geometry& g, size_t rank) {
  Spatial3<T> s;
  const size_t lead = 3 - rank;
  for (size_t i = 0; i < 3; ++i) {
    const bool real = i >= lead;
    const size_t j = real ? i - lead : 0;
    s.in[i] = real ? static_cast<T>(g.in[j]) : 1;
    s.kernel[i] = real ? static_cast<T>(g.kernel[j]) : 1;
    s.out[i] = real ? static_cast<T>(g.out[j]) : 1;
    s.stride[i] = real ? static_cast<T>(g.stride[j]) : 1;
    s.dilation[i] = real ? static_cast<T>(g.dilation[j]) : 1;
    s.pad_begin[i] = real ? static_cast<T>(g.pad_begin[j]) : 0;
  }
  return s;
}

}  // namespace ofg::kernels
