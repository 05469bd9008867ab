// ONNX bytes -> IR. The wire format is walked directly so that tensor bytes stay where they are
// (in the mapping or the caller's buffer); field numbers come from the generated lite schema.
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <unordered_map>
#include <unordered_set>

#include "ir/error.h"
#include "ir/int128.h"
#include "ir/graph_ops.h"
#include "ofg_onnx_fields.h"
#include "onnx/external_data.h"
#include "onnx/mapped_file.h"
#include "onnx/serialize.h"
#include "onnx/wire.h"

namespace ofg {
namespace {

namespace pb = ofg_onnx_fields;
using wire::Reader;
using wire::kFixed32;
using wire::kFixed64;
using wire::kLengthDelimited;
using wire::kVarint;

constexpr int kMaxGraphDepth = 64;
constexpr int kMaxTypeDepth = 32;
constexpr uint32_t kMaxRank = 64;

struct Scope {
  Scope* parent = nullptr;
  Graph* graph = nullptr;
  // Values by name. Ids are dense and the main graph defines most of a model's names, so its
  // table is a vector indexed by id (no hashing or node allocation per value); a subgraph
  // defines a few names whose ids lie anywhere, so it keeps a map.
  bool dense = false;
  std::vector<Value*> by_id;
  std::unordered_map<StrId, Value*> values;
  std::unordered_set<Value*> captured;

  Value* get(StrId id) const {
    if (dense) return id < by_id.size() ? by_id[id] : nullptr;
    auto it = values.find(id);
    return it == values.end() ? nullptr : it->second;
  }
  // False when the name is already defined in this scope.
  bool put(StrId id, Value* v) {
    if (!dense) return values.emplace(id, v).second;
    if (id >= by_id.size()) by_id.resize(std::max<size_t>(id + 1, by_id.size() * 2), nullptr);
    if (by_id[id]) return false;
    by_id[id] = v;
    return true;
  }
};

// A node between the two phases of graph loading: outputs are defined first (so order problems
// can be detected rather than misread), inputs and attributes are resolved second.
struct PendingNode {
  Node* node;
  std::vector<StrId> input_names;
  std::vector<Bytes> attributes;
};

class Loader {
 public:
  Loader(Model& m, std::string context, ExternalData* external)
      : m_(m), a_(m.arena), ctx_(std::move(context)), external_(external) {}

  void model(Bytes bytes) {
    Reader r(bytes, &ctx_);
    Bytes graph_bytes;
    bool has_graph = false;
    std::vector<Bytes> functions;
    while (!r.done()) {
      uint32_t f, wt;
      r.next_field(f, wt);
      switch (f) {
        case pb::ModelProto::kIrVersionFieldNumber:
          if (wt != kVarint) break;
          m_.ir_version = static_cast<int64_t>(r.varint());
          m_.has_ir_version = true;
          continue;
        case pb::ModelProto::kProducerNameFieldNumber:
          if (wt != kLengthDelimited) break;
          m_.producer_name = str(r);
          continue;
        case pb::ModelProto::kProducerVersionFieldNumber:
          if (wt != kLengthDelimited) break;
          m_.producer_version = str(r);
          continue;
        case pb::ModelProto::kDomainFieldNumber:
          if (wt != kLengthDelimited) break;
          m_.domain = str(r);
          continue;
        case pb::ModelProto::kModelVersionFieldNumber:
          if (wt != kVarint) break;
          m_.model_version = static_cast<int64_t>(r.varint());
          m_.has_model_version = true;
          continue;
        case pb::ModelProto::kDocStringFieldNumber:
          if (wt != kLengthDelimited) break;
          m_.doc_string = str(r);
          continue;
        case pb::ModelProto::kGraphFieldNumber:
          if (wt != kLengthDelimited) break;
          if (has_graph) fail(Status::kInvalidModel, ctx_ + ": the model has more than one graph field");
          graph_bytes = r.length_delimited();
          has_graph = true;
          continue;
        case pb::ModelProto::kOpsetImportFieldNumber:
          if (wt != kLengthDelimited) break;
          m_.opsets.push(a_, opset(r.length_delimited()));
          continue;
        case pb::ModelProto::kMetadataPropsFieldNumber:
          if (wt != kLengthDelimited) break;
          m_.metadata.push(a_, string_pair(r.length_delimited()));
          continue;
        case pb::ModelProto::kFunctionsFieldNumber:
          if (wt != kLengthDelimited) break;
          functions.push_back(r.length_delimited());
          continue;
        default:
          break;
      }
      keep(m_.extra, r, f, wt);
    }
    if (!has_graph) fail(Status::kInvalidModel, ctx_ + ": the model has no graph");
    m_.graph = graph(graph_bytes, nullptr, nullptr, 0);
    for (Bytes fb : functions) m_.functions.push(a_, function(fb));
  }

