// Extents and padding of the spatial axes of convolution and pooling: the one place the
// auto_pad, ceil_mode and output-size arithmetic lives (the ops of exec, their type/shape rules
// and the conv drivers all call these).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ofg::kernels {

// Output extent of one spatial axis of conv/pool (floor mode). Ceil mode is the caller's: it
// passes the larger output size and the kernels clip windows to the padded input.
size_t conv_out_dim(size_t in, size_t kernel, size_t stride, size_t pad_begin, size_t pad_end,
                    size_t dilation);

// Output extent of one axis with explicit pads: 0 when the window does not fit. With ceil_mode
// the window count is rounded up, but a last window that would start inside the end padding
// only is dropped (the ONNX and PyTorch rule).
int64_t pool_out_dim(int64_t in, int64_t kernel, int64_t stride, int64_t pad_begin, int64_t pad_end,
                     int64_t dilation, bool ceil_mode);

// The auto_pad attribute of Conv, ConvTranspose, ConvInteger and the pooling ops.
enum class AutoPad { kNotSet, kValid, kSameUpper, kSameLower, kUnknown };
AutoPad parse_auto_pad(std::string_view s);  // "" reads as NOTSET
inline bool is_same(AutoPad a) { return a == AutoPad::kSameUpper || a == AutoPad::kSameLower; }

// SAME_* output extent: ceil(in / stride).
inline int64_t same_out_dim(int64_t in, int64_t stride) { return (in + stride - 1) / stride; }
// Splits a total padding between begin and end, halves rounded down: the extra element goes to
// the end when `extra_at_end` (SAME_UPPER), to the begin otherwise (SAME_LOWER).
void split_pad(int64_t total, bool extra_at_end, int64_t& begin, int64_t& end);
// SAME_UPPER / SAME_LOWER on one axis of a convolution or pooling: the pads that make the
// output extent same_out_dim(in, stride); returns that extent.
int64_t same_pads(int64_t in, int64_t kernel, int64_t stride, int64_t dilation, AutoPad mode, int64_t& begin,
                  int64_t& end);

}  // namespace ofg::kernels
