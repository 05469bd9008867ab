// Runtime values of the interpreter: dense tensors (owned 64-byte-aligned buffers or views of
// bytes owned elsewhere), sequences of tensors and empty optionals.
#pragma once
#include <cstdint>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <string>
#include <vector>

#include "ir/error.h"
#include "ir/ir.h"
#include "ir/scoped_setting.h"

namespace ofg::exec {

using Shape = std::vector<int64_t>;

// ------------------------------------------------------------------ checked size arithmetic
// Every size or offset computed from model data (dims, attributes, input values) goes through
// these: a result that does not fit in int64 fails with Status::kLimit instead of wrapping
// (signed overflow is undefined behaviour and a wrapped size later indexes out of bounds).
int64_t checked_add(int64_t a, int64_t b);
int64_t checked_mul(int64_t a, int64_t b);
// Product of the dims, checked as above (dims are not checked for sign here: alloc does that).
int64_t shape_numel(const Shape& s);
std::string shape_str(const Shape& s);

// ------------------------------------------------------------------ float -> integer
// The one conversion of a floating value to an integer type used by every op: NaN gives 0,
// values beyond the type's range saturate to its min / max (+-inf included), others truncate
// toward zero. A plain static_cast is undefined behaviour for NaN and out-of-range values.
template <class To>
To saturate_cast(double v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != 0;
  } else if constexpr (std::is_integral_v<To>) {
    if (std::isnan(v)) return 0;
    // min() of a signed type is a power of two, exact as a double; max()+1 too, so the
    // comparison against it (not against max(), which rounds up) is exact.
    constexpr double lo = static_cast<double>(std::numeric_limits<To>::min());
    constexpr double hi_excl = static_cast<double>(std::numeric_limits<To>::max() / 2 + 1) * 2.0;
    if (v <= lo) return std::numeric_limits<To>::min();
    if (v >= hi_excl) return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

// ------------------------------------------------------------------ memory budget
// The largest tensor an op may allocate, in bytes; a larger request (a size computed from data:
// Range, ConstantOfShape, Tile, Expand, Resize, Pad, ...) fails with Status::kLimit. Per thread:
// the API sets it from the option "run.max_tensor_bytes" for the duration of a call.
size_t max_tensor_bytes();
// min(4 GiB, half of the physical memory).
size_t default_max_tensor_bytes();
// Sets this thread's limit while alive (0: the default), restoring the previous one after.
class TensorBudgetScope : ScopedSetting<size_t> {
 public:
  explicit TensorBudgetScope(size_t bytes);
};
// Fails with Status::kLimit unless `numel` elements of `elem_size` bytes fit in the budget;
// returns the byte count. `what` names the tensor in the message.
size_t check_tensor_bytes(int64_t numel, size_t elem_size, const std::string& what);
// The same check without the failure: false when over the limit; else bytes = numel * elem_size.
bool tensor_bytes_within_limit(int64_t numel, size_t elem_size, size_t& bytes);

struct RTensor {
  int32_t dtype = 0;
  Shape shape;
  // Keeps the bytes alive: an aligned allocation of ours, or null for a view whose owner
  // (the model's mapping, a caller buffer) outlives the run.
  std::shared_ptr<uint8_t> hold;
  uint8_t* ptr = nullptr;

  int64_t numel() const { return shape_numel(shape); }
  size_t elem_size() const { return dtype_size(dtype); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * elem_size(); }
  int rank() const { return static_cast<int>(shape.size()); }
  template <class T> T* data() { return reinterpret_cast<T*>(ptr); }
  template <class T> const T* data() const { return reinterpret_cast<const T*>(ptr); }

  // A new zero-filled tensor in a 64-byte-aligned buffer.
  static RTensor alloc(int32_t dtype, Shape shape);
  // The same without the zero fill, for outputs a kernel writes entirely (saves a pass over
  // memory on the hot ops).
  static RTensor alloc_uninit(int32_t dtype, Shape shape);
  // A view of bytes owned elsewhere (no copy); `owner` may be null.
  static RTensor view(int32_t dtype, Shape shape, const void* data, std::shared_ptr<uint8_t> owner);
  // A deep copy into a fresh aligned buffer.
  RTensor clone() const;
  // Same bytes, other shape (numel must agree).
  RTensor reshaped(Shape s) const;
};

// Reads element i as double / int64 whatever the dtype (shape arithmetic and slow paths).
double get_f64(const RTensor& t, int64_t i);
int64_t get_i64(const RTensor& t, int64_t i);
void set_f64(RTensor& t, int64_t i, double v);
// Copies a (possibly unaligned) IR tensor's data; views it when aligned enough.
RTensor from_ir(const Tensor& t);
// Element conversion between any two supported dtypes (float16/bfloat16 included).
RTensor cast_tensor(const RTensor& x, int32_t to);
bool is_float_type(int32_t dt);
bool is_supported_type(int32_t dt);

// A value flowing through the graph.
struct RValue {
  enum Kind : uint8_t { kNone, kTensor, kSequence, kOptionalNone };
  Kind kind = kNone;
  RTensor t;
  std::vector<RTensor> seq;
  int32_t seq_elem_type = 0;  // for empty sequences
  static RValue tensor(RTensor t) {
    RValue v;
    v.kind = kTensor;
    v.t = std::move(t);
    return v;
  }
};

// Calls f(T{}) with the C++ type of a numeric dtype. float16/bfloat16 are passed as uint16_t
// only through visit_all; visit_numeric rejects them (callers promote them to float first).
template <class F>
void visit_numeric(int32_t dt, F&& f) {
  switch (dt) {
    case kFloat: f(float{}); return;
    case kDouble: f(double{}); return;
    case kInt8: f(int8_t{}); return;
    case kInt16: f(int16_t{}); return;
    case kInt32: f(int32_t{}); return;
    case kInt64: f(int64_t{}); return;
    case kUint8: f(uint8_t{}); return;
    case kUint16: f(uint16_t{}); return;
    case kUint32: f(uint32_t{}); return;
    case kUint64: f(uint64_t{}); return;
    case kBool: f(bool{}); return;
    default: fail(Status::kUnsupported, std::string("element type ") + dtype_name(dt) + " is not supported here");
  }
}

}  // namespace ofg::exec
