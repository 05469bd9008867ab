#include "kernels/internal.h"

#include <algorithm>
#include <limits>

namespace ofg::kernels::scalar {

void max_pool2d(const Pool2DParams& p, const float* x, float* y) {
  for (size_t nc = 0; nc < p.N * p.C; ++nc) {
    const float* plane = x + nc * p.H * p.W;
    for (size_t oh = 0; oh < p.H_out; ++oh)
      for (size_t ow = 0; ow < p.W_out; ++ow) {
        float m = -std::numeric_limits<float>::infinity();
        for_each_window_tap(p, oh, ow, p.H, p.W, [&](size_t, size_t, size_t ih, size_t iw) {
          const float v = plane[ih * p.W + iw];
          if (v > m || std::isnan(v)) m = v;
          return !std::isnan(m);  // a NaN ends the row (nothing compares greater)
        });
        y[(nc * p.H_out + oh) * p.W_out + ow] = m;
      }
  }
}

void avg_pool2d(const Pool2DParams& p, const float* x, float* y) {
  const ptrdiff_t H = static_cast<ptrdiff_t>(p.H), W = static_cast<ptrdiff_t>(p.W);
  for (size_t nc = 0; nc < p.N * p.C; ++nc) {
    const float* plane = x + nc * p.H * p.W;
    for (size_t oh = 0; oh < p.H_out; ++oh)
      for (size_t ow = 0; ow < p.W_out; ++ow) {
        const ptrdiff_t h0 = static_cast<ptrdiff_t>(oh * p.stride_h) - static_cast<ptrdiff_t>(p.pad_top);
        const ptrdiff_t w0 = static_cast<ptrdiff_t>(ow * p.stride_w) - static_cast<ptrdiff_t>(p.pad_left);
        const ptrdiff_t h1 = h0 + static_cast<ptrdiff_t>(p.kH), w1 = w0 + static_cast<ptrdiff_t>(p.kW);
        const ptrdiff_t hs = std::max<ptrdiff_t>(h0, 0), he = std::min(h1, H);
        const ptrdiff_t ws = std::max<ptrdiff_t>(w0, 0), we = std::min(w1, W);
        double s = 0;
        for (ptrdiff_t ih = hs; ih < he; ++ih)
          for (ptrdiff_t iw = ws; iw < we; ++iw) s += plane[ih * W + iw];
        ptrdiff_t count;
        if (p.count_include_pad) {
          const ptrdiff_t ph = std::min(h1, H + static_cast<ptrdiff_t>(p.pad_bottom)) - std::max<ptrdiff_t>(h0, -static_cast<ptrdiff_t>(p.pad_top));
          const ptrdiff_t pw = std::min(w1, W + static_cast<ptrdiff_t>(p.pad_right)) - std::max<ptrdiff_t>(w0, -static_cast<ptrdiff_t>(p.pad_left));
          count = ph * pw;
        } else {
          count = std::max<ptrdiff_t>(he - hs, 0) * std::max<ptrdiff_t>(we - ws, 0);
        }
        y[(nc * p.H_out + oh) * p.W_out + ow] = count > 0 ? static_cast<float>(s / static_cast<double>(count)) : 0.f;
      }
  }
}

}  // namespace ofg::kernels::scalar
