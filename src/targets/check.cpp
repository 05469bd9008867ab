// The target checker: walks every graph and tests each node against its profile entry.
#include "targets/check.h"

#include <algorithm>

#include "exec/infer_types.h"
#include "ir/ir.h"
#include "ir/json.h"

namespace ofg::targets {
namespace {

bool is_default_domain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

struct Checker {
  const Model& m;
  const Profile& p;
  const exec::TypeInference& types;
  int64_t opset;
  CheckResult& out;

  std::string str(StrId id) const { return m.strings.c_str(id); }

  // A value known at conversion time: an initializer or the output of a Constant node.
  static bool is_constant(const Value* v) {
    if (!v) return true;  // an omitted optional input is no dynamic tensor
    if (v->is_constant()) return true;
    const Node* n = v->producer;
    return n && n->graph && n->graph->model &&
           std::string(n->graph->model->strings.c_str(n->op_type)) == "Constant" &&
           is_default_domain(n->graph->model->strings.c_str(n->domain));
  }

  // The constant's tensor (initializer or Constant's value attribute), or null.
  const Tensor* constant_tensor(const Value* v) const {
    if (v->initializer) return v->initializer;
    if (const Node* n = v->producer)
      if (const Attribute* a = n->attribute(m, "value")) return a->t;
    return nullptr;
  }

  // A Constant given by value_int / value_ints / value_float / value_floats: true when every
  // element is zero (a value tensor is handled by constant_tensor).
  bool constant_attr_is_zero(const Value* v) const {
    const Node* n = v->producer;
    if (!n) return false;
    for (const char* name : {"value_int", "value_ints", "value_float", "value_floats"}) {
      const Attribute* a = n->attribute(m, name);
      if (!a) continue;
      for (size_t i = 0; i < a->ints.size; ++i)
        if (a->ints[i]) return false;
      for (size_t i = 0; i < a->floats.size; ++i)
        if (a->floats[i] != 0.0f) return false;
      return a->int_or(0) == 0 && a->float_or(0.0f) == 0.0f;
    }
    return false;
  }

  bool all_zero(const Tensor* t) const {
    Bytes b = t->bytes();
    for (size_t i = 0; i < b.size; ++i)
      if (b.data[i]) return false;
    return true;
  }

  std::string attr_text(const Attribute& a) const {
    if (a.has_string()) return std::string(a.s.view());
    if (a.type == Attribute::kInt || (a.present & Attribute::kI)) return std::to_string(a.i);
    if (a.type == Attribute::kFloat || (a.present & Attribute::kF)) return std::to_string(a.f);
    return "";  // lists, tensors, graphs: no rule compares them
  }

  void add(const Node* n, const std::string& graph, const std::string& rule, const std::string& msg) {
    std::string d = str(n->domain);
    out.findings.push_back({str(n->name), is_default_domain(d) ? str(n->op_type) : d + ":" + str(n->op_type), graph,
                            rule, msg});
  }

  void check_node(const Node* n, const std::string& graph) {
    std::string domain = str(n->domain), op = str(n->op_type);
    if (is_default_domain(domain)) domain.clear();
    std::string shown = domain.empty() ? op : domain + ":" + op;
    size_t before = out.findings.size();
    const OpEntry* e = p.find(domain, op);
    if (!e) {
      add(n, graph, "op", shown + " is not supported by " + p.name);
    } else {
      if (domain.empty() && opset && ((e->since && opset < e->since) || (e->until && opset > e->until)))
        add(n, graph, "opset",
            shown + " at opset " + std::to_string(opset) + ": " + p.name + " takes it at opsets " +
                (e->since ? std::to_string(e->since) : std::string("1")) + " to " +
                (e->until ? std::to_string(e->until) : std::string("newest")));
      for (const OpRule& r : e->rules) check_rule(n, r, shown, graph);
    }
    if (out.findings.size() > before) ++out.illegal_nodes;
  }

