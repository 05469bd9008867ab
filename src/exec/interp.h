// The interpreter: execution of a graph in topological order that frees each value after its last
// consumer, and subgraph execution for If / Loop / Scan. The op registry it runs from is the op
// layer's (ops/registry.h).
#pragma once
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "exec/fusion.h"
#include "exec/tensor.h"
#include "ir/ir.h"
#include "ops/registry.h"

namespace ofg::exec {

class Interpreter;
struct Frame;

// What an op implementation sees.
struct OpCtx {
  Interpreter& interp;
  Model& model;
  Node& node;
  int64_t opset;                         // opset version of the node's domain
  std::vector<const RValue*> in;         // nullptr for omitted optional inputs
  std::vector<RValue> out;               // one per node output (fill kind + tensor)
  Frame* frame = nullptr;                // for subgraph execution (captures)
  // The value output 0 stands for when it is not the node's own (a fused chain's head makes the
  // chain's result); null: the node's.
  const Value* place_as = nullptr;

  size_t n_in() const { return in.size(); }
  bool has(size_t i) const { return i < in.size() && in[i] && in[i]->kind != RValue::kNone && in[i]->kind != RValue::kOptionalNone; }
  const RTensor& t(size_t i) const;      // input i as a tensor (throws when absent)
  // Outputs past the node's output list (a node may declare fewer than the op makes) are dropped.
  void set(size_t i, RTensor t) {
    if (i < out.size()) out[i] = RValue::tensor(std::move(t));
  }
  size_t n_out() const { return out.size(); }
  // A new tensor for output i that the op writes entirely: in place in the output of the Concat
  // that reads it when that can be arranged (exec/concat_place.cpp), else a fresh buffer.
  RTensor output_tensor(size_t i, int32_t dtype, Shape shape);
  bool wants(size_t i) const { return i < node.outputs.size && node.outputs[i] != nullptr; }

  // A key for input i's bytes when they stay the same for the model's life (an initializer, the
  // tensor of a Constant node, an entry of the run's cache, a kept output of a node computed from
  // constants only), for data derived from them once (packed weights) and kept in the cache; null
  // otherwise or when the run has no cache.
  const void* constant_key(size_t i) const;

  const Attribute* attr(const char* name) const;
  int64_t attr_i(const char* name, int64_t dflt) const;
  float attr_f(const char* name, float dflt) const;
  std::string attr_s(const char* name, const std::string& dflt) const;
  std::vector<int64_t> attr_ints(const char* name) const;  // empty when absent
  std::vector<float> attr_floats(const char* name) const;
  bool has_attr(const char* name) const { return attr(name) != nullptr; }
  Graph* attr_g(const char* name) const;
  [[noreturn]] void error(const std::string& what) const;
  std::string where() const;  // "op X (node 'n')"

