#include "exec/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <type_traits>
#include <unistd.h>

#include "exec/buffer_cache.h"
#include "kernels/kernels.h"

namespace ofg::exec {

int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    fail(Status::kLimit, "size arithmetic overflows: " + std::to_string(a) + " + " + std::to_string(b));
  return r;
}

int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    fail(Status::kLimit, "size arithmetic overflows: " + std::to_string(a) + " * " + std::to_string(b));
  return r;
}

int64_t shape_numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s)
    if (__builtin_mul_overflow(n, d, &n)) fail(Status::kLimit, "the element count of shape " + shape_str(s) + " overflows");
  return n;
}

namespace {
thread_local size_t t_budget = 0;  // 0: default_max_tensor_bytes()
}  // namespace

size_t default_max_tensor_bytes() {
  static const size_t v = [] {
    // In 64 bits (4 GiB does not fit a 32-bit size_t), then at most half the address space.
    uint64_t cap = uint64_t{4} << 30;
    long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) cap = std::min(cap, static_cast<uint64_t>(pages) / 2 * static_cast<uint64_t>(page));
    return static_cast<size_t>(std::min<uint64_t>(cap, SIZE_MAX / 2));
  }();
  return v;
}

size_t max_tensor_bytes() { return t_budget ? t_budget : default_max_tensor_bytes(); }

TensorBudgetScope::TensorBudgetScope(size_t bytes) : ScopedSetting(t_budget, bytes) {}

bool tensor_bytes_within_limit(int64_t numel, size_t elem_size, size_t& bytes) {
  int64_t b = 0;
  if (numel < 0 || __builtin_mul_overflow(numel, static_cast<int64_t>(elem_size), &b) ||
      static_cast<uint64_t>(b) > max_tensor_bytes())
    return false;
  bytes = static_cast<size_t>(b);
  return true;
}

size_t check_tensor_bytes(int64_t numel, size_t elem_size, const std::string& what) {
  size_t ok_bytes = 0;
  if (tensor_bytes_within_limit(numel, elem_size, ok_bytes)) return ok_bytes;
  int64_t bytes = 0;
  if (numel < 0 || __builtin_mul_overflow(numel, static_cast<int64_t>(elem_size), &bytes) ||
      static_cast<uint64_t>(bytes) > max_tensor_bytes())
    fail(Status::kLimit, what + " needs " + (numel < 0 || bytes < 0 ? std::string("more than 2^63") : std::to_string(bytes)) +
                             " bytes, more than the limit of " + std::to_string(max_tensor_bytes()) +
                             " (option run.max_tensor_bytes)");
  return static_cast<size_t>(bytes);
}

