#include "ir/ir.h"

#include <cstring>

namespace ofg {

size_t dtype_size(int32_t dtype) {
  switch (dtype) {
    case kFloat: case kInt32: case kUint32: return 4;
    case kUint8: case kInt8: case kBool: return 1;
    case kUint16: case kInt16: case kFloat16: case kBfloat16: return 2;
    case kInt64: case kDouble: case kUint64: case kComplex64: return 8;
    case kComplex128: return 16;
    case kFloat8E4M3FN: case kFloat8E4M3FNUZ: case kFloat8E5M2: case kFloat8E5M2FNUZ:
    case kFloat8E8M0: return 1;
    default: return 0;
  }
}

size_t dtype_bits(int32_t dtype) {
  switch (dtype) {
    case kUint4: case kInt4: case kFloat4E2M1: return 4;
    case kUint2: case kInt2: return 2;
    default: return dtype_size(dtype) * 8;
  }
}

const char* dtype_name(int32_t dtype) {
  static const char* const names[] = {"undefined", "float32", "uint8", "int8", "uint16", "int16",
    "int32", "int64", "string", "bool", "float16", "float64", "uint32", "uint64", "complex64",
    "complex128", "bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz",
    "uint4", "int4", "float4e2m1", "float8e8m0", "uint2", "int2"};
  if (dtype < 0 || dtype >= static_cast<int32_t>(sizeof(names) / sizeof(names[0]))) return "unknown";
  return names[dtype];
}

int64_t Type::static_numel() const {
  if (!shape_known()) return -1;
  int64_t n = 1;
  for (const Dim& d : dims) {
    if (!d.has_value || d.value < 0) return -1;
    if (d.value != 0 && n > INT64_MAX / d.value) return -1;
    n *= d.value;
  }
  return n;
}

int64_t Tensor::numel() const {
  // An empty tensor's other dims may be anything (the loader checks the product of a non-empty
  // tensor's dims only).
  for (int64_t d : dims)
    if (d == 0) return 0;
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

Bytes Tensor::materialize() const {
  const TensorRecipe* r = recipe;
  uint8_t* p = static_cast<uint8_t*>(r->arena()->allocate(data.size ? data.size : 1, 64));
  r->fill(0, data.size, p);
  data = Bytes{p, data.size};
  recipe = nullptr;
  r->release_sources();
  return data;
}

void Tensor::read(size_t offset, size_t size, uint8_t* dst) const {
  if (recipe) recipe->fill(offset, size, dst);
  else if (size) std::memcpy(dst, data.data + offset, size);
}

const Attribute* Node::attribute(StrId attr_name) const {
  for (const Attribute& a : attributes)
    if (a.name == attr_name) return &a;
  return nullptr;
}

Attribute* Node::attribute(StrId attr_name) {
  for (Attribute& a : attributes)
    if (a.name == attr_name) return &a;
  return nullptr;
}

const Attribute* Node::attribute(const Model& m, std::string_view attr_name) const {
  for (const Attribute& a : attributes)
    if (m.str(a.name) == attr_name) return &a;
  return nullptr;
}

Model::Model() = default;

void release_loaded_bytes(const Model& m, Bytes b) {
  if (!b.data || b.size == 0) return;
  for (const auto& backing : m.backings)
    if (backing->release_pages(b)) return;
}

int64_t Model::opset_version(std::string_view domain_name) const {
  bool want_default = domain_name.empty() || domain_name == "ai.onnx";
  for (const OpsetId& o : opsets) {
    std::string_view d = strings.view(o.domain);
    bool is_default = d.empty() || d == "ai.onnx";
    if ((want_default && is_default) || (!want_default && d == domain_name)) return o.version;
  }
  return 0;
}

bool is_default_domain(const Model& m, StrId domain) {
  std::string_view d = m.strings.view(domain);
  return d.empty() || d == "ai.onnx";
}

}  // namespace ofg