  // Validation of what runtime data and attributes can drive, done by a kernel before it indexes
  // anything. Each fails through error() (Status::kInvalidModel) with what was expected and got.
  void require(bool ok, const std::string& what) const {
    if (!ok) error(what);
  }
  // Input i as a tensor of rank in [lo, hi].
  const RTensor& t_rank(size_t i, int lo, int hi) const;
  const RTensor& t_rank(size_t i, int rank) const { return t_rank(i, rank, rank); }
  // Input i as a tensor with exactly these dims.
  const RTensor& t_dims(size_t i, const Shape& dims) const;
  // Input i as a tensor with at least `n` elements (scalars read as element 0).
  const RTensor& t_numel(size_t i, int64_t n) const;
  // Index v (negative counts from the end) into [0, dim): fails unless -dim <= v < dim.
  int64_t index(int64_t v, int64_t dim, const char* what) const;
  // A size taken from data or attributes: fails unless 0 <= v (<= max when given).
  int64_t size_value(int64_t v, const char* what, int64_t max = INT64_MAX) const;
  // The number of inputs actually present must be at least n.
  void require_inputs(size_t n) const;
};

// The registry and its entries live in the op layer (ops/registry.h); the names below keep exec's
// spelling of them.
using ops::FusableAct;
using ops::InferFn;
using ops::kMayGrow;
using ops::kRandom;
using ops::kRandomInTraining;
using ops::OpEntry;
using ops::OpFacts;
using ops::OpFn;
using ops::OpName;
using ops::OpTrait;
using ops::op_hash;
using ops::Registry;
struct InferCtx;

// Values visible while a graph runs: one slot per value the graph defines (its inputs and its
// nodes' outputs), numbered by the graph's plan; captures are looked up in the parent frame.
// An empty slot (kind kNone) holds no value: not computed yet, or released.
struct Frame {
  Frame* parent = nullptr;
  const Graph* graph = nullptr;  // the graph whose values the slots hold (null: any, see run_node)
  // Value id -> its slot in the frames of its graph (-1: none), for all graphs of the model.
  const std::vector<int32_t>* slot_of = nullptr;
  std::vector<RValue> slots;
  // v's slot in this frame, or null when the graph does not define v.
  RValue* slot(const Value* v) {
    if (graph && v->graph != graph) return nullptr;
    const int32_t s = v->id < slot_of->size() ? (*slot_of)[v->id] : -1;
    return s < 0 ? nullptr : &slots[static_cast<size_t>(s)];
  }
  const RValue* slot(const Value* v) const { return const_cast<Frame*>(this)->slot(v); }
  // The value of v in this frame or an enclosing one; null when none holds it.
  const RValue* find(const Value* v) const;
};

// Data derived from a model's constant tensors and kept across runs: packed convolution weights
// and aligned copies of initializers whose bytes are not aligned in the file. Keys are the
// addresses of the IR tensors' bytes plus a tag for what was derived. Those bytes never change
// while the model lives (they are const views of the file or the model's arena; a pass that
// rewrites a weight stores new bytes), so an entry stays valid until the model is freed; the C API
// keeps one cache per ofg_model. Costs memory: one extra copy of every packed weight.
class ExecCache {
 public:
  // The entry for (key, tag), made by fill(bytes-long 64-byte-aligned buffer) on first use.
  template <class Fill>
  const uint8_t* get(const void* key, uint64_t tag, size_t bytes, Fill&& fill) {
    return hold(key, tag, bytes, fill).get();
  }
  // As get, sharing ownership: a tensor viewing the entry stays valid after the cache is gone.
  template <class Fill>
  std::shared_ptr<uint8_t> hold(const void* key, uint64_t tag, size_t bytes, Fill&& fill) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find({key, tag});
    if (it != map_.end()) return it->second;
    RTensor t = RTensor::alloc_uninit(kUint8, {static_cast<int64_t>(bytes)});
    fill(t.ptr);
    map_.emplace(std::make_pair(key, tag), t.hold);
    entries_.insert(t.ptr);
    return t.hold;
  }
  // The entry for (key, tag), or null when there is none yet.
  const uint8_t* find(const void* key, uint64_t tag) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find({key, tag});
    return it == map_.end() ? nullptr : it->second.get();
  }
  // Whether p is the start of an entry: its bytes then stay as they are while the cache lives.
  bool holds(const void* p) {
    std::lock_guard<std::mutex> lock(mu_);
    return entries_.count(p) != 0;
  }
  // The value of an initializer: a view of its bytes when aligned, else a copy made once.
  RTensor constant(const Tensor& t);
  // Outputs of nodes computed from constants only (Interpreter::constant_node), kept after their
  // first run up to kKeptOutputBytes in all: later runs take them instead of computing them again.
  static constexpr size_t kKeptOutputBytes = size_t{64} << 20;
  const RValue* kept_output(const Value* v);
  size_t kept_count() {
    std::lock_guard<std::mutex> lock(mu_);
    return kept_.size();
  }
  // Keeps every output of a node, or none when they would pass the limit.
  void keep_outputs(const std::vector<std::pair<const Value*, RValue>>& outs);
  size_t size() {  // the number of entries
    std::lock_guard<std::mutex> lock(mu_);
    return map_.size();
  }

 private:
  struct KeyHash {
    size_t operator()(const std::pair<const void*, uint64_t>& k) const {
      return std::hash<const void*>()(k.first) ^ (std::hash<uint64_t>()(k.second) * 0x9E3779B97F4A7C15ull);
    }
  };
  std::mutex mu_;
  std::unordered_map<std::pair<const void*, uint64_t>, std::shared_ptr<uint8_t>, KeyHash> map_;
  std::unordered_set<const void*> entries_;
  std::unordered_map<const Value*, RValue> kept_;
  size_t kept_bytes_ = 0;
};

struct RunStats {
  size_t nodes_run = 0;      // a fused chain counts its nodes
  size_t fused_chains = 0;   // chains run as one call (exec/fusion.h)
  size_t nodes_resident = 0; // nodes skipped: their outputs were resident from an earlier run
  size_t nodes_recalled = 0; // nodes of shapes and constants skipped: same inputs as remembered
  size_t placed_outputs = 0; // outputs written in place in the output of the Concat reading them
  size_t peak_live_bytes = 0;
  size_t freed_values = 0;
};