  void check_rule(const Node* n, const OpRule& r, const std::string& shown, const std::string& graph) {
    auto input = [&](int i) -> const Value* { return i < static_cast<int>(n->inputs.size) ? n->inputs[i] : nullptr; };
    switch (r.kind) {
      case OpRule::kAttr: {
        const Attribute* a = n->attribute(m, r.attr);
        if (!a) return;  // absent: the ONNX default (profiles list values, defaults included)
        std::string v = attr_text(*a);
        if (std::find(r.values.begin(), r.values.end(), v) == r.values.end())
          add(n, graph, "attribute", shown + " " + r.attr + "=" + v + ": " + p.name + " allows " + join(r.values));
        return;
      }
      case OpRule::kConst: {
        const Value* v = input(r.input);
        if (v && !is_constant(v))
          add(n, graph, "constant", shown + " input " + std::to_string(r.input) + " ('" + str(v->name) + "') must be constant for " + p.name);
        return;
      }
      case OpRule::kZero: {
        const Value* v = input(r.input);
        if (!v) return;
        bool constant = is_constant(v), zero = false;
        if (constant) {
          const Tensor* t = constant_tensor(v);
          zero = t ? all_zero(t) : constant_attr_is_zero(v);
        }
        if (!zero)
          add(n, graph, "zero_point", shown + " input " + std::to_string(r.input) + " ('" + str(v->name) + "') must be " +
                                          (constant ? "all zeros" : "a constant of zeros") + " for " + p.name);
        return;
      }
      case OpRule::kTypes: {
        const Value* v = input(r.input);
        if (!v) return;
        int32_t et = 0;
        if (const exec::IType* t = types.type_of(v)) et = t->elem;
        if (!et && v->type && v->type->is_tensor()) et = v->type->elem_type;
        if (!et || std::find(r.types.begin(), r.types.end(), et) != r.types.end()) return;
        std::vector<std::string> names;
        for (int32_t t : r.types) names.push_back(dtype_name(t));
        add(n, graph, "dtype", shown + " input " + std::to_string(r.input) + " is " + dtype_name(et) + ": " + p.name +
                                   " takes " + join(names));
        return;
      }
      case OpRule::kRank: {
        const Value* v = input(0);
        if (!v) return;
        int rank = -1;
        if (const exec::IType* t = types.type_of(v)) rank = t->rank();
        if (rank < 0 && v->type && v->type->is_tensor()) rank = v->type->rank();
        if (rank < 0 || (rank >= r.rank_lo && rank <= r.rank_hi)) return;
        add(n, graph, "rank", shown + " input 0 has rank " + std::to_string(rank) + ": " + p.name + " takes rank " +
                                  std::to_string(r.rank_lo) + (r.rank_hi != r.rank_lo ? " to " + std::to_string(r.rank_hi) : ""));
        return;
      }
    }
  }

  void walk(const Graph* g, const std::string& path) {
    for (const Node* n = g->first; n; n = n->next) {
      ++out.nodes;
      check_node(n, path);
      for (const Attribute& a : n->attributes) {
        std::string sub = (path.empty() ? "" : path + "/") + str(n->name) + "/" + str(a.name);
        if (a.g) walk(a.g, sub);
        for (const Graph* s : a.graphs) walk(s, sub);
      }
    }
  }
};

}  // namespace

CheckResult check_model(const Model& m, const Profile& p) {
  CheckResult out;
  out.target = p.name;
  for (const OpsetId& o : m.opsets)
    if (is_default_domain(m.strings.c_str(o.domain))) out.model_opset = o.version;
  if (out.model_opset && p.opset_lo &&
      (out.model_opset < p.opset_lo || (p.opset_hi && out.model_opset > p.opset_hi)))
    out.findings.push_back({"", "", "", "model_opset",
                            "the model's opset " + std::to_string(out.model_opset) + " is outside " + p.name + "'s " +
                                std::to_string(p.opset_lo) + " to " + (p.opset_hi ? std::to_string(p.opset_hi) : std::string("newest"))});
  // Inference only reads the model here (write = false); it takes a non-const model because it
  // interns the names of symbolic dims it makes up, which changes no value the model computes.
  exec::TypeInference types(const_cast<Model&>(m));
  types.run(false);
  Checker c{m, p, types, out.model_opset, out};
  c.walk(m.graph, "");
  return out;
}

namespace {

// `,"key":"value"` (or without the comma first) appended to s.
void field(std::string& s, const char* key, const std::string& v, bool first = false) {
  s += first ? "\"" : ",\"";
  s += key;
  s += "\":";
  s += json::string(v);
}

void number(std::string& s, const char* key, int64_t v) {
  s += ",\"";
  s += key;
  s += "\":";
  s += std::to_string(v);
}

}  // namespace

std::string check_json(const CheckResult& r) {
  std::string s = "{";
  field(s, "target", r.target, true);
  number(s, "model_opset", r.model_opset);
  number(s, "nodes", static_cast<int64_t>(r.nodes));
  number(s, "illegal_nodes", static_cast<int64_t>(r.illegal_nodes));
  s += r.findings.empty() ? ",\"legal\":true,\"findings\":[" : ",\"legal\":false,\"findings\":[";
  for (size_t i = 0; i < r.findings.size(); ++i) {
    const Finding& f = r.findings[i];
    s += i ? ",{" : "{";
    field(s, "node", f.node, true);
    field(s, "op", f.op);
    field(s, "graph", f.graph);
    field(s, "rule", f.rule);
    field(s, "message", f.message);
    s += "}";
  }
  return s + "]}";
}

std::string targets_json() {
  std::string s = "{\"targets\":[";
  bool first = true;
  for (const Profile& p : builtin_profiles()) {
    s += first ? "{" : ",{";
    first = false;
    field(s, "name", p.name, true);
    field(s, "title", p.title);
    field(s, "source", p.source);
    field(s, "url", p.url);
    field(s, "version", p.version);
    number(s, "opset_min", p.opset_lo);
    number(s, "opset_max", p.opset_hi);
    number(s, "ops", static_cast<int64_t>(p.ops.size()));
    s += "}";
  }
  s += "],\"generic\":\"opset:N\"";
  number(s, "generic_min", kGenericOpsetLo);
  number(s, "generic_max", kGenericOpsetHi);
  return s + "}";
}

}  // namespace ofg::targets
