// The model loader, split by message: load.cpp (ModelProto, OperatorSetIdProto,
// StringStringEntryProto, the entry points), load_graph.cpp (GraphProto, NodeProto,
// FunctionProto), load_type.cpp (TypeProto, ValueInfoProto), load_attribute.cpp
// (AttributeProto) and load_tensor.cpp (TensorProto, also used alone for .pb files).
// The wire format is walked directly so that tensor bytes stay where they are (in the mapping
// or the caller's buffer); field numbers come from the generated lite schema.
#pragma once
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/error.h"
#include "ir/ir.h"
#include "ofg_onnx_fields.h"
#include "onnx/external_data.h"
#include "onnx/wire.h"

namespace ofg::load {

namespace pb = ofg_onnx_fields;
using wire::Reader;
using wire::kFixed32;
using wire::kFixed64;
using wire::kLengthDelimited;
using wire::kVarint;

constexpr int kMaxGraphDepth = 64;
constexpr int kMaxTypeDepth = 32;
constexpr uint32_t kMaxRank = 64;

// Decodes TensorProtos into tensors of `m` (arena, interned names), checking dims, data type
// and data against each other. Raw data stays a view of the bytes read; varint-encoded data is
// decoded into the arena. `external` resolves external data (null: external data is refused).
class TensorReader {
 public:
  TensorReader(Model& m, std::string context, ExternalData* external)
      : m_(m), a_(m.arena), ctx_(std::move(context)), external_(external) {}

  Tensor* tensor(Bytes b);

 protected:
  StrId str(Reader& r) { return m_.intern(r.length_delimited().view()); }
  // A string field into `out`; false, reading nothing, when its wire type is not length-delimited
  // (the caller then keeps the field as it came).
  bool str_field(Reader& r, uint32_t wt, StrId& out) {
    if (wt != kLengthDelimited) return false;
    out = str(r);
    return true;
  }
  // The same for an integer varint field (int64, or int32 for enums), which also sets `has`.
  template <class T>
  static bool int_field(Reader& r, uint32_t wt, T& out, bool& has) {
    if (wt != wire::kVarint) return false;
    out = static_cast<T>(r.varint());
    has = true;
    return true;
  }
  void keep(Extras& extras, Reader& r, uint32_t field, uint32_t wt) {
    r.skip(wt);
    extras.push(a_, r.raw_field(field));
  }
  std::string name_of(StrId id) const { return std::string(m_.str(id)); }
  [[noreturn]] void invalid(const std::string& what) const { fail(Status::kInvalidModel, ctx_ + ": " + what); }

  Model& m_;
  Arena& a_;
  std::string ctx_;
  ExternalData* external_;

 private:
  // A TensorProto's fields as read, before they are checked against each other.
  struct TensorFields {
    ArenaVec<int64_t> dims;
    bool has_raw = false, external = false;
    std::vector<Bytes> packed_fixed;  // float_data / double_data chunks (little-endian already)
    std::vector<uint64_t> varints;    // int32_data / int64_data / uint64_data values
    size_t fixed_elem = 0;            // 4 for float_data, 8 for double_data
    int typed_fields = 0;             // how many distinct typed fields appear
    uint32_t typed_field = 0;
    ArenaVec<Bytes> strings;
  };
  void read_fields(Bytes b, Tensor* t, TensorFields& fields);
  // Checks the fields against each other and sets t's storage and data.
  void store_data(Tensor* t, const TensorFields& fields);
  void decode_typed(Tensor* t, const std::string& where, size_t want, const std::vector<Bytes>& fixed,
                    size_t fixed_elem, const std::vector<uint64_t>& varints, uint32_t field);
};

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

class Loader : public TensorReader {
 public:
  using TensorReader::TensorReader;
  void model(Bytes bytes);

 private:
  // load.cpp
  OpsetId opset(Bytes b);
  StringPair string_pair(Bytes b);

  // load_type.cpp
  struct ParsedValueInfo {
    StrId name = kNoStr;
    Type* type = nullptr;
    StrId doc = kNoStr;
    Extras extra;
  };
  Type* type(Bytes b, int depth);
  void tensor_type(Bytes b, Type* t, Type::Kind kind);
  void shape(Bytes b, Type* t);
  Dim dim(Bytes b);
  void wrapped_type(Bytes b, Type* t, Type::Kind kind, int depth);
  void map_type(Bytes b, Type* t, int depth);
  ParsedValueInfo value_info(Bytes b);
  ValueInfo make_info(Value* value, ParsedValueInfo& p);

  // load_graph.cpp
  Value* lookup(Scope* scope, StrId name);
  void define(Scope& scope, Value* v, const char* what);
  Graph* graph(Bytes b, Scope* parent_scope, Node* owner, int depth);
  PendingNode node_fields(Bytes b, Graph* g, Scope& scope);
  void resolve_node(PendingNode& p, Scope& scope, int depth);
  void check_order(Graph* g, const std::string& gname);
  Function* function(Bytes b);

  // load_attribute.cpp
  Attribute attribute(Bytes b, Node* owner, Scope& scope, int depth);
};

}  // namespace ofg::load