 private:
  // ---------------------------------------------------------------- small helpers
  StrId str(Reader& r) { return m_.intern(r.length_delimited().view()); }
  void keep(Extras& extras, Reader& r, uint32_t field, uint32_t wt) {
    r.skip(wt);
    extras.push(a_, r.raw_field(field));
  }
  std::string name_of(StrId id) const { return std::string(m_.str(id)); }
  [[noreturn]] void invalid(const std::string& what) const { fail(Status::kInvalidModel, ctx_ + ": " + what); }

  OpsetId opset(Bytes b) {
    OpsetId o;
    Reader r(b, &ctx_);
    while (!r.done()) {
      uint32_t f, wt;
      r.next_field(f, wt);
      if (f == pb::OperatorSetIdProto::kDomainFieldNumber && wt == kLengthDelimited) {
        o.domain = str(r);
      } else if (f == pb::OperatorSetIdProto::kVersionFieldNumber && wt == kVarint) {
        o.version = static_cast<int64_t>(r.varint());
        o.has_version = true;
      } else {
        keep(o.extra, r, f, wt);
      }
    }
    return o;
  }

  StringPair string_pair(Bytes b) {
    StringPair p;
    Reader r(b, &ctx_);
    while (!r.done()) {
      uint32_t f, wt;
      r.next_field(f, wt);
      if (f == pb::StringStringEntryProto::kKeyFieldNumber && wt == kLengthDelimited) p.key = str(r);
      else if (f == pb::StringStringEntryProto::kValueFieldNumber && wt == kLengthDelimited) p.value = str(r);
      else keep(p.extra, r, f, wt);
    }
    return p;
  }