std::string shape_str(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

RTensor RTensor::alloc(int32_t dtype, Shape shape) {
  RTensor t = alloc_uninit(dtype, std::move(shape));
  std::memset(t.ptr, 0, std::max<size_t>(64, (t.nbytes() + 63) / 64 * 64));
  return t;
}

RTensor RTensor::alloc_uninit(int32_t dtype, Shape shape) {
  RTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  for (int64_t d : t.shape)
    if (d < 0) fail(Status::kInvalidModel, "negative dimension in shape " + shape_str(t.shape));
  size_t es = dtype_size(dtype);
  if (es == 0) fail(Status::kUnsupported, std::string("element type ") + dtype_name(dtype) + " is not supported");
  // The message is only built when the check fails (this runs for every tensor of every run).
  size_t bytes = 0;
  if (!tensor_bytes_within_limit(t.numel(), es, bytes))
    bytes = check_tensor_bytes(t.numel(), es, "a tensor of shape " + shape_str(t.shape));
  // Rounded up so SIMD tails may read a whole vector; 64-byte alignment for cache lines / AVX.
  size_t alloc = (bytes + 63) / 64 * 64;
  if (alloc == 0) alloc = 64;
  size_t got = 0;
  void* p = buffer_take(alloc, got);
  t.hold = std::shared_ptr<uint8_t>(static_cast<uint8_t*>(p), [got](uint8_t* q) { buffer_give(q, got); });
  t.ptr = t.hold.get();
  return t;
}

RTensor RTensor::view(int32_t dtype, Shape shape, const void* data, std::shared_ptr<uint8_t> owner) {
  RTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.hold = std::move(owner);
  t.ptr = const_cast<uint8_t*>(static_cast<const uint8_t*>(data));
  return t;
}

RTensor RTensor::clone() const {
  RTensor t = alloc(dtype, shape);
  if (nbytes()) std::memcpy(t.ptr, ptr, nbytes());
  return t;
}

RTensor RTensor::reshaped(Shape s) const {
  if (shape_numel(s) != numel())
    fail(Status::kInvalidModel, "cannot reshape " + shape_str(shape) + " to " + shape_str(s));
  RTensor t = *this;
  t.shape = std::move(s);
  return t;
}

bool is_float_type(int32_t dt) { return dt == kFloat || dt == kDouble || dt == kFloat16 || dt == kBfloat16; }
bool is_supported_type(int32_t dt) {
  switch (dt) {
    case kFloat: case kDouble: case kFloat16: case kBfloat16: case kInt8: case kInt16: case kInt32: case kInt64:
    case kUint8: case kUint16: case kUint32: case kUint64: case kBool: return true;
    default: return false;
  }
}

double get_f64(const RTensor& t, int64_t i) {
  switch (t.dtype) {
    case kFloat16: return kernels::f16_to_f32(t.data<uint16_t>()[i]);
    case kBfloat16: return kernels::bf16_to_f32(t.data<uint16_t>()[i]);
    default: break;
  }
  double r = 0;
  visit_numeric(t.dtype, [&](auto tag) {
    using T = decltype(tag);
    r = static_cast<double>(t.data<T>()[i]);
  });
  return r;
}

int64_t get_i64(const RTensor& t, int64_t i) {
  if (t.dtype == kInt64) return t.data<int64_t>()[i];
  if (t.dtype == kInt32) return t.data<int32_t>()[i];
  if (t.dtype == kUint64) return static_cast<int64_t>(t.data<uint64_t>()[i]);
  return saturate_cast<int64_t>(get_f64(t, i));
}

void set_f64(RTensor& t, int64_t i, double v) {
  switch (t.dtype) {
    case kFloat16: t.data<uint16_t>()[i] = kernels::f32_to_f16(static_cast<float>(v)); return;
    case kBfloat16: t.data<uint16_t>()[i] = kernels::f32_to_bf16(static_cast<float>(v)); return;
    default: break;
  }
  visit_numeric(t.dtype, [&](auto tag) {
    using T = decltype(tag);
    t.data<T>()[i] = saturate_cast<T>(v);
  });
}

RTensor from_ir(const Tensor& t) {
  if (!is_supported_type(t.data_type))
    fail(Status::kUnsupported, std::string("tensor of element type ") + dtype_name(t.data_type) + " is not supported");
  Shape s(t.dims.begin(), t.dims.end());
  for (int64_t d : s)
    if (d < 0) fail(Status::kInvalidModel, "tensor with negative dimension in shape " + shape_str(s));
  size_t es = dtype_size(t.data_type);
  size_t need = static_cast<size_t>(checked_mul(shape_numel(s), static_cast<int64_t>(es)));
  if (t.data.size < need) fail(Status::kInvalidModel, "tensor data is shorter than its dims say");
  const Bytes bytes = t.bytes();
  // A bool is 0 or 1 in memory; another byte value read as bool is undefined behaviour. Files may
  // hold any byte: such a tensor is copied with every nonzero byte made 1.
  if (t.data_type == kBool && std::any_of(bytes.data, bytes.data + need, [](uint8_t b) { return b > 1; })) {
    RTensor r = RTensor::alloc(kBool, s);
    for (size_t i = 0; i < need; ++i) r.ptr[i] = bytes.data[i] != 0;
    return r;
  }
  if (reinterpret_cast<uintptr_t>(bytes.data) % es == 0) return RTensor::view(t.data_type, s, bytes.data, nullptr);
  // Unaligned bytes (raw_data at an odd offset of the file): one copy into an aligned buffer.
  // Only the rounding tail is zeroed (as alloc would), not the bytes the copy overwrites anyway.
  RTensor r = RTensor::alloc_uninit(t.data_type, s);
  if (need) std::memcpy(r.ptr, bytes.data, need);
  size_t padded = std::max<size_t>(64, (need + 63) / 64 * 64);
  std::memset(r.ptr + need, 0, padded - need);
  return r;
}


RTensor cast_tensor(const RTensor& x, int32_t to) {
  if (x.dtype == to) return x;
  int64_t n = x.numel();
  if (n == 0) return RTensor::alloc(to, x.shape);
  RTensor y = RTensor::alloc_uninit(to, x.shape);  // every element is written below
  if (x.dtype == kFloat16 && to == kFloat) { kernels::f16_to_f32(x.data<uint16_t>(), y.data<float>(), n); return y; }
  if (x.dtype == kFloat && to == kFloat16) { kernels::f32_to_f16(x.data<float>(), y.data<uint16_t>(), n); return y; }
  if (x.dtype == kBfloat16 && to == kFloat) { kernels::bf16_to_f32(x.data<uint16_t>(), y.data<float>(), n); return y; }
  // Bytes to float (an image's first op in many vision models): the dequantize kernel with zero 0
  // and scale 1 is the exact conversion, vectorized (this file is compiled for size).
  if ((x.dtype == kUint8 || x.dtype == kInt8) && to == kFloat) {
    kernels::active_table().dequantize_u8(x.data<uint8_t>(), static_cast<size_t>(n), x.dtype == kInt8, 0, 1.0f,
                                          y.data<float>());
    return y;
  }
  if (x.dtype == kFloat && to == kBfloat16) { kernels::f32_to_bf16(x.data<float>(), y.data<uint16_t>(), n); return y; }
  if (x.dtype == kFloat16 || x.dtype == kBfloat16 || to == kFloat16 || to == kBfloat16) {
    RTensor mid = cast_tensor(x, kFloat);
    return cast_tensor(mid, to);
  }
  // Integer <-> integer goes through int64/uint64 so that large 64-bit values stay exact.
  bool x_int = !is_float_type(x.dtype), y_int = !is_float_type(to);
  visit_numeric(x.dtype, [&](auto xt) {
    using X = decltype(xt);
    const X* src = x.data<X>();
    visit_numeric(to, [&](auto yt) {
      using Y = decltype(yt);
      Y* dst = y.data<Y>();
      if (x_int && y_int) {
        for (int64_t i = 0; i < n; ++i) {
          if constexpr (std::is_same_v<Y, bool>) dst[i] = src[i] != 0;
          else dst[i] = static_cast<Y>(src[i]);
        }
      } else if constexpr (std::is_floating_point_v<Y> && !std::is_same_v<X, bool> &&
                           (std::is_floating_point_v<X> || sizeof(X) <= 4)) {
        // Exact in double, so one rounding either way: the direct conversion gives the same
        // value and vectorizes (a uint8 image to float, the first op of many vision models).
        if (x_int || sizeof(Y) >= sizeof(X)) {
          for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<Y>(src[i]);
        } else {
          for (int64_t i = 0; i < n; ++i) dst[i] = saturate_cast<Y>(static_cast<double>(src[i]));
        }
      } else {
        for (int64_t i = 0; i < n; ++i) dst[i] = saturate_cast<Y>(static_cast<double>(src[i]));
      }
    });
  });
  return y;
}

}  // namespace ofg::exec
