// The in-memory model: Graph / Node / Value / Tensor / Attribute, all allocated in the model's
// arena. Weights are views into the loaded bytes (mapped file or caller buffer) or into the arena
// for constants made by passes; loading and saving never copy them.
//
// Everything an ONNX file says that the IR does not model field by field is kept as raw encoded
// fields (`Extras`) and written back in field-number order, so a load/save round trip loses nothing.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/arena.h"
#include "ir/strings.h"

namespace ofg {

struct Graph;
struct Node;
struct Value;
class Model;
struct ProvenanceScope;

// A view of bytes owned elsewhere (the loaded file, the caller's buffer, or the arena).
struct Bytes {
  const uint8_t* data = nullptr;
  size_t size = 0;
  std::string_view view() const { return {reinterpret_cast<const char*>(data), size}; }
};

template <class T>
struct Span {
  T* data = nullptr;
  uint32_t size = 0;
  T* begin() const { return data; }
  T* end() const { return data + size; }
  T& operator[](size_t i) const { return data[i]; }
  bool empty() const { return size == 0; }
};

// One field of a message kept exactly as it was encoded (tag and payload).
struct RawField {
  uint32_t number = 0;
  Bytes encoded;
};
using Extras = ArenaVec<RawField>;

// ONNX TensorProto.DataType numbers (they are part of the file format, so they never change).
enum DataType : int32_t {
  kUndefined = 0, kFloat = 1, kUint8 = 2, kInt8 = 3, kUint16 = 4, kInt16 = 5, kInt32 = 6,
  kInt64 = 7, kString = 8, kBool = 9, kFloat16 = 10, kDouble = 11, kUint32 = 12, kUint64 = 13,
  kComplex64 = 14, kComplex128 = 15, kBfloat16 = 16,
  kFloat8E4M3FN = 17, kFloat8E4M3FNUZ = 18, kFloat8E5M2 = 19, kFloat8E5M2FNUZ = 20,
  kUint4 = 21, kInt4 = 22, kFloat4E2M1 = 23, kFloat8E8M0 = 24, kUint2 = 25, kInt2 = 26,
};
// Bytes per element for fixed-size types, 0 for strings, sub-byte and unknown types.
size_t dtype_size(int32_t dtype);
// Bits per element (4 and 2 for the packed types), 0 when unknown or string.
size_t dtype_bits(int32_t dtype);
const char* dtype_name(int32_t dtype);

// TensorShapeProto.Dimension: a known size, a symbolic name, or neither (unknown).
struct Dim {
  int64_t value = 0;
  StrId param = kNoStr;
  bool has_value = false;
  Extras extra;  // denotation and unknown fields
  bool is_static() const { return has_value; }
  bool is_symbolic() const { return !has_value && param != kNoStr; }
};

// TypeProto, modelled for tensors (element type + optional shape) and the containers that
// nest a type (sequence, optional, map value). Anything else stays in `extra`.
struct Type {
  enum Kind : uint8_t { kUnset, kTensor, kSparseTensor, kSequence, kMap, kOptional };
  Kind kind = kUnset;
  // kTensor / kSparseTensor
  int32_t elem_type = 0;
  bool has_elem_type = false;
  bool has_shape = false;  // absent shape = unknown rank; present with 0 dims = scalar
  Span<Dim> dims;
  Extras shape_extra;  // unknown fields of TensorShapeProto
  // kSequence / kOptional element, kMap value
  Type* elem = nullptr;
  int32_t key_type = 0;
  bool has_key_type = false;
  Extras inner_extra;  // unknown fields of the kind's inner message
  StrId denotation = kNoStr;
  Extras extra;  // unknown fields of TypeProto
  Bytes source;  // the TypeProto as loaded (used to tell identical declarations apart)

  bool is_tensor() const { return kind == kTensor; }
  bool shape_known() const { return kind == kTensor && has_shape; }
  int rank() const { return has_shape ? static_cast<int>(dims.size) : -1; }
  // Product of static dims; -1 when any dim is not static or the shape is unknown.
  int64_t static_numel() const;
};

// How to compute the bytes of a tensor that a pass made but has not materialised (see
// Tensor::recipe). Weights that passes derive from other weights (scaled by a folded
// BatchNormalization, transposed for a MatMul) are made this way: until something reads them
// nothing is allocated, and saving streams them through a small buffer instead of holding a
// second copy of the weights in memory.
// Recipes live in the model's arena and are never destroyed: members must be trivially
// destructible (arena arrays, pointers).
class TensorRecipe {
 public:
  explicit TensorRecipe(Arena* arena) : arena_(arena) {}
  // Writes bytes [offset, offset + size) of the tensor to dst. offset and size are multiples of
  // the element size and within the tensor.
  virtual void fill(size_t offset, size_t size, uint8_t* dst) const = 0;
  // A hint that the bytes exist elsewhere now (materialised or saved): the recipe may let go of
  // cached pages of what only it reads. Reading again later must still work.
  virtual void release_sources() const {}
  Arena* arena() const { return arena_; }