  // ---------------------------------------------------------------- types
  Type* type(Bytes b, int depth) {
    if (depth > kMaxTypeDepth) fail(Status::kLimit, ctx_ + ": types nested deeper than " + std::to_string(kMaxTypeDepth));
    Type* t = a_.make<Type>();
    t->source = b;
    Reader r(b, &ctx_);
    while (!r.done()) {
      uint32_t f, wt;
      r.next_field(f, wt);
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

  void tensor_type(Bytes b, Type* t, Type::Kind kind) {
    t->kind = kind;
    Reader r(b, &ctx_);
    while (!r.done()) {
      uint32_t f, wt;
      r.next_field(f, wt);
      if (f == pb::TypeProto_Tensor::kElemTypeFieldNumber && wt == kVarint) {
        t->elem_type = static_cast<int32_t>(r.varint());
        t->has_elem_type = true;
      } else if (f == pb::TypeProto_Tensor::kShapeFieldNumber && wt == kLengthDelimited && !t->has_shape) {
        shape(r.length_delimited(), t);
      } else {
        keep(t->inner_extra, r, f, wt);
      }
    }
  }

  void shape(Bytes b, Type* t) {
    t->has_shape = true;
    ArenaVec<Dim> dims;
    Reader r(b, &ctx_);
    while (!r.done()) {
      uint32_t f, wt;
      r.next_field(f, wt);
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

  Dim dim(Bytes b) {
    Dim d;
    Reader r(b, &ctx_);
    while (!r.done()) {
      uint32_t f, wt;
      r.next_field(f, wt);
      // dim_value and dim_param are a oneof: the last one read wins, as in protobuf.
      if (f == pb::TensorShapeProto_Dimension::kDimValueFieldNumber && wt == kVarint) {
        d.value = static_cast<int64_t>(r.varint());
        d.has_value = true;
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

  void wrapped_type(Bytes b, Type* t, Type::Kind kind, int depth) {
    t->kind = kind;
    Reader r(b, &ctx_);
    while (!r.done()) {
      uint32_t f, wt;
      r.next_field(f, wt);
      if (f == pb::TypeProto_Sequence::kElemTypeFieldNumber && wt == kLengthDelimited && !t->elem)
        t->elem = type(r.length_delimited(), depth + 1);
      else
        keep(t->inner_extra, r, f, wt);
    }
  }

  void map_type(Bytes b, Type* t, int depth) {
    t->kind = Type::kMap;
    Reader r(b, &ctx_);
    while (!r.done()) {
      uint32_t f, wt;
      r.next_field(f, wt);
      if (f == pb::TypeProto_Map::kKeyTypeFieldNumber && wt == kVarint) {
        t->key_type = static_cast<int32_t>(r.varint());
        t->has_key_type = true;
      } else if (f == pb::TypeProto_Map::kValueTypeFieldNumber && wt == kLengthDelimited && !t->elem) {
        t->elem = type(r.length_delimited(), depth + 1);
      } else {
        keep(t->inner_extra, r, f, wt);
      }
    }
  }

  struct ParsedValueInfo {
    StrId name = kNoStr;
    Type* type = nullptr;
    StrId doc = kNoStr;
    Extras extra;
  };

  ParsedValueInfo value_info(Bytes b) {
    ParsedValueInfo v;
    Reader r(b, &ctx_);
    while (!r.done()) {
      uint32_t f, wt;
      r.next_field(f, wt);
      if (f == pb::ValueInfoProto::kNameFieldNumber && wt == kLengthDelimited) v.name = str(r);
      else if (f == pb::ValueInfoProto::kTypeFieldNumber && wt == kLengthDelimited && !v.type) v.type = type(r.length_delimited(), 0);
      else if (f == pb::ValueInfoProto::kDocStringFieldNumber && wt == kLengthDelimited) v.doc = str(r);
      else keep(v.extra, r, f, wt);
    }
    return v;
  }

  ValueInfo make_info(Value* value, ParsedValueInfo& p) {
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

  // ---------------------------------------------------------------- tensors
  Tensor* tensor(Bytes b) {
    Tensor* t = a_.make<Tensor>();
    t->source = b;
    Reader r(b, &ctx_);
    ArenaVec<int64_t> dims;
    bool has_raw = false, external = false;
    std::vector<Bytes> packed_fixed;     // float_data / double_data chunks (little-endian already)
    std::vector<uint64_t> varints;       // int32_data / int64_data / uint64_data values
    size_t fixed_elem = 0;               // 4 for float_data, 8 for double_data
    int typed_fields = 0;                // how many distinct typed fields appear
    uint32_t typed_field = 0;
    ArenaVec<Bytes> strings;
    auto note_typed = [&](uint32_t f) {
      if (typed_field != f) {
        ++typed_fields;
        typed_field = f;
      }
    };
    while (!r.done()) {
      uint32_t f, wt;
      r.next_field(f, wt);
      switch (f) {
        case pb::TensorProto::kDimsFieldNumber:
          if (wt == kVarint) {
            dims.push(a_, static_cast<int64_t>(r.varint()));
          } else if (wt == kLengthDelimited) {
            Reader pr(r.length_delimited(), &ctx_);
            while (!pr.done()) dims.push(a_, static_cast<int64_t>(pr.varint()));
          } else {
            break;
          }
          if (dims.size > kMaxRank) fail(Status::kLimit, ctx_ + ": tensor of rank above " + std::to_string(kMaxRank));
          continue;
        case pb::TensorProto::kDataTypeFieldNumber:
          if (wt != kVarint) break;
          t->data_type = static_cast<int32_t>(r.varint());
          t->has_data_type = true;
          continue;
        case pb::TensorProto::kNameFieldNumber:
          if (wt != kLengthDelimited) break;
          t->name = str(r);
          continue;
        case pb::TensorProto::kDocStringFieldNumber:
          if (wt != kLengthDelimited) break;
          t->doc_string = str(r);
          continue;
        case pb::TensorProto::kRawDataFieldNumber:
          if (wt != kLengthDelimited) break;
          t->data = r.length_delimited();
          has_raw = true;
          continue;
        case pb::TensorProto::kFloatDataFieldNumber:
        case pb::TensorProto::kDoubleDataFieldNumber: {
          size_t width = f == pb::TensorProto::kFloatDataFieldNumber ? 4 : 8;
          if (wt == kLengthDelimited) {
            Bytes chunk = r.length_delimited();
            if (chunk.size % width) invalid("tensor '" + name_of(t->name) + "': packed data length is not a multiple of " + std::to_string(width));
            packed_fixed.push_back(chunk);
          } else if ((width == 4 && wt == kFixed32) || (width == 8 && wt == kFixed64)) {
            const uint8_t* start = r.position();
            width == 4 ? (void)r.fixed32() : (void)r.fixed64();
            packed_fixed.push_back(Bytes{start, width});
          } else {
            break;
          }
          fixed_elem = width;
          note_typed(f);
          continue;
        }
        case pb::TensorProto::kInt32DataFieldNumber:
        case pb::TensorProto::kInt64DataFieldNumber:
        case pb::TensorProto::kUint64DataFieldNumber:
          if (wt == kLengthDelimited) {
            Reader pr(r.length_delimited(), &ctx_);
            while (!pr.done()) varints.push_back(pr.varint());
          } else if (wt == kVarint) {
            varints.push_back(r.varint());
          } else {
            break;
          }
          note_typed(f);
          continue;
        case pb::TensorProto::kStringDataFieldNumber:
          if (wt != kLengthDelimited) break;
          strings.push(a_, r.length_delimited());
          note_typed(f);
          continue;
        case pb::TensorProto::kDataLocationFieldNumber:
          if (wt != kVarint) break;
          external = r.varint() == pb::TensorProto_DataLocation_EXTERNAL;
          t->extra.push(a_, r.raw_field(f));  // kept as written; the storage kind is modelled too
          continue;
        default:
          break;
      }
      keep(t->extra, r, f, wt);
    }
    t->dims.data = dims.data;
    t->dims.size = dims.size;
    t->strings.data = strings.data;
    t->strings.size = strings.size;

    const std::string where = "tensor '" + name_of(t->name) + "'";
    int64_t numel = 1;
    for (int64_t d : dims) {
      if (d < 0) invalid(where + " has a negative dimension " + std::to_string(d));
      if (d != 0 && numel > INT64_MAX / d) invalid(where + ": the product of its dimensions overflows");
      numel *= d;
    }
    if (!t->has_data_type || t->data_type == kUndefined) invalid(where + " has no data type");
    size_t bits = dtype_bits(t->data_type);
    if (bits == 0 && t->data_type != kString) invalid(where + " has unknown data type " + std::to_string(t->data_type));
    if (typed_fields > 1 || (typed_fields && has_raw) || (external && (has_raw || typed_fields)))
      invalid(where + " stores its data in more than one field");

    // Bytes the data must have, checked against the bytes present before anything is made.
    uint128 want_bits = static_cast<uint128>(numel) * bits;
    if (want_bits > (static_cast<uint128>(1) << 62)) invalid(where + " is larger than any file can hold");
    size_t want = static_cast<size_t>((want_bits + 7) / 8);

    if (t->data_type == kString) {
      if (numel != static_cast<int64_t>(strings.size))
        invalid(where + " has " + std::to_string(strings.size) + " strings for " + std::to_string(numel) + " elements");
      t->storage = Tensor::kTyped;
    } else if (external) {
      t->storage = Tensor::kExternal;
      if (!external_) invalid(where + " uses external data, but the model was loaded from memory without an external-data folder");
      t->data = external_->resolve(*t, m_, want, where);
    } else if (has_raw) {
      t->storage = Tensor::kRaw;
      if (t->data.size != want)
        invalid(where + ": raw_data has " + std::to_string(t->data.size) + " bytes, its type and dims need " + std::to_string(want));
    } else if (typed_fields) {
      t->storage = Tensor::kTyped;
      decode_typed(t, where, want, packed_fixed, fixed_elem, varints, typed_field);
    } else {
      t->storage = Tensor::kTyped;
      if (numel != 0) invalid(where + " has " + std::to_string(numel) + " elements but no data");
    }
    return t;
  }

  void decode_typed(Tensor* t, const std::string& where, size_t want, const std::vector<Bytes>& fixed,
                    size_t fixed_elem, const std::vector<uint64_t>& varints, uint32_t field) {
    if (fixed_elem) {
      size_t total = 0;
      for (Bytes c : fixed) total += c.size;
      if (total != want) invalid(where + ": typed data has " + std::to_string(total) + " bytes, its type and dims need " + std::to_string(want));
      if (fixed.size() == 1) {
        t->data = fixed[0];
        return;
      }
      uint8_t* out = static_cast<uint8_t*>(a_.allocate(total ? total : 1, 64));
      size_t at = 0;
      for (Bytes c : fixed) {
        std::memcpy(out + at, c.data, c.size);
        at += c.size;
      }
      t->data = Bytes{out, total};
      return;
    }
    // Varint fields: each value holds one element (int32_data packs sub-byte types per byte).
    size_t bits = dtype_bits(t->data_type);
    size_t width = bits >= 8 ? bits / 8 : 1;
    if (field == pb::TensorProto::kInt32DataFieldNumber && bits == 64) width = 8;
    if (varints.size() * width != want && !(bits < 8 && varints.size() == want))
      invalid(where + ": typed data has " + std::to_string(varints.size()) + " values, its type and dims need " +
              std::to_string(bits < 8 ? want : want / width));
    uint8_t* out = static_cast<uint8_t*>(a_.allocate(want ? want : 1, 64));
    for (size_t i = 0; i < varints.size(); ++i) {
      uint64_t v = varints[i];
      // Little-endian truncation to the element width; elements wider than a varint (128-bit
      // types) get its 8 bytes and zeros.
      std::memcpy(out + i * width, &v, std::min<size_t>(width, 8));
      if (width > 8) std::memset(out + i * width + 8, 0, width - 8);
    }
    t->data = Bytes{out, want};
  }

  // ---------------------------------------------------------------- graphs and nodes
  Value* lookup(Scope* scope, StrId name) {
    for (Scope* s = scope; s; s = s->parent) {
      Value* v = s->get(name);
      if (!v) continue;
      // Record the capture in every graph between the use and the definition.
      for (Scope* c = scope; c != s; c = c->parent)
        if (c->captured.insert(v).second) c->graph->captures.push(a_, v);
      return v;
    }
    return nullptr;
  }

  void define(Scope& scope, Value* v, const char* what) {
    if (!scope.put(v->name, v))
      invalid("graph '" + name_of(scope.graph->name) + "': " + what + " '" + name_of(v->name) +
              "' reuses a name already defined in this graph");
  }

  Graph* graph(Bytes b, Scope* parent_scope, Node* owner, int depth) {
    if (depth > kMaxGraphDepth) fail(Status::kLimit, ctx_ + ": subgraphs nested deeper than " + std::to_string(kMaxGraphDepth));
    Graph* g = a_.make<Graph>();
    g->model = &m_;
    g->parent = parent_scope ? parent_scope->graph : nullptr;
    g->owner = owner;
    std::vector<Bytes> nodes, inits, inputs, outputs, infos;
    Reader r(b, &ctx_);
    while (!r.done()) {
      uint32_t f, wt;
      r.next_field(f, wt);
      if (wt == kLengthDelimited) {
        switch (f) {
          case pb::GraphProto::kNodeFieldNumber: nodes.push_back(r.length_delimited()); continue;
          case pb::GraphProto::kNameFieldNumber: g->name = str(r); continue;
          case pb::GraphProto::kInitializerFieldNumber: inits.push_back(r.length_delimited()); continue;
          case pb::GraphProto::kDocStringFieldNumber: g->doc_string = str(r); continue;
          case pb::GraphProto::kInputFieldNumber: inputs.push_back(r.length_delimited()); continue;
          case pb::GraphProto::kOutputFieldNumber: outputs.push_back(r.length_delimited()); continue;
          case pb::GraphProto::kValueInfoFieldNumber: infos.push_back(r.length_delimited()); continue;
          default: break;
        }
      }
      keep(g->extra, r, f, wt);
    }
    const std::string gname = "graph '" + name_of(g->name) + "'";
    Scope scope;
    scope.parent = parent_scope;
    scope.graph = g;
    scope.dense = parent_scope == nullptr;

    for (Bytes ib : inputs) {
      ParsedValueInfo p = value_info(ib);
      if (p.name == kNoStr || m_.str(p.name).empty()) invalid(gname + " has an input without a name");
      Value* v = new_value(g, p.name);
      v->is_graph_input = true;
      define(scope, v, "input");
      g->inputs.push(a_, make_info(v, p));
    }
    for (Bytes tb : inits) {
      Tensor* t = tensor(tb);
      if (t->name == kNoStr || m_.str(t->name).empty()) invalid(gname + " has an initializer without a name");
      // An input of that name without a value yet takes it as its default (IR < 4 style).
      Value* v = scope.get(t->name);
      if (!v || !v->is_graph_input || v->initializer) {
        v = new_value(g, t->name);
        define(scope, v, "initializer");
      }
      v->initializer = t;
      g->initializers.push(a_, v);
    }

    std::vector<PendingNode> pending;
    pending.reserve(nodes.size());
    for (Bytes nb : nodes) pending.push_back(node_fields(nb, g, scope));
    for (PendingNode& p : pending) resolve_node(p, scope, depth);

    for (Bytes ob : outputs) {
      ParsedValueInfo p = value_info(ob);
      Value* v = p.name == kNoStr ? nullptr : lookup(&scope, p.name);
      if (!v) invalid(gname + ": output '" + name_of(p.name) + "' is not produced by any node, input or initializer");
      ++v->graph_output_count;
      g->outputs.push(a_, make_info(v, p));
    }
    for (Bytes vb : infos) {
      ParsedValueInfo p = value_info(vb);
      Value* v = p.name == kNoStr ? nullptr : lookup(&scope, p.name);
      if (!v) v = new_value(g, p.name == kNoStr ? m_.intern("") : p.name);  // describes nothing; kept as written
      g->value_infos.push(a_, make_info(v, p));
    }
    check_order(g, gname);
    return g;
  }

  PendingNode node_fields(Bytes b, Graph* g, Scope& scope) {
    Node* n = a_.make<Node>();
    n->graph = g;
    PendingNode p{n, {}, {}};
    std::vector<StrId> outputs;
    Reader r(b, &ctx_);
    while (!r.done()) {
      uint32_t f, wt;
      r.next_field(f, wt);
      if (wt == kLengthDelimited) {
        switch (f) {
          case pb::NodeProto::kInputFieldNumber: p.input_names.push_back(str(r)); continue;
          case pb::NodeProto::kOutputFieldNumber: outputs.push_back(str(r)); continue;
          case pb::NodeProto::kNameFieldNumber: n->name = str(r); continue;
          case pb::NodeProto::kOpTypeFieldNumber: n->op_type = str(r); continue;
          case pb::NodeProto::kAttributeFieldNumber: p.attributes.push_back(r.length_delimited()); continue;
          case pb::NodeProto::kDocStringFieldNumber: n->doc_string = str(r); continue;
          case pb::NodeProto::kDomainFieldNumber: n->domain = str(r); continue;
          default: break;
        }
      }
      keep(n->extra, r, f, wt);
    }
    if (n->op_type == kNoStr || m_.str(n->op_type).empty())
      invalid("node '" + name_of(n->name) + "' in graph '" + name_of(g->name) + "' has no op_type");
    n->inputs.data = a_.make_array<Value*>(p.input_names.size());
    n->inputs.size = static_cast<uint32_t>(p.input_names.size());
    n->outputs.data = a_.make_array<Value*>(outputs.size());
    n->outputs.size = static_cast<uint32_t>(outputs.size());
    for (uint32_t i = 0; i < outputs.size(); ++i) {
      if (m_.str(outputs[i]).empty()) continue;  // omitted optional output
      Value* v = new_value(g, outputs[i]);
      set_output(n, i, v);
      define(scope, v, ("output of node '" + name_of(n->name) + "' (" + name_of(n->op_type) + ")").c_str());
    }
    append_node(g, n);
    return p;
  }

  void resolve_node(PendingNode& p, Scope& scope, int depth) {
    Node* n = p.node;
    for (uint32_t i = 0; i < p.input_names.size(); ++i) {
      StrId name = p.input_names[i];
      if (m_.str(name).empty()) continue;  // omitted optional input
      Value* v = lookup(&scope, name);
      if (!v)
        invalid("node '" + name_of(n->name) + "' (" + name_of(n->op_type) + ") in graph '" + name_of(n->graph->name) +
                "': input '" + name_of(name) + "' is not defined by any node, input or initializer");
      n->inputs[i] = v;
      add_use(v, n, i);
    }
    for (Bytes ab : p.attributes) n->attributes.push(a_, attribute(ab, n, scope, depth));
  }

  // Nodes must come after the producers of what they read (including what their subgraphs
  // capture). A graph that is merely out of order is put in order; a cycle is an error.
  void check_order(Graph* g, const std::string& gname) {
    uint32_t index = 1;
    for (Node* n = g->first; n; n = n->next) n->mark = index++;
    bool ordered = true;
    auto before = [&](Value* v, Node* n) {
      if (v && v->producer && v->producer->graph == g && v->producer->mark >= n->mark) ordered = false;
    };
    for (Node* n = g->first; n && ordered; n = n->next) {
      for (Value* v : n->inputs) before(v, n);
      for (Attribute& a : n->attributes) {
        auto captures = [&](Graph* sub) { for_each_graph(sub, [&](Graph* s) { for (Value* v : s->captures) before(v, n); }); };
        if (a.g) captures(a.g);
        for (Graph* s : a.graphs) captures(s);
      }
    }
    if (!ordered && !topological_sort(g)) invalid(gname + " has a cycle: its nodes cannot be put in an order where every input is computed first");
  }

  Attribute attribute(Bytes b, Node* owner, Scope& scope, int depth) {
    Attribute at;
    ArenaVec<float> floats;
    ArenaVec<int64_t> ints;
    ArenaVec<Bytes> strings;
    ArenaVec<Tensor*> tensors;
    ArenaVec<Graph*> graphs;
    Reader r(b, &ctx_);
    while (!r.done()) {
      uint32_t f, wt;
      r.next_field(f, wt);
      switch (f) {
        case pb::AttributeProto::kNameFieldNumber:
          if (wt != kLengthDelimited) break;
          at.name = str(r);
          continue;
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
          if (wt == kVarint) {
            ints.push(a_, static_cast<int64_t>(r.varint()));
          } else if (wt == kLengthDelimited) {
            Reader pr(r.length_delimited(), &ctx_);
            while (!pr.done()) ints.push(a_, static_cast<int64_t>(pr.varint()));
          } else {
            break;
          }
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
          if (wt != kLengthDelimited) break;
          at.doc_string = str(r);
          continue;
        case pb::AttributeProto::kTypeFieldNumber:
          if (wt != kVarint) break;
          at.type = static_cast<int32_t>(r.varint());
          at.has_type = true;
          continue;
        case pb::AttributeProto::kRefAttrNameFieldNumber:
          if (wt != kLengthDelimited) break;
          at.ref_attr_name = str(r);
          continue;
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

  Function* function(Bytes b) {
    Function* fn = a_.make<Function>();
    Graph* body = a_.make<Graph>();
    body->model = &m_;
    fn->body = body;
    std::vector<StrId> inputs, outputs;
    std::vector<Bytes> nodes;
    Reader r(b, &ctx_);
    while (!r.done()) {
      uint32_t f, wt;
      r.next_field(f, wt);
      if (wt == kLengthDelimited) {
        switch (f) {
          case pb::FunctionProto::kNameFieldNumber: fn->name = str(r); continue;
          case pb::FunctionProto::kInputFieldNumber: inputs.push_back(str(r)); continue;
          case pb::FunctionProto::kOutputFieldNumber: outputs.push_back(str(r)); continue;
          case pb::FunctionProto::kAttributeFieldNumber: fn->attribute_names.push(a_, str(r)); continue;
          case pb::FunctionProto::kNodeFieldNumber: nodes.push_back(r.length_delimited()); continue;
          case pb::FunctionProto::kDocStringFieldNumber: fn->doc_string = str(r); continue;
          case pb::FunctionProto::kOpsetImportFieldNumber: fn->opsets.push(a_, opset(r.length_delimited())); continue;
          case pb::FunctionProto::kDomainFieldNumber: fn->domain = str(r); continue;
          default: break;
        }
      }
      keep(fn->extra, r, f, wt);
    }
    body->name = fn->name;
    const std::string where = "function '" + name_of(fn->name) + "'";
    Scope scope;
    scope.graph = body;
    for (StrId in : inputs) {
      Value* v = new_value(body, in);
      v->is_graph_input = true;
      define(scope, v, "input");
      ValueInfo vi;
      vi.value = v;
      vi.has_type = false;
      body->inputs.push(a_, vi);
    }
    std::vector<PendingNode> pending;
    for (Bytes nb : nodes) pending.push_back(node_fields(nb, body, scope));
    for (PendingNode& p : pending) resolve_node(p, scope, 1);
    for (StrId out : outputs) {
      Value* v = lookup(&scope, out);
      if (!v) invalid(where + ": output '" + name_of(out) + "' is not produced by any node or input");
      ++v->graph_output_count;
      ValueInfo vi;
      vi.value = v;
      vi.has_type = false;
      body->outputs.push(a_, vi);
    }
    check_order(body, where);
    return fn;
  }

  Model& m_;
  Arena& a_;
  std::string ctx_;
  ExternalData* external_;
};

std::unique_ptr<Model> parse(Bytes bytes, std::shared_ptr<Backing> backing, const std::string& context,
                             const std::string& external_dir) {
  if (bytes.size == 0) fail(Status::kParse, context + ": the model is empty (0 bytes)");
  auto m = std::make_unique<Model>();
  m->backings.push_back(std::move(backing));
  std::unique_ptr<ExternalData> external;
  if (!external_dir.empty()) external = std::make_unique<ExternalData>(external_dir);
  Loader loader(*m, context, external.get());
  loader.model(bytes);
  return m;
}

std::string folder_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

std::unique_ptr<Model> load_model_file(const std::string& path, const LoadOptions& options) {
  std::shared_ptr<MappedFile> file = MappedFile::open(path);
  Bytes bytes = file->bytes();
  std::string dir = options.external_data_dir.empty() ? folder_of(path) : options.external_data_dir;
  auto m = parse(bytes, file, path, dir);
  m->source_path = path;
  return m;
}

std::unique_ptr<Model> load_model_memory(const void* data, size_t size, const LoadOptions& options) {
  std::shared_ptr<Backing> backing;
  Bytes bytes{static_cast<const uint8_t*>(data), size};
  if (options.copy_buffer && size) {
    auto owned = std::make_shared<OwnedBuffer>(data, size);
    bytes = owned->bytes();
    backing = owned;
  }
  return parse(bytes, backing, "<memory>", options.external_data_dir);
}

}  // namespace ofg
