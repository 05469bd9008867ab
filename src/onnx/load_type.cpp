// TypeProto and ValueInfoProto.
#include "onnx/loader.h"

namespace ofg::load {

Type* Loader::type(Bytes b, int depth) {
  if (depth > kMaxTypeDepth) fail(Status::kLimit, ctx_ + ": types nested deeper than " + std::to_string(kMaxTypeDepth));
  Type* t = a_.make<Type>();
  t->source = b;
  Reader r(b, &ctx_);
  uint32_t f, wt;
  while (r.next(f, wt)) {
    bool member = f == pb::TypeProto::kTensorTypeFieldNumber || f == pb::TypeProto::kSparseTensorTypeFieldNumber ||
                  f == pb::TypeProto::kSequenceTypeFieldNumber || f == pb::TypeProto::kOptionalTypeFieldNumber ||
                  f == pb::TypeProto::kMapTypeFieldNumber;
    // value is a oneof: a second member would be kept raw here and written back before or
    // after the first one by field number, so the saved model could read as another type.
    if (member && wt == kLengthDelimited && t->kind != Type::kUnset)
      invalid("a type holds more than one of tensor_type, sparse_tensor_type, sequence_type, optional_type, map_type");
    if (wt == kLengthDelimited && t->kind == Type::kUnset) {
      if (f == pb::TypeProto::kTensorTypeFieldNumber) { tensor_type(r.length_delimited(), t, Type::kTensor); continue; }
      if (f == pb::TypeProto::kSparseTensorTypeFieldNumber) { tensor_type(r.length_delimited(), t, Type::kSparseTensor); continue; }
      if (f == pb::TypeProto::kSequenceTypeFieldNumber) { wrapped_type(r.length_delimited(), t, Type::kSequence, depth); continue; }
      if (f == pb::TypeProto::kOptionalTypeFieldNumber) { wrapped_type(r.length_delimited(), t, Type::kOptional, depth); continue; }
      if (f == pb::TypeProto::kMapTypeFieldNumber) { map_type(r.length_delimited(), t, depth); continue; }
    }
    if (f == pb::TypeProto::kDenotationFieldNumber && wt == kLengthDelimited) { t->denotation = str(r); continue; }
    keep(t->extra, r, f, wt);
  }
  return t;
}

void Loader::tensor_type(Bytes b, Type* t, Type::Kind kind) {
  t->kind = kind;
  Reader r(b, &ctx_);
  uint32_t f, wt;
  while (r.next(f, wt)) {
    if (f == pb::TypeProto_Tensor::kElemTypeFieldNumber && int_field(r, wt, t->elem_type, t->has_elem_type)) continue;
    if (f == pb::TypeProto_Tensor::kShapeFieldNumber && wt == kLengthDelimited && !t->has_shape) {
      shape(r.length_delimited(), t);
      continue;
    }
    keep(t->inner_extra, r, f, wt);
  }
}

void Loader::shape(Bytes b, Type* t) {
  t->has_shape = true;
  ArenaVec<Dim> dims;
  Reader r(b, &ctx_);
  uint32_t f, wt;
  while (r.next(f, wt)) {
    if (f == pb::TensorShapeProto::kDimFieldNumber && wt == kLengthDelimited) {
      if (dims.size >= kMaxRank) fail(Status::kLimit, ctx_ + ": shape of rank above " + std::to_string(kMaxRank));
      dims.push(a_, dim(r.length_delimited()));
    } else {
      keep(t->shape_extra, r, f, wt);
    }
  }
  t->dims.data = dims.data;
  t->dims.size = dims.size;
}

Dim Loader::dim(Bytes b) {
  Dim d;
  Reader r(b, &ctx_);
  uint32_t f, wt;
  while (r.next(f, wt)) {
    // dim_value and dim_param are a oneof: the last one read wins, as in protobuf.
    if (f == pb::TensorShapeProto_Dimension::kDimValueFieldNumber && int_field(r, wt, d.value, d.has_value)) {
      d.param = kNoStr;
    } else if (f == pb::TensorShapeProto_Dimension::kDimParamFieldNumber && wt == kLengthDelimited) {
      d.param = str(r);
      d.has_value = false;
      d.value = 0;
    } else {
      keep(d.extra, r, f, wt);
    }
  }
  return d;
}

void Loader::wrapped_type(Bytes b, Type* t, Type::Kind kind, int depth) {
  t->kind = kind;
  Reader r(b, &ctx_);
  uint32_t f, wt;
  while (r.next(f, wt)) {
    if (f == pb::TypeProto_Sequence::kElemTypeFieldNumber && wt == kLengthDelimited && !t->elem)
      t->elem = type(r.length_delimited(), depth + 1);
    else
      keep(t->inner_extra, r, f, wt);
  }
}

void Loader::map_type(Bytes b, Type* t, int depth) {
  t->kind = Type::kMap;
  Reader r(b, &ctx_);
  uint32_t f, wt;
  while (r.next(f, wt)) {
    if (f == pb::TypeProto_Map::kKeyTypeFieldNumber && int_field(r, wt, t->key_type, t->has_key_type)) continue;
    if (f == pb::TypeProto_Map::kValueTypeFieldNumber && wt == kLengthDelimited && !t->elem) {
      t->elem = type(r.length_delimited(), depth + 1);
      continue;
    }
    keep(t->inner_extra, r, f, wt);
  }
}

Loader::ParsedValueInfo Loader::value_info(Bytes b) {
  ParsedValueInfo v;
  Reader r(b, &ctx_);
  uint32_t f, wt;
  while (r.next(f, wt)) {
    if (f == pb::ValueInfoProto::kNameFieldNumber && wt == kLengthDelimited) v.name = str(r);
    else if (f == pb::ValueInfoProto::kTypeFieldNumber && wt == kLengthDelimited && !v.type) v.type = type(r.length_delimited(), 0);
    else if (f == pb::ValueInfoProto::kDocStringFieldNumber && wt == kLengthDelimited) v.doc = str(r);
    else keep(v.extra, r, f, wt);
  }
  return v;
}

ValueInfo Loader::make_info(Value* value, ParsedValueInfo& p) {
  ValueInfo vi;
  vi.value = value;
  vi.has_type = p.type != nullptr;
  vi.doc_string = p.doc;
  vi.extra = p.extra;
  if (p.type) {
    if (!value->type) value->type = p.type;
    else if (value->type->source.view() != p.type->source.view()) vi.type = p.type;
  }
  return vi;
}

}  // namespace ofg::load
