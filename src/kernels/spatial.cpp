#include "kernels/spatial.h"

#include <algorithm>

namespace ofg::kernels {

size_t conv_out_dim(size_t in, size_t kernel, size_t stride, size_t pad_begin, size_t pad_end,
                    size_t dilation) {
  const size_t span = dilation * (kernel - 1) + 1;
  const size_t padded = in + pad_begin + pad_end;
  if (padded < span) return 0;
  return (padded - span) / stride + 1;
}

int64_t pool_out_dim(int64_t in, int64_t kernel, int64_t stride, int64_t pad_begin, int64_t pad_end,
                     int64_t dilation, bool ceil_mode) {
  int64_t span = in + pad_begin + pad_end - ((kernel - 1) * dilation + 1);
  if (span < 0) return 0;
  int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad_begin) --out;
  return out;
}

AutoPad parse_auto_pad(std::string_view s) {
  if (s.empty() || s == "NOTSET") return AutoPad::kNotSet;
  if (s == "VALID") return AutoPad::kValid;
  if (s == "SAME_UPPER") return AutoPad::kSameUpper;
  if (s == "SAME_LOWER") return AutoPad::kSameLower;
  return AutoPad::kUnknown;
}

void split_pad(int64_t total, bool extra_at_end, int64_t& begin, int64_t& end) {
  // Floor division: a negative total (an output larger than the full result) puts the extra
  // rows after it.
  int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
  if (extra_at_end) {
    begin = half;
    end = total - half;
  } else {
    end = half;
    begin = total - half;
  }
}

int64_t same_pads(int64_t in, int64_t kernel, int64_t stride, int64_t dilation, AutoPad mode, int64_t& begin,
                  int64_t& end) {
  int64_t out = same_out_dim(in, stride);
  int64_t total = std::max<int64_t>(0, (out - 1) * stride + (kernel - 1) * dilation + 1 - in);
  split_pad(total, mode == AutoPad::kSameUpper, begin, end);
  return out;
}

}  // namespace ofg::kernels
