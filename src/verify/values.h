// Graph inputs and outputs as callers and .pb files hold them (the C ABI's ofg_value): a tensor,
// a sequence of tensors or an optional, with names. Unlike exec::RValue a present optional stays
// apart from its content. Conversions to and from the interpreter's values and the .pb messages,
// and their comparison.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "exec/tensor.h"
#include "verify/verify.h"

namespace ofg::verify {

struct Value {
  enum Kind : int32_t { kTensor = 1, kSequence = 2, kOptional = 3 };  // the C ABI's OFG_VALUE_*
  Kind kind = kTensor;
  std::string name;
  exec::RTensor tensor;                // kTensor; owns its bytes
  std::vector<Value> elements;         // kSequence: tensors, each with its own name
  int32_t elem_type = 0;               // kSequence, also when empty
  std::shared_ptr<const Value> inner;  // kOptional: null when empty
};

// "tensor", "sequence", "optional" or "unknown".
const char* kind_name(int32_t kind);

// A .pb file's bytes as `declared` (the graph input's or output's type, may be null) says:
// TensorProto, SequenceProto or OptionalProto. Errors start with `context`.
Value read_value_pb(Bytes b, const Type* declared, const std::string& context);
// One TensorProto.
Value read_tensor_pb(Bytes b, const std::string& context);
// The TensorProto, SequenceProto or OptionalProto of `v`; `name` is written when not empty.
std::string write_value_pb(const Value& v, std::string_view name);

// The interpreter holds a present optional as its content.
exec::RValue to_runtime(const Value& v);
// `declared` decides whether the result is wrapped as an optional (see above).
Value from_runtime(const exec::RValue& r, const Type* declared, const std::string& name);

// Appends the differences of actual against expected to `out`: one entry per tensor (a
// sequence's elements as NAME[i]), or one entry naming the problem (kinds, lengths, presence).
void compare_values(const Value& actual, const Value& expected, const std::string& name, double atol,
                    double rtol, std::vector<OutputDiff>& out);

}  // namespace ofg::verify
