#include "convert/float_precision.h"

#include <cmath>

#include "convert/keep_rules.h"
#include "exec/infer_types.h"
#include "exec/tensor.h"
#include "ir/attributes.h"
#include "ir/constant_floats.h"
#include "ir/graph_ops.h"

namespace ofg::convert {

namespace {

using exec::RTensor;

// The target-type copy of a float32 tensor (name kept); values beyond the target's finite range
// are clamped to it (else they would become infinities) and recorded under `what`.
Tensor* convert_tensor(Model& m, const Tensor* t, int32_t target, const std::string& what,
                       std::vector<Clamped>& clamped) {
  RTensor f = exec::from_ir(*t);
  // from_ir may view the loaded bytes: clamp in a copy.
  RTensor c = f.dtype == kFloat ? f.clone() : exec::cast_tensor(f, kFloat);
  const float lim = static_cast<float>(largest_finite(target));
  Clamped cl;
  cl.name = what;
  float* p = c.data<float>();
  for (int64_t i = 0; i < c.numel(); ++i)
    if (std::isfinite(p[i]) && std::fabs(p[i]) > lim) {
      ++cl.count;
      cl.largest = std::max(cl.largest, static_cast<double>(std::fabs(p[i])));
      p[i] = p[i] > 0 ? lim : -lim;
    }
  if (cl.count) clamped.push_back(cl);
  RTensor h = exec::cast_tensor(c, target);
  Tensor* out = make_tensor(m, target, t->dims.data, t->dims.size, h.ptr, h.nbytes());
  out->name = t->name;
  return out;
}

// A fresh copy of v's declared type with element type `elem` (types may be shared between a
// value and its declarations, so they are never changed in place).
void retype(Model& m, Type*& t, int32_t elem) {
  if (!t || t->kind != Type::kTensor || t->elem_type != kFloat) return;
  Type* nt = m.arena.make<Type>(*t);
  nt->elem_type = elem;
  nt->source = Bytes();
  t = nt;
}

class Converter {
 public:
  Converter(Model& m, const PrecisionPlan& plan) : m_(m), plan_(plan), g_(m.graph) {}

  PrecisionResult run() {
    nodes_ = main_nodes(m_);
    exec::TypeInference ti(m_);
    ti.run(false);
    elem_.assign(m_.value_count, 0);
    for_each_graph(g_, [&](Graph* g) {
      auto note = [&](Value* v) {
        if (v && v->id < elem_.size()) elem_[v->id] = known_elem(ti, v, 0);
      };
      for (ValueInfo& vi : g->inputs) note(vi.value);
      for (Value* v : g->initializers) note(v);
      for (Node* n = g->first; n; n = n->next)
        for (Value* v : n->outputs) note(v);
    });
    decide_nodes();
    decide_values();
    convert_initializers();
    convert_nodes();
    insert_casts();
    fix_outputs();
    retype_declarations();
    remove_noop_casts();
    recompute_captures(g_);
    return result_;
  }

