// How the diff writes a node's op, a value's type, an attribute and a tensor as text: the texts
// are compared (equal text = equal thing) and shown.
#pragma once
#include <cstdint>
#include <string>

#include "ir/ir.h"

namespace ofg::diff {

// "Conv", or "com.microsoft:FusedConv" outside the default domain.
std::string op_key(const Model& m, const Node& n);
// "float32[1,3,N,224]" ("?" for an unknown dim; "float32" alone when the rank is unknown; "" when untyped).
std::string type_text(const Model& m, const Type* t);
// "float32[64,3,7,7]".
std::string tensor_head(const Tensor& t);
// 64-bit FNV-1a of a tensor's elements (string elements included), to compare tensors cheaply.
uint64_t tensor_hash(const Tensor& t);
// An attribute's value in full ("[1,1,1,1]", "0.5", "\"nearest\"", "tensor float32[3] #hash",
// "graph[Add,Relu]").
std::string attribute_text(const Model& m, const Attribute& a);
// `s` cut to `max` characters with "..." when longer.
std::string shorten(const std::string& s, size_t max = 60);

}  // namespace ofg::diff
