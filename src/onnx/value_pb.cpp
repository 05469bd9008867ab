#include "onnx/value_pb.h"

#include "onnx/loader.h"
#include "onnx/wire.h"

namespace ofg {
namespace {

// Field numbers shared by SequenceProto and OptionalProto (onnx-data.proto): both messages number
// their fields alike, repeated in the one and singular in the other.
enum : uint32_t {
  kFieldName = 1,
  kFieldElemType = 2,
  kFieldTensor = 3,
  kFieldSparseTensor = 4,
  kFieldSequence = 5,
  kFieldMap = 6,
  kFieldOptional = 7,
};
// Their DataType enum (TENSOR = 1, SEQUENCE = 3, ...); only the ones used here.
enum : int64_t { kProtoTensor = 1, kProtoSequence = 3 };

PbValue tensor_value(Bytes b, Model& store, const std::string& context) {
  load::TensorReader reader(store, context, nullptr);
  PbValue v;
  v.kind = PbValue::kTensor;
  v.tensor = reader.tensor(b);
  v.name = std::string(store.str(v.tensor->name));
  return v;
}

// The fields SequenceProto and OptionalProto share: name (into v) and elem_type (into
// elem_type). False when `f` is neither.
bool shared_field(wire::Reader& r, uint32_t f, uint32_t wt, PbValue& v, int64_t& elem_type) {
  if (f == kFieldName) {
    r.expect(wt, wire::kLengthDelimited, "name");
    v.name = std::string(r.length_delimited().view());
    return true;
  }
  if (f == kFieldElemType) {
    r.expect(wt, wire::kVarint, "elem_type");
    elem_type = static_cast<int64_t>(r.varint());
    return true;
  }
  return false;
}

PbValue sequence(Bytes b, const Type* declared, Model& store, const std::string& ctx) {
  if (declared && declared->elem && declared->elem->kind != Type::kTensor && declared->elem->kind != Type::kUnset)
    fail(Status::kUnsupported, ctx + ": sequences of sequences, maps or optionals are not supported");
  PbValue v;
  v.kind = PbValue::kSequence;
  if (declared && declared->elem && declared->elem->has_elem_type) v.elem_type = declared->elem->elem_type;
  wire::Reader r(b, &ctx);
  uint32_t f, wt;
  while (r.next(f, wt)) {
    int64_t et = 0;
    if (shared_field(r, f, wt, v, et)) {
      if (et != 0 && et != kProtoTensor)
        fail(Status::kUnsupported, ctx + ": sequences of elements other than tensors are not supported");
    } else if (f == kFieldTensor) {
      r.expect(wt, wire::kLengthDelimited, "tensor_values");
      PbValue e = tensor_value(r.length_delimited(), store, ctx);
      if (v.elem_type == 0) v.elem_type = e.tensor->data_type;
      if (e.tensor->data_type != v.elem_type)
        fail(Status::kInvalidModel, ctx + ": sequence element " + std::to_string(v.elements.size()) + " is " +
                                        dtype_name(e.tensor->data_type) + ", the sequence holds " + dtype_name(v.elem_type));
      v.elements.push_back(std::move(e));
    } else if (f >= kFieldSparseTensor && f <= kFieldOptional) {
      fail(Status::kUnsupported, ctx + ": sequences of elements other than tensors are not supported");
    } else {
      r.skip(wt);  // unknown fields of a newer schema carry nothing we could use
    }
  }
  return v;
}

PbValue optional(Bytes b, const Type* declared, Model& store, const std::string& ctx) {
  const Type* inner_t = declared ? declared->elem : nullptr;
  PbValue v;
  v.kind = PbValue::kOptional;
  wire::Reader r(b, &ctx);
  uint32_t f, wt;
  while (r.next(f, wt)) {
    int64_t et = 0;  // the declared type decides; an empty optional's elem_type says nothing more
    if (shared_field(r, f, wt, v, et)) {
      continue;
    } else if (f == kFieldTensor || f == kFieldSequence) {
      r.expect(wt, wire::kLengthDelimited, f == kFieldTensor ? "tensor_value" : "sequence_value");
      Bytes inner = r.length_delimited();
      bool want_seq = inner_t && inner_t->kind == Type::kSequence;
      bool want_tensor = inner_t && inner_t->kind == Type::kTensor;
      if ((f == kFieldTensor && want_seq) || (f == kFieldSequence && want_tensor))
        fail(Status::kInvalidModel, ctx + ": the optional holds a " + (f == kFieldTensor ? "tensor" : "sequence") +
                                        ", its declared type says " + (want_seq ? "sequence" : "tensor"));
      v.inner = std::make_shared<PbValue>(f == kFieldTensor ? tensor_value(inner, store, ctx)
                                                            : sequence(inner, inner_t, store, ctx));
    } else if (f >= kFieldSparseTensor && f <= kFieldOptional) {
      fail(Status::kUnsupported, ctx + ": optionals of sparse tensors, maps or optionals are not supported");
    } else {
      r.skip(wt);
    }
  }
  return v;
}

void write_tensor(wire::Writer& w, const Tensor& t, std::string_view name) {
  using T = load::pb::TensorProto;
  if (t.dims.size) w.message(T::kDimsFieldNumber, [&] { for (int64_t d : t.dims) w.varint(static_cast<uint64_t>(d)); });
  w.field_int64(T::kDataTypeFieldNumber, t.data_type);
  if (!name.empty()) w.field_string(T::kNameFieldNumber, name);
  w.field_bytes(T::kRawDataFieldNumber, t.bytes());
}

void write_value(wire::Writer& w, const PbValue& v, std::string_view name) {
  if (v.kind == PbValue::kTensor) return write_tensor(w, *v.tensor, name);
  if (!name.empty()) w.field_string(kFieldName, name);
  if (v.kind == PbValue::kSequence) {
    w.field_int64(kFieldElemType, kProtoTensor);
    for (const PbValue& e : v.elements) w.message(kFieldTensor, [&] { write_tensor(w, *e.tensor, {}); });
  } else if (v.inner) {
    bool seq = v.inner->kind == PbValue::kSequence;
    w.field_int64(kFieldElemType, seq ? kProtoSequence : kProtoTensor);
    w.message(seq ? kFieldSequence : kFieldTensor, [&] { write_value(w, *v.inner, {}); });
  }
}

}  // namespace

PbValue decode_tensor_pb(Bytes b, Model& store, const std::string& context) { return tensor_value(b, store, context); }

PbValue decode_value_pb(Bytes b, const Type* declared, Model& store, const std::string& ctx) {
  if (!declared || declared->kind == Type::kUnset || declared->kind == Type::kTensor) return tensor_value(b, store, ctx);
  if (declared->kind == Type::kSequence) return sequence(b, declared, store, ctx);
  if (declared->kind == Type::kOptional) {
    if (declared->elem && declared->elem->kind == Type::kOptional)
      fail(Status::kUnsupported, ctx + ": optionals of optionals are not supported");
    return optional(b, declared, store, ctx);
  }
  fail(Status::kUnsupported, ctx + ": maps and sparse tensors are not supported");
}

std::string encode_value_pb(const PbValue& v, std::string_view name) {
  return wire::encode_to_string([&](wire::Writer& w) { write_value(w, v, name); });
}

}  // namespace ofg