 private:
  // The element type of v before conversion: inferred, else declared, else what its producer
  // tells: for output k of an If, Loop or Scan (inference has no rule for control flow) the type
  // of the body output that becomes it (If: either branch; Loop: k + 1, after the condition;
  // Scan: k), since bodies often declare no output types; for an op that computes in its data
  // input's type (elementwise, reductions, data movement, recurrent ops, some without a rule) the
  // type of its first float data input. 0 when none of these tells it: a converted node never
  // reads such a value (decide_nodes), as no Cast can be placed for it.
  int32_t known_elem(const exec::TypeInference& ti, const Value* v, int depth) const {
    if (!v) return 0;
    if (v->id < elem_.size() && elem_[v->id]) return elem_[v->id];
    const exec::IType* it = ti.type_of(v);
    if (it && it->elem) return it->elem;
    if (v->type && v->type->kind == Type::kTensor && v->type->elem_type) return v->type->elem_type;
    const Node* n = v->producer;
    if (!n || depth > 64) return 0;
    std::string_view op = m_.str(n->op_type);
    const uint32_t k = v->producer_output + (op == "Loop" ? 1 : 0);
    for (const char* attr : {"then_branch", "else_branch", "body"}) {
      const Attribute* a = n->attribute(m_, attr);
      if (!a || !a->g || k >= a->g->outputs.size) continue;
      const ValueInfo& vi = a->g->outputs[k];
      if (vi.type && vi.type->kind == Type::kTensor && vi.type->elem_type) return vi.type->elem_type;
      if (int32_t t = known_elem(ti, vi.value, depth + 1)) return t;
    }
    static const char* const kSameType[] = {
        "Add", "Sub", "Mul", "Div", "Pow", "Neg", "Abs", "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt",
        "Reciprocal", "MatMul", "Gemm", "Softmax", "LogSoftmax", "ReduceMean", "ReduceSum", "ReduceMax",
        "ReduceMin", "ReduceProd", "Unsqueeze", "Squeeze", "Reshape", "Flatten", "Concat", "Transpose", "Slice",
        "Split", "Expand", "Tile", "Identity", "Pad", "Clip", "Max", "Min", "Sum", "Mean", "Where", "Gather",
        "LSTM", "GRU", "RNN", "Conv", "ConvTranspose", "BatchNormalization", "InstanceNormalization",
        "LayerNormalization", "AveragePool", "MaxPool", "GlobalAveragePool", "GlobalMaxPool", "LeakyRelu", "Elu",
        "HardSigmoid", "HardSwish", "Softplus", "Erf", "Gelu", "PRelu", "Resize", "Floor", "Ceil", "Round"};
    // Cast: its `to` (its rule gives nothing when its input's type is unknown).
    if (op == "Cast" && is_default_domain(m_, n->domain))
      if (const Attribute* to = n->attribute(m_, "to")) return static_cast<int32_t>(to->int_or(0));
    bool same = false;
    for (const char* o : kSameType) same |= op == o;
    if (!same || !is_default_domain(m_, n->domain)) return 0;
    // Where's condition and Gather's indices are not its data: start at the data inputs.
    for (uint32_t i = op == "Where" ? 1 : 0; i < n->inputs.size; ++i) {
      const int32_t t = known_elem(ti, n->inputs[i], depth + 1);
      if (exec::is_float_type(t)) return t;
      if (op == "Gather") break;
    }
    return 0;
  }

  bool is_f32(const Value* v) const { return v && v->id < elem_.size() && elem_[v->id] == kFloat; }

  void decide_nodes() {
    converted_.assign(nodes_.size(), false);
    for (size_t i = 0; i < nodes_.size(); ++i) {
      Node* n = nodes_[i];
      n->mark = static_cast<uint32_t>(i);
      if (plan_.keep[i]) continue;
      bool touches = false;
      for (Value* v : n->inputs) touches |= is_f32(v);
      for (Value* v : n->outputs) touches |= is_f32(v);
      // A converted node must know what it reads: an input of unknown element type gets no Cast
      // (only float32 values do), so if it is float32 the node would mix float32 with the target
      // type, which ONNX Runtime refuses. Such a node stays float32, every input it reads as it was.
      // Likewise an output of unknown type would silently hold the target type where its readers
      // (a subgraph body, a kept node) expect float32.
      const Value* unknown = nullptr;
      const char* which = "input";
      for (Value* v : n->inputs)
        if (v && !unknown && (v->id >= elem_.size() || elem_[v->id] == 0)) unknown = v;
      for (Value* v : n->outputs)
        if (v && !unknown && (v->id >= elem_.size() || elem_[v->id] == 0)) {
          unknown = v;
          which = "output";
        }
      if (touches && unknown) {
        result_.kept.push_back({i, std::string(m_.str(n->name)), std::string(m_.str(n->op_type)),
                                "type: the element type of " + std::string(which) + " '" + std::string(m_.str(unknown->name)) +
                                    "' is not known (no Cast can be placed for it)"});
        touches = false;
      }
      converted_[i] = touches;
      result_.nodes_converted += touches;
    }
  }

  bool node_converted(const Node* n) const { return n->graph == g_ && converted_[n->mark]; }

  // The precision consumer u expects at input k.
  int32_t wanted(const Node* u, uint32_t k) const {
    if (node_converted(u) && !float32_only_input(m_, *u, k)) return plan_.target;
    return kFloat;
  }

  void decide_values() {
    prec_.assign(m_.value_count, 0);
    for (ValueInfo& vi : g_->inputs)
      if (is_f32(vi.value) && !vi.value->initializer) prec_[vi.value->id] = plan_.keep_io_types ? kFloat : plan_.target;
    for (Value* v : g_->initializers) {
      if (!is_f32(v) || v->is_graph_input) continue;
      int32_t p = kFloat;
      for (const Use& u : v->uses)
        if (wanted(u.node, u.index) != kFloat) p = plan_.target;
      // An initializer that is also a graph output keeps the output's declared type.
      if (v->is_graph_output() && plan_.keep_io_types) p = kFloat;
      prec_[v->id] = p;
    }
    for (Node* n : nodes_)
      for (Value* v : n->outputs)
        if (is_f32(v)) prec_[v->id] = node_converted(n) ? plan_.target : kFloat;
  }

