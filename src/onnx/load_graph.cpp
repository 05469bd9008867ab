// GraphProto, NodeProto and FunctionProto: values defined and resolved by name through the
// scopes of the graphs, nodes put in order.
#include "ir/graph_ops.h"
#include "onnx/loader.h"

namespace ofg::load {

Value* Loader::lookup(Scope* scope, StrId name) {
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

void Loader::define(Scope& scope, Value* v, const char* what) {
  if (!scope.put(v->name, v))
    invalid("graph '" + name_of(scope.graph->name) + "': " + what + " '" + name_of(v->name) +
            "' reuses a name already defined in this graph");
}

Graph* Loader::graph(Bytes b, Scope* parent_scope, Node* owner, int depth) {
  if (depth > kMaxGraphDepth) fail(Status::kLimit, ctx_ + ": subgraphs nested deeper than " + std::to_string(kMaxGraphDepth));
  Graph* g = a_.make<Graph>();
  g->model = &m_;
  g->parent = parent_scope ? parent_scope->graph : nullptr;
  g->owner = owner;
  std::vector<Bytes> nodes, inits, inputs, outputs, infos;
  Reader r(b, &ctx_);
  uint32_t f, wt;
  while (r.next(f, wt)) {
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

PendingNode Loader::node_fields(Bytes b, Graph* g, Scope& scope) {
  Node* n = a_.make<Node>();
  n->graph = g;
  PendingNode p{n, {}, {}};
  std::vector<StrId> outputs;
  Reader r(b, &ctx_);
  uint32_t f, wt;
  while (r.next(f, wt)) {
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

void Loader::resolve_node(PendingNode& p, Scope& scope, int depth) {
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
void Loader::check_order(Graph* g, const std::string& gname) {
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

Function* Loader::function(Bytes b) {
  Function* fn = a_.make<Function>();
  Graph* body = a_.make<Graph>();
  body->model = &m_;
  fn->body = body;
  std::vector<StrId> inputs, outputs;
  std::vector<Bytes> nodes;
  Reader r(b, &ctx_);
  uint32_t f, wt;
  while (r.next(f, wt)) {
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

}  // namespace ofg::load