class Interpreter {
 public:
  // cache: kept by the caller across runs of the same model (may be null: nothing is kept).
  explicit Interpreter(Model& m, ExecCache* cache = nullptr);
  ExecCache* cache() const { return cache_; }
  // Runs the main graph. Inputs by graph-input name; initializers that are also graph inputs
  // take their default when not given. Returns graph outputs in order.
  std::vector<RValue> run(const std::vector<std::pair<std::string, RValue>>& inputs);
  // Runs a subgraph with its formal inputs bound in order; parent gives captured values.
  std::vector<RValue> run_graph(Graph* g, const std::vector<RValue>& inputs, Frame* parent);
  Model& model() { return m_; }
  // Runs one node on the given values of its inputs (in order; kNone for an omitted one) and
  // returns its outputs in order (kNone where there is no output or the op made none). Constant
  // folding evaluates nodes this way, with the same kernels and half-precision handling.
  std::vector<RValue> run_node(Node* n, const std::vector<RValue>& inputs);
  const RunStats& stats() const { return stats_; }
  // Plan-time fusions (exec/fusion.h), on by default. Their results are bit-identical to running
  // the nodes one by one; turning them off (tests compare both) drops the plans made so far.
  void set_plan_fusion(bool on);
  // The chains the plan of g runs fused (plans it if needed).
  size_t planned_chains(Graph* g) { return plan_for(g).chains.size(); }

 private:
  struct Plan {
    std::vector<Node*> order;
    size_t slots = 0;  // frame slots: the values the graph defines (numbered in value_slot_)
    // values to release after order[i] ran
    std::vector<std::vector<const Value*>> release_after;
    std::vector<FusedChain> chains;
    // Per order[i]: -1 runs alone, -2 runs inside the chain of a later node, k >= 0 runs chain k
    // (order[i] is its last node).
    std::vector<int32_t> chain_at;
  };
  const Plan& plan_for(Graph* g);
  void exec_node(Node* n, Frame& f);
  // Whether a node's outputs depend on constants only (initializers, Constant nodes, such nodes'
  // outputs): no subgraph, no random numbers. With a cache, their outputs are computed on the
  // first run and kept (exec/constant_nodes.cpp): exports recompute weight slices, reshapes and
  // masks from constants on every run otherwise.
  bool constant_node(const Node* n);  // decided once per node
  bool computes_from_constants(const Node* n);
  bool constant_value(const Value* v);
  bool recall_outputs(const Node* n, Frame& f);
  void keep_outputs(const Node* n, const Frame& f);
  std::unordered_map<const Value*, bool> constant_values_;
  // What the interpreter learns about a node once: its registry entry and opset, and whether it
  // computes from constants only (-1 not yet known, 0 no, 1 yes).
  struct NodeFacts {
    const OpEntry* entry = nullptr;
    int64_t opset = 0;
    int8_t constant = -1;
    // Whether the node's outputs are resident (resident_values_): -1 not yet run, 0 no, 1 yes:
    // later runs skip the node.
    int8_t resident = -1;
    // Whether it computes from shapes and constants only (exec/shape_memo.cpp): -1 not yet known.
    int8_t shape = -1;
  };
  // A node's facts, remembered under its first output's id; null for a node without outputs.
  NodeFacts* facts(const Node* n);
  std::vector<NodeFacts> node_facts_;
  const OpEntry* op_entry(const Node* n, int64_t& opset);
  // A chain as one call, or node by node when its tensors are not all float32 (exec/fused_run.cpp).
  void run_chain(const FusedChain& c, Frame& f);
  // Stores a node's output value in the frame and counts its bytes.
  void store(Value* v, RValue r, Frame& f);
  // The value of v as a node reads it: the frame's, else the resident one; null when none.
  const RValue* value_of(const Value* v, Frame& f) {
    const RValue* r = f.find(v);
    return r ? r : resident_value(v);
  }
  // Nodes computed from tensor shapes and constants only, remembered between runs
  // (exec/shape_memo.cpp).
  bool shape_source(const Node* n) const;  // Shape or Size
  bool shape_node(const Node* n);          // decided once per node; excludes constant nodes
  bool shape_input(const Value* v);
  uint32_t version(const Value* v) const;
  void bump_version(const Value* v);
  // Stores n's remembered outputs in f when its inputs have the versions they had then.
  bool recall_shape_outputs(const Node* n, Frame& f);
  // After n ran: remembers its outputs (when small) and gives them new versions as needed.
  void remember_shape_outputs(const Node* n, const Frame& f);
  struct ShapeMemo {
    std::vector<RValue> outs;
    std::vector<uint32_t> in_versions;
  };
  std::unordered_map<const Node*, ShapeMemo> shape_memos_;
  std::vector<uint32_t> value_version_;  // by value id
  // The input and output vectors of finished nodes' contexts, lent to the next nodes (nested
  // ones too: a node with a subgraph runs others while it holds its own): a context's two vectors
  // were two allocations per node.
  struct SpareVectors {
    std::vector<std::vector<const RValue*>> in;
    std::vector<std::vector<RValue>> out;
    static constexpr size_t kMax = 32;  // nesting deeper than this allocates
    SpareVectors() {
      in.reserve(kMax);
      out.reserve(kMax);
    }
    // Moves spare vectors into a context, and its vectors back, emptied, when it ends.
    class Lease {
     public:
      Lease(SpareVectors& s, OpCtx& c) : s_(s), c_(c) {
        if (!s.in.empty()) {
          c.in = std::move(s.in.back());
          s.in.pop_back();
        }
        if (!s.out.empty()) {
          c.out = std::move(s.out.back());
          s.out.pop_back();
        }
      }
      ~Lease() {
        c_.in.clear();
        c_.out.clear();
        // Within the reserved capacity: push_back does not allocate (nor throw).
        if (s_.in.size() < kMax) s_.in.push_back(std::move(c_.in));
        if (s_.out.size() < kMax) s_.out.push_back(std::move(c_.out));
      }
      Lease(const Lease&) = delete;
      Lease& operator=(const Lease&) = delete;