  void convert_initializers() {
    for (Value* v : g_->initializers)
      if (prec_[v->id] == plan_.target && v->initializer && v->initializer->data_type == kFloat) {
        v->initializer = convert_tensor(m_, v->initializer, plan_.target, std::string(m_.str(v->name)), result_.clamped);
        retype(m_, v->type, plan_.target);
      }
  }

  void convert_nodes() {
    for (Node* n : nodes_) {
      if (!node_converted(n)) continue;
      const std::string where = "node '" + std::string(m_.str(n->name)) + "' (" + std::string(m_.str(n->op_type)) + ")";
      const bool is_cast = m_.str(n->op_type) == "Cast";
      const bool is_constant = m_.str(n->op_type) == "Constant";
      for (Attribute& a : n->attributes) {
        std::string_view name = m_.str(a.name);
        if (a.t && a.t->data_type == kFloat)
          a.t = convert_tensor(m_, a.t, plan_.target, where + " attribute '" + std::string(name) + "'", result_.clamped);
        // Where the graph asks for float32 data (Cast to float, EyeLike/Random* dtype), it now
        // asks for the target type: the value is computed in the converted part.
        if (((is_cast && name == "to") || name == "dtype") && a.int_or(0) == kFloat) a.i = plan_.target;
        std::vector<float> v;
        std::vector<int64_t> dims;
        if (is_constant && constant_float_values(name, a, v, dims)) {
          Tensor* t = make_tensor(m_, kFloat, dims.data(), dims.size(), v.data(), v.size() * sizeof(float));
          a.name = m_.intern("value");
          a.type = Attribute::kTensor;
          a.present = Attribute::kT;
          a.floats = Span<float>();
          a.t = convert_tensor(m_, t, plan_.target, where + " attribute '" + std::string(name) + "'", result_.clamped);
        }
      }
      for (Value* o : n->outputs)
        if (o && prec_[o->id] == plan_.target) retype(m_, o->type, plan_.target);
    }
  }

  // The value holding v in precision p: v itself, or one Cast of it placed after its definition.
  Value* in_precision(Value* v, int32_t p) {
    for (const CastMade& c : casts_)
      if (c.from == v && c.to == p) return c.out;
    Value* src = v;
    // Never a Cast of a Cast's output: cast the first Cast's input instead (same value, one step).
    if (v->producer && v->producer->graph == g_ && m_.str(v->producer->op_type) == "Cast" && v->producer->inputs.size &&
        v->producer->inputs[0] && exec::is_float_type(elem_of(v->producer->inputs[0])))
      src = v->producer->inputs[0];
    Value* out = new_value(g_, unique_name(m_, std::string(m_.str(v->name)) + (p == kFloat ? "_f32" : p == kFloat16 ? "_f16" : "_bf16")));
    Node* c = new_cast(m_, g_, src, out, p);
    c->name = unique_name(m_, "Cast_" + std::string(m_.str(out->name)));
    place_after_definition(c, src);
    ++result_.casts_added;
    casts_.push_back({v, p, out});
    return out;
  }

  int32_t elem_of(const Value* v) const {
    if (!v || v->id >= elem_.size()) return 0;
    if (v->id < prec_.size() && prec_[v->id]) return prec_[v->id];
    return elem_[v->id];
  }

  void place_after_definition(Node* c, Value* src) {
    if (src->producer && src->producer->graph == g_) {
      Node* after = src->producer->next;
      if (after) insert_before(after, c);
      else append_node(g_, c);
    } else if (g_->first) {
      insert_before(g_->first, c);
    } else {
      append_node(g_, c);
    }
  }

  void insert_casts() {
    // Snapshot the uses first: adding Casts adds uses.
    std::vector<std::pair<Value*, Use>> todo;
    auto scan = [&](Value* v) {
      if (!v || prec_[v->id] == 0) return;
      for (const Use& u : v->uses) todo.push_back({v, u});
    };
    for (ValueInfo& vi : g_->inputs) scan(vi.value);
    for (Value* v : g_->initializers) scan(v);
    for (Node* n : nodes_)
      for (Value* v : n->outputs) scan(v);
    for (auto& [v, u] : todo) {
      // Nodes of subgraphs are not converted: they read float32.
      const int32_t want = u.node->graph == g_ ? wanted(u.node, u.index) : kFloat;
      if (want == prec_[v->id]) continue;
      set_input(u.node, u.index, in_precision(v, want));
    }
    // A body output may name an outer value itself (no node reads it in the body): the body
    // declares and returns float32, so it returns the value's float32 Cast.
    for_each_graph(g_, [&](Graph* g) {
      if (g == g_) return;
      for (ValueInfo& vi : g->outputs) {
        Value* v = vi.value;
        if (!v || v->graph != g_ || v->id >= prec_.size() || prec_[v->id] != plan_.target) continue;
        Value* c = in_precision(v, kFloat);
        --v->graph_output_count;
        ++c->graph_output_count;
        vi.value = c;
      }
    });
  }

