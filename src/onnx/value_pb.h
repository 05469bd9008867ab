// The messages of .pb files (onnx-data.proto and TensorProto): a TensorProto, a SequenceProto of
// tensors or an OptionalProto, to and from IR tensors. Tensors are decoded by the model loader's
// TensorReader (one bounds-checked decoder for untrusted bytes) and encoded with the wire writer.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.h"

namespace ofg {

struct PbValue {
  enum Kind : int32_t { kTensor = 1, kSequence = 2, kOptional = 3 };
  Kind kind = kTensor;
  std::string name;
  const Tensor* tensor = nullptr;         // kTensor
  std::vector<PbValue> elements;          // kSequence: tensors, each with its own name
  int32_t elem_type = 0;                  // kSequence, also when empty (0: not said)
  std::shared_ptr<const PbValue> inner;   // kOptional: null when empty
};

// Decodes one TensorProto. The tensor is made in `store` (arena and names) and its data views
// `b` where the encoding allows: both must outlive the result. Errors start with `context`.
PbValue decode_tensor_pb(Bytes b, Model& store, const std::string& context);
// Decodes what `declared` (the type of the graph input or output the bytes are for) says: a
// TensorProto when it is null, unset or a tensor type, else a SequenceProto or OptionalProto.
// Sequences of non-tensors, maps and sparse tensors are kUnsupported. Errors start with `context`.
PbValue decode_value_pb(Bytes b, const Type* declared, Model& store, const std::string& context);

// A TensorProto (dims packed, data_type, name when not empty, raw_data), or the SequenceProto /
// OptionalProto of `v` (its elements and its content without names).
std::string encode_value_pb(const PbValue& v, std::string_view name);

}  // namespace ofg