     private:
      SpareVectors& s_;
      OpCtx& c_;
    };
  };
  SpareVectors spare_;
  // Outputs placed in a Concat's output (exec/concat_place.cpp).
 public:
  // A view of v's part of its Concat's next output, when v's producer may write there and the
  // Concat's last inputs had v's dtype and shape there; false otherwise.
  bool placed_output(const Value* v, int32_t dtype, const Shape& shape, RTensor& out);
  // The output prepared for this Concat (its inputs may already be in it), when it has this
  // dtype and shape; false otherwise (whatever was prepared is dropped).
  bool concat_output(const Node* concat, int32_t dtype, const Shape& total, RTensor& out);
  // The inputs a Concat just joined, for the placements of its next run.
  void remember_concat(const Node* concat, int32_t dtype, int64_t axis, const std::vector<const RTensor*>& xs,
                       const Shape& total);

 private:
  void plan_placements(const std::vector<Node*>& order, const std::vector<Value*>& captured);
  struct Placement {
    const Node* concat = nullptr;
    uint32_t input = 0;
  };
  struct ConcatLayout {
    std::vector<Shape> shapes;  // the inputs of the last run (empty: nothing to place)
    int32_t dtype = 0;
    Shape total;
    RTensor pending;            // the next output, once a producer placed its part in it
  };
  std::unordered_map<const Value*, Placement> placements_;
  std::unordered_map<const Node*, ConcatLayout> concat_layouts_;
  // Value id -> frame slot of the values of the graphs planned so far (each value belongs to one
  // graph, so one table serves all plans), and run_node's slots (-1 between calls).
  std::vector<int32_t> value_slot_;
  std::vector<int32_t> node_slots_;
  bool fuse_ = true;
  RTensor initializer_value(const Tensor& t) { return cache_ ? cache_->constant(t) : from_ir(t); }
  // Values that are the same on every run of this interpreter, looked up when no frame binds
  // them: initializers (made on first use), the outputs of Constant nodes and, with a cache, of
  // nodes computed from constants only whose outputs the cache keeps. The nodes of the last two
  // run once; later runs skip them (a node costs its dispatch even when it only makes a view,
  // and exports carry hundreds of Constant nodes). Null when v is none of these.
  const RValue* resident_value(const Value* v);
  // After n ran in f: makes its outputs resident when they qualify (decided once per node).
  void settle_residency(Node* n, const Frame& f);
  std::unordered_map<const Value*, RValue> resident_values_;
  Model& m_;
  ExecCache* cache_ = nullptr;
  std::unordered_map<Graph*, Plan> plans_;
  RunStats stats_;
  size_t live_bytes_ = 0;
};

// Registration of the op families: register_<name>_ops(Registry&) for each line of the list.
#define OFG_OP_FAMILY(name) void register_##name##_ops(Registry& r);
#include "exec/ops/families.h"
#undef OFG_OP_FAMILY

}  // namespace ofg::exec
