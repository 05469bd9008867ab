// AttributeProto (subgraphs are loaded through Loader::graph).
#include <cstring>

#include "onnx/loader.h"

namespace ofg::load {

Attribute Loader::attribute(Bytes b, Node* owner, Scope& scope, int depth) {
  Attribute at;
  ArenaVec<float> floats;
  ArenaVec<int64_t> ints;
  ArenaVec<Bytes> strings;
  ArenaVec<Tensor*> tensors;
  ArenaVec<Graph*> graphs;
  Reader r(b, &ctx_);
  uint32_t f, wt;
  while (r.next(f, wt)) {
    switch (f) {
      case pb::AttributeProto::kNameFieldNumber:
        if (str_field(r, wt, at.name)) continue;
        break;
      case pb::AttributeProto::kFFieldNumber: {
        if (wt != kFixed32) break;
        uint32_t bits = r.fixed32();
        std::memcpy(&at.f, &bits, 4);
        at.present |= Attribute::kF;
        continue;
      }
      case pb::AttributeProto::kIFieldNumber:
        if (wt != kVarint) break;
        at.i = static_cast<int64_t>(r.varint());
        at.present |= Attribute::kI;
        continue;
      case pb::AttributeProto::kSFieldNumber:
        if (wt != kLengthDelimited) break;
        at.s = r.length_delimited();
        at.present |= Attribute::kS;
        continue;
      case pb::AttributeProto::kTFieldNumber:
        if (wt != kLengthDelimited || at.t) break;
        at.t = tensor(r.length_delimited());
        at.present |= Attribute::kT;
        continue;
      case pb::AttributeProto::kGFieldNumber:
        if (wt != kLengthDelimited || at.g) break;
        at.g = graph(r.length_delimited(), &scope, owner, depth + 1);
        at.present |= Attribute::kG;
        continue;
      case pb::AttributeProto::kFloatsFieldNumber:
        if (wt == kFixed32) {
          uint32_t bits = r.fixed32();
          float v;
          std::memcpy(&v, &bits, 4);
          floats.push(a_, v);
        } else if (wt == kLengthDelimited) {
          Reader pr(r.length_delimited(), &ctx_);
          while (!pr.done()) {
            uint32_t bits = pr.fixed32();
            float v;
            std::memcpy(&v, &bits, 4);
            floats.push(a_, v);
          }
        } else {
          break;
        }
        continue;
      case pb::AttributeProto::kIntsFieldNumber:
        if (!r.repeated_varint(wt, [&](uint64_t v) { ints.push(a_, static_cast<int64_t>(v)); })) break;
        continue;
      case pb::AttributeProto::kStringsFieldNumber:
        if (wt != kLengthDelimited) break;
        strings.push(a_, r.length_delimited());
        continue;
      case pb::AttributeProto::kTensorsFieldNumber:
        if (wt != kLengthDelimited) break;
        tensors.push(a_, tensor(r.length_delimited()));
        continue;
      case pb::AttributeProto::kGraphsFieldNumber:
        if (wt != kLengthDelimited) break;
        graphs.push(a_, graph(r.length_delimited(), &scope, owner, depth + 1));
        continue;
      case pb::AttributeProto::kDocStringFieldNumber:
        if (str_field(r, wt, at.doc_string)) continue;
        break;
      case pb::AttributeProto::kTypeFieldNumber:
        if (int_field(r, wt, at.type, at.has_type)) continue;
        break;
      case pb::AttributeProto::kRefAttrNameFieldNumber:
        if (str_field(r, wt, at.ref_attr_name)) continue;
        break;
      default:
        break;
    }
    keep(at.extra, r, f, wt);
  }
  if (at.name == kNoStr || m_.str(at.name).empty())
    invalid("node '" + name_of(owner->name) + "' (" + name_of(owner->op_type) + ") has an attribute without a name");
  at.floats = {floats.data, floats.size};
  at.ints = {ints.data, ints.size};
  at.strings = {strings.data, strings.size};
  at.tensors = {tensors.data, tensors.size};
  at.graphs = {graphs.data, graphs.size};
  return at;
}

}  // namespace ofg::load