  void fix_outputs() {
    for (ValueInfo& vi : g_->outputs) {
      Value* v = vi.value;
      if (!v || prec_[v->id] != plan_.target) continue;
      if (!plan_.keep_io_types) {
        retype(m_, vi.type, plan_.target);
        continue;
      }
      if (v->initializer || !v->producer) continue;
      // The output keeps its name and float32 type: the producer now writes a new value and one
      // Cast back to float32 writes the output (all other readers read the new value).
      Node* p = v->producer;
      Value* nv = new_value(g_, unique_name(m_, std::string(m_.str(v->name)) + (plan_.target == kFloat16 ? "_f16" : "_bf16")));
      nv->type = v->type;
      set_output(p, v->producer_output, nv);
      replace_all_uses(v, nv);
      prec_.resize(m_.value_count, 0);
      elem_.resize(m_.value_count, 0);
      prec_[nv->id] = plan_.target;
      Node* c = new_cast(m_, g_, nv, v, kFloat);
      c->name = unique_name(m_, "Cast_" + std::string(m_.str(v->name)));
      v->type = vi.type ? vi.type : v->type;
      if (v->type && v->type->elem_type != kFloat) {
        Type* t = m_.arena.make<Type>(*v->type);
        t->elem_type = kFloat;
        t->source = Bytes();
        v->type = t;
      }
      if (p->next) insert_before(p->next, c);
      else append_node(g_, c);
      ++result_.casts_added;
    }
  }

  void retype_declarations() {
    for (ValueInfo& vi : g_->value_infos)
      if (vi.value && vi.value->id < prec_.size() && prec_[vi.value->id] == plan_.target) retype(m_, vi.type, plan_.target);
    if (!plan_.keep_io_types)
      for (ValueInfo& vi : g_->inputs)
        if (vi.value && prec_[vi.value->id] == plan_.target) {
          retype(m_, vi.type, plan_.target);
          retype(m_, vi.value->type, plan_.target);
        }
  }

  // A converted Cast whose input already has its target type does nothing: its readers read the
  // input. (A graph output it writes keeps it, so the output keeps its name.)
  void remove_noop_casts() {
    for (Node* n : nodes_) {
      if (!n->alive || !node_converted(n) || m_.str(n->op_type) != "Cast") continue;
      const Attribute* to = n->attribute(m_, "to");
      Value* in = n->inputs.size ? n->inputs[0] : nullptr;
      Value* out = n->outputs.size ? n->outputs[0] : nullptr;
      if (!to || !in || !out || out->is_graph_output()) continue;
      if (elem_of(in) != to->int_or(0)) continue;
      replace_all_uses(out, in);
      remove_node(n);
      ++result_.casts_removed;
    }
  }

  Model& m_;
  const PrecisionPlan& plan_;
  Graph* g_;
  std::vector<Node*> nodes_;
  std::vector<bool> converted_;
  std::vector<int32_t> elem_;  // element type of each value before conversion (by Value::id)
  std::vector<int32_t> prec_;  // float32 values: kFloat or the target after conversion; else 0
  // The Casts made so far (a handful per model: a list, not a map, keeps the library small).
  struct CastMade {
    Value* from;
    int32_t to;
    Value* out;
  };
  std::vector<CastMade> casts_;
  PrecisionResult result_;
};

}  // namespace

Node* new_cast(Model& m, Graph* g, Value* in, Value* out, int32_t to) {
  Node* c = new_node(g, m.intern("Cast"), kNoStr, 1, 1);
  set_input(c, 0, in);
  set_output(c, 0, out);
  set_attr_int(m, c, "to", to);
  return c;
}

double largest_finite(int32_t target) { return target == kBfloat16 ? 3.3895313892515355e38 : 65504.0; }

std::vector<Node*> main_nodes(Model& m) {
  std::vector<Node*> out;
  for (Node* n = m.graph->first; n; n = n->next) out.push_back(n);
  return out;
}

PrecisionResult convert_precision(Model& m, const PrecisionPlan& plan) {
  if (plan.target != kFloat16 && plan.target != kBfloat16)
    fail(Status::kInvalidArgument, "convert: target type must be float16 or bfloat16");
  return Converter(m, plan).run();
}

}  // namespace ofg::convert
