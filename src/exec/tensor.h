// Runtime values of the interpreter: dense tensors (owned 64-byte-aligned buffers or views of
// bytes owned elsewhere), sequences of tensors and empty optionals.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ir/error.h"
#include "ir/ir.h"

namespace ofg::exec {

using Shape = std::vector<int64_t>;

int64_t shape_numel(const Shape& s);
std::string shape_str(const Shape& s);

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
