// Type and shape inference for the passes: per-op rules for the ops real exports use, symbolic
// dims kept by name, plus the contents of small integer tensors built from Shape (shape
// arithmetic), so passes can tell which parts of a computed shape are constants.
//
// Soundness rule: a dim is static only when every input binding gives it that size. A symbolic
// dim stays symbolic (or becomes unknown); it is never replaced by the size one export happened
// to use, because the test data run the same model at other batch and sequence sizes.
#pragma once
#include <cstdint>
#include <vector>

#include "ir/ir.h"

namespace ofg::exec {

// One dim of an inferred shape: static (value >= 0), symbolic (sym set) or unknown.
struct IDim {
  int64_t value = -1;
  StrId sym = kNoStr;
  bool is_static() const { return value >= 0; }
  bool is_symbolic() const { return value < 0 && sym != kNoStr; }
};

struct IType {
  int32_t elem = 0;     // 0 = unknown element type
  bool ranked = false;  // false = unknown rank
  std::vector<IDim> dims;
  int rank() const { return ranked ? static_cast<int>(dims.size()) : -1; }
};

// One element of a small integer tensor: a constant, or dim `index` of value `src` (what
// Shape(src)[index] reads at run time), or unknown.
struct SymVal {
  enum Kind : uint8_t { kUnknown, kConst, kDim };
  Kind kind = kUnknown;
  int64_t value = 0;           // kConst
  const Value* src = nullptr;  // kDim
  int index = 0;               // kDim
  StrId sym = kNoStr;          // kDim: the dim's symbolic name when it has one
  // kUnknown: the value is still known to be >= 0 (a sum or product of dims and non-negative
  // constants), so comparing it with a negative constant has a known answer.
  bool nonneg = false;
  bool never_negative() const { return kind == kDim || (kind == kConst && value >= 0) || (kind == kUnknown && nonneg); }
  bool same_dim(const SymVal& o) const {
    if (kind != kDim || o.kind != kDim) return false;
    return (src == o.src && index == o.index) || (sym != kNoStr && sym == o.sym);
  }
};

class TypeInference {
 public:
  explicit TypeInference(Model& m) : m_(m) {}
  // Infers every graph of the model (subgraphs included). With `write`, stores the result in
  // Value::type of values that are neither graph inputs nor initializers (graph outputs keep a
  // declared type; only a missing one is filled in).
  void run(bool write = true);
  const IType* type_of(const Value* v) const;
  // Contents of v when it is a small integer tensor (at most kMaxContents elements, rank <= 1);
  // null when untracked. A scalar has one entry.
  const std::vector<SymVal>* contents(const Value* v) const;
  static constexpr int64_t kMaxContents = 64;

 private:
  void infer_graph(Graph* g);
  void infer_node(Node* n);
  void write_types(Graph* g);
  // What is known of one value, indexed by Value::id (a table, not a hash map: inference looks
  // values up several times per node).
  struct Slot {
    IType type;
    std::vector<SymVal> contents;
    bool typed = false, has_contents = false;
  };
  Slot* slot(const Value* v) { return v->id < slots_.size() ? &slots_[v->id] : nullptr; }
  const Slot* slot(const Value* v) const { return v->id < slots_.size() ? &slots_[v->id] : nullptr; }
  void set_type(const Value* v, IType t);
  void set_contents(const Value* v, std::vector<SymVal> c);

  Model& m_;
  std::vector<Slot> slots_;
  // The per-node argument vectors of the rules, handed from node to node so that a node does
  // not allocate five of its own (allocation was 40% of the time inference took).
  std::vector<const IType*> in_;
  std::vector<const std::vector<SymVal>*> in_contents_;
  std::vector<const Value*> in_values_;
  std::vector<IType> out_;
  std::vector<std::vector<SymVal>> out_contents_;
};

// Convenience: infers and writes Value::type for the whole model.
void infer_types(Model& m);

}  // namespace ofg::exec