 private:
  Arena* arena_;  // where materialised bytes go (the model's)
};

// TensorProto. Immutable once made: a pass that changes a tensor makes a new one.
struct Tensor {
  enum Storage : uint8_t { kRaw, kTyped, kExternal };
  int32_t data_type = 0;
  bool has_data_type = false;
  Storage storage = kRaw;
  Span<int64_t> dims;
  StrId name = kNoStr;
  StrId doc_string = kNoStr;
  // Little-endian element bytes, dense, numel * dtype_size (packed for sub-byte types). For
  // kTyped storage that was varint-encoded on disk, this points into the arena.
  // While `recipe` is set the bytes are not computed yet: data.data is null and data.size is
  // already the final size. Read the bytes through bytes(); data.size is always valid.
  // Both are mutable because computing the bytes on first read is not a change of the tensor.
  mutable Bytes data;
  mutable const TensorRecipe* recipe = nullptr;
  Span<Bytes> strings;  // string_data, for STRING tensors
  // The TensorProto exactly as loaded (empty for tensors made in memory). It is written back
  // verbatim when saved under the same name, which keeps every detail of the original encoding;
  // a copy that changes anything must clear it.
  Bytes source;
  Extras extra;  // external_data entries, segment, unknown fields

  int64_t numel() const;
  bool is_scalar() const { return dims.size == 0; }
  // The element bytes; a pending recipe is run first (once: the bytes are then kept in the arena).
  Bytes bytes() const { return recipe ? materialize() : data; }
  // Bytes [offset, offset + size) into dst without materialising a pending recipe (offset and
  // size multiples of the element size).
  void read(size_t offset, size_t size, uint8_t* dst) const;

 private:
  Bytes materialize() const;
};

struct Graph;

// AttributeProto. `present` has one bit per optional scalar field so absent and zero differ.
struct Attribute {
  enum Present : uint32_t { kF = 1, kI = 2, kS = 4, kT = 8, kG = 16 };
  // AttributeProto.AttributeType numbers.
  enum Kind : int32_t { kUndefined = 0, kFloat = 1, kInt = 2, kString = 3, kTensor = 4, kGraph = 5,
    kFloats = 6, kInts = 7, kStrings = 8, kTensors = 9, kGraphs = 10, kSparseTensor = 11,
    kSparseTensors = 12, kTypeProto = 13, kTypeProtos = 14 };
  StrId name = kNoStr;
  int32_t type = 0;
  bool has_type = false;
  uint32_t present = 0;
  float f = 0;
  int64_t i = 0;
  Bytes s;
  Tensor* t = nullptr;
  Graph* g = nullptr;
  Span<float> floats;
  Span<int64_t> ints;
  Span<Bytes> strings;
  Span<Tensor*> tensors;
  Span<Graph*> graphs;
  StrId doc_string = kNoStr;
  StrId ref_attr_name = kNoStr;
  Extras extra;  // tp, type_protos, sparse tensors, unknown fields

  // Typed reads: the value when the attribute holds that kind (by its type or the field seen),
  // else dflt.
  int64_t int_or(int64_t dflt) const { return type == kInt || (present & kI) ? i : dflt; }
  float float_or(float dflt) const { return type == kFloat || (present & kF) ? f : dflt; }
  bool has_string() const { return type == kString || (present & kS); }
};

struct Use {
  Node* node = nullptr;
  uint32_t index = 0;  // which input of `node`
};

// A named value: produced by one node output, a graph input, or an initializer.
struct Value {
  StrId name = kNoStr;
  Graph* graph = nullptr;  // the graph whose scope defines it
  Node* producer = nullptr;
  uint32_t producer_output = 0;
  ArenaVec<Use> uses;
  Type* type = nullptr;           // declared or inferred; null when unknown
  Tensor* initializer = nullptr;  // set when the value is an initializer of `graph`
  uint32_t graph_output_count = 0;  // how many entries of graph->outputs name it
  bool is_graph_input = false;
  uint32_t id = 0;  // unique in the model, dense (0 .. Model::value_count): index of per-value tables

  bool is_graph_output() const { return graph_output_count > 0; }
  bool is_constant() const { return initializer != nullptr && !is_graph_input; }
  size_t use_count() const { return uses.size; }
};

// One entry of graph.input / graph.output / graph.value_info.
struct ValueInfo {
  Value* value = nullptr;
  Type* type = nullptr;  // a declaration that differs from value->type; null = value->type
  bool has_type = true;  // false when the ValueInfoProto had no type field
  StrId doc_string = kNoStr;
  Extras extra;
};

struct Node {
  StrId op_type = kNoStr;
  StrId domain = kNoStr;  // kNoStr and "" both mean the default domain
  StrId name = kNoStr;
  StrId doc_string = kNoStr;
  Span<Value*> inputs;   // nullptr = omitted optional input ("")
  Span<Value*> outputs;  // nullptr = omitted optional output ("")
  ArenaVec<Attribute> attributes;
  Extras extra;  // metadata_props, unknown fields
  Graph* graph = nullptr;
  Node* prev = nullptr;
  Node* next = nullptr;
  bool alive = true;
  // Provenance (ir/provenance.h): ids of the original nodes this node stands for, ascending;
  // empty until seed_provenance ran. Kept up to date by the editing operations of graph_ops.h.
  Span<uint32_t> origins;
  uint32_t mark = 0;  // scratch for algorithms (order index, visited flags); no meaning between them

  const Attribute* attribute(StrId attr_name) const;
  Attribute* attribute(StrId attr_name);
  // The attribute with this name (m: the model whose strings the node uses), or null.
  const Attribute* attribute(const Model& m, std::string_view attr_name) const;
};

struct Graph {
  Model* model = nullptr;
  Graph* parent = nullptr;      // enclosing graph for subgraphs
  Node* owner = nullptr;        // node whose attribute holds this subgraph
  StrId name = kNoStr;
  StrId doc_string = kNoStr;
  Node* first = nullptr;
  Node* last = nullptr;
  uint32_t node_count = 0;
  ArenaVec<ValueInfo> inputs;
  ArenaVec<ValueInfo> outputs;
  ArenaVec<ValueInfo> value_infos;
  ArenaVec<Value*> initializers;  // in file order
  ArenaVec<Value*> captures;      // outer-scope values used by nodes of this graph
  Extras extra;  // sparse_initializer, quantization_annotation, unknown fields

  // Iterates live nodes; safe against removal of the current node.
  template <class F>
  void for_each_node(F&& f) {
    for (Node* n = first; n != nullptr;) {
      Node* next = n->next;
      f(n);
      n = next;
    }
  }
};

struct OpsetId {
  StrId domain = kNoStr;
  int64_t version = 0;
  bool has_version = false;
  Extras extra;
};

struct StringPair {
  StrId key = kNoStr;
  StrId value = kNoStr;
  Extras extra;
};

// FunctionProto: formal inputs/outputs are the inputs/outputs of `body` (untyped); the nodes are
// the body's nodes.
struct Function {
  StrId name = kNoStr;
  StrId domain = kNoStr;
  StrId doc_string = kNoStr;
  ArenaVec<StrId> attribute_names;
  ArenaVec<OpsetId> opsets;
  Graph* body = nullptr;
  Extras extra;  // attribute_proto, value_info, metadata_props, unknown fields
};

// Keeps loaded bytes (a mapping or the caller's buffer) alive for as long as the model views them.
class Backing {
 public:
  virtual ~Backing() = default;
  // When `b` lies in this backing: lets the system drop what it caches of those bytes (a mapped
  // file reads them again on the next access) and returns true; false when `b` is not in it.
  virtual bool release_pages(Bytes b) const { return false; }
};

class Model {
 public:
  Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  Arena arena;
  StringTable strings{arena};

  int64_t ir_version = 0;
  bool has_ir_version = false;
  StrId producer_name = kNoStr;
  StrId producer_version = kNoStr;
  StrId domain = kNoStr;
  int64_t model_version = 0;
  bool has_model_version = false;
  StrId doc_string = kNoStr;
  Graph* graph = nullptr;
  uint32_t value_count = 0;  // values made so far (every Value::id is below it)
  ArenaVec<OpsetId> opsets;
  ArenaVec<StringPair> metadata;
  ArenaVec<Function*> functions;
  Extras extra;  // training_info, configuration, unknown fields

  std::vector<std::shared_ptr<Backing>> backings;
  std::string source_path;  // file the model was loaded from ("" for memory)
  // Some weights were loaded from external data: a save keeps that layout unless told otherwise.
  bool loaded_external_data = false;
  // The external-data locations those weights came from, each once, in order of first use: an
  // in-place save writes the data back under the same name when there was one.
  std::vector<std::string> external_locations;

  // Provenance (ir/provenance.h). origin_names[id]: the name of original node `id` (kNoStr for
  // an unnamed one, reported as "#id"); filled once by seed_provenance.
  ArenaVec<StrId> origin_names;
  bool provenance_seeded = false;
  // Initializer name -> ids of the original nodes constant folding turned into it.
  std::map<StrId, std::vector<uint32_t>> folded_origins;
  // The rewrite running now (set by the rule driver and the opset conversion), null otherwise.
  ProvenanceScope* provenance_scope = nullptr;

  StrId intern(std::string_view s) { return strings.intern(s); }
  std::string_view str(StrId id) const { return strings.view(id); }
  // Opset version of `domain` ("" and "ai.onnx" are the same), 0 when not imported.
  int64_t opset_version(std::string_view domain_name) const;
};

bool is_default_domain(const Model& m, StrId domain);

// Weights nothing will read again (a weight a pass replaced by a computed one, once computed):
// the backing holding them may drop its cached pages. Reading them later still works.
void release_loaded_bytes(const Model& m, Bytes b);

}  // namespace ofg
