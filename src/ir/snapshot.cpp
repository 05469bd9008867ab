#include "ir/snapshot.h"

#include <unordered_map>

namespace ofg {

namespace {

// A recipe of the original, computed into the copy's arena when the copy reads it (the original's
// recipe object itself would put the bytes in the original's arena).
class ForwardedRecipe final : public TensorRecipe {
 public:
  ForwardedRecipe(Arena* arena, const TensorRecipe* inner) : TensorRecipe(arena), inner_(inner) {}
  void fill(size_t offset, size_t size, uint8_t* dst) const override { inner_->fill(offset, size, dst); }
  void release_sources() const override { inner_->release_sources(); }

 private:
  const TensorRecipe* inner_;
};

class Copier {
 public:
  Copier(const Model& src, Model& dst, bool independent) : src_(src), dst_(dst), independent_(independent) {}

  void run() {
    for (StrId id = 0; id < src_.strings.size(); ++id) dst_.intern(src_.str(id));
    dst_.ir_version = src_.ir_version;
    dst_.has_ir_version = src_.has_ir_version;
    dst_.producer_name = src_.producer_name;
    dst_.producer_version = src_.producer_version;
    dst_.domain = src_.domain;
    dst_.model_version = src_.model_version;
    dst_.has_model_version = src_.has_model_version;
    dst_.doc_string = src_.doc_string;
    dst_.value_count = src_.value_count;
    dst_.opsets = vec(src_.opsets, [&](OpsetId o) {
      o.extra = extras(o.extra);
      return o;
    });
    dst_.metadata = vec(src_.metadata, [&](StringPair p) {
      p.extra = extras(p.extra);
      return p;
    });
    dst_.extra = extras(src_.extra);
    dst_.backings = src_.backings;
    dst_.source_path = src_.source_path;
    dst_.loaded_external_data = src_.loaded_external_data;
    dst_.external_locations = src_.external_locations;
    // Provenance (StrIds are equal: the strings were interned in the same order above).
    dst_.origin_names = vec(src_.origin_names, [](StrId id) { return id; });
    dst_.provenance_seeded = src_.provenance_seeded;
    dst_.folded_origins = src_.folded_origins;
    if (src_.graph) dst_.graph = graph(src_.graph, nullptr, nullptr);
    dst_.functions = vec(src_.functions, [&](Function* f) {
      Function* c = dst_.arena.make<Function>(*f);
      c->attribute_names = vec(f->attribute_names, [](StrId s) { return s; });
      c->opsets = vec(f->opsets, [&](OpsetId o) {
        o.extra = extras(o.extra);
        return o;
      });
      if (f->body) c->body = graph(f->body, nullptr, nullptr);
      c->extra = extras(f->extra);
      return c;
    });
    // Now that every node and graph has its copy: where each value lives and who reads it, in
    // the original's order.
    for (auto& [from, to] : values_) {
      to->graph = from->graph ? mapped(graphs_, from->graph) : nullptr;
      for (const Use& u : from->uses) {
        auto it = nodes_.find(u.node);
        if (it != nodes_.end()) to->uses.push(dst_.arena, Use{it->second, u.index});
      }
    }
  }

 private:
  template <class K, class V>
  static V* mapped(const std::unordered_map<const K*, V*>& m, const K* k) {
    auto it = m.find(k);
    return it == m.end() ? nullptr : it->second;
  }
  // The copy of t (null for null): the one made before, or a new member-wise copy in the
  // destination arena, recorded in `m` first (so that cycles find it) and then completed by
  // fill(copy), which replaces the pointers that still lead into the source.
  template <class T, class Fill>
  T* copy_once(std::unordered_map<const T*, T*>& m, const T* t, Fill fill) {
    if (!t) return nullptr;
    if (T* done = mapped(m, t)) return done;
    T* c = dst_.arena.make<T>(*t);
    m[t] = c;
    fill(c);
    return c;
  }

  template <class T, class F>
  ArenaVec<T> vec(const ArenaVec<T>& from, F&& each) {
    ArenaVec<T> out;
    if (from.size == 0) return out;
    out.grow(dst_.arena, from.size);
    for (const T& x : from) out.data[out.size++] = each(x);
    return out;
  }

  template <class T, class F>
  Span<T> span(const Span<T>& from, F&& each) {
    Span<T> out;
    if (from.size == 0) return out;
    out.data = dst_.arena.make_array<T>(from.size);
    out.size = from.size;
    for (uint32_t i = 0; i < from.size; ++i) out.data[i] = each(from.data[i]);
    return out;
  }

  // Bytes stay where they are unless the copy must not depend on the original's arena.
  Bytes bytes(Bytes b) {
    if (!independent_ || b.size == 0 || !src_.arena.contains(b.data)) return b;
    return Bytes{dst_.arena.copy_array(b.data, b.size), b.size};
  }

  Extras extras(const Extras& e) {
    return vec(e, [&](RawField f) {
      f.encoded = bytes(f.encoded);
      return f;
    });
  }

  Type* type(const Type* t) {
    return copy_once(types_, t, [&](Type* c) {
      c->dims = span(t->dims, [&](Dim d) {
        d.extra = extras(d.extra);
        return d;
      });
      c->shape_extra = extras(t->shape_extra);
      c->elem = type(t->elem);
      c->inner_extra = extras(t->inner_extra);
      c->extra = extras(t->extra);
      c->source = bytes(t->source);
    });
  }

  Tensor* tensor(const Tensor* t) {
    return copy_once(tensors_, t, [&](Tensor* c) {
      c->dims = span(t->dims, [](int64_t d) { return d; });
      if (t->recipe && independent_) {
        // Computed into the copy, without materialising the original's tensor.
        auto* p = static_cast<uint8_t*>(dst_.arena.allocate(t->data.size ? t->data.size : 1, 64));
        t->read(0, t->data.size, p);
        c->data = Bytes{p, t->data.size};
        c->recipe = nullptr;
      } else if (t->recipe) {
        c->recipe = dst_.arena.make<ForwardedRecipe>(&dst_.arena, t->recipe);
      } else {
        c->data = bytes(t->data);
      }
      c->strings = span(t->strings, [&](Bytes b) { return bytes(b); });
      c->source = bytes(t->source);
      c->extra = extras(t->extra);
    });
  }

  Value* value(const Value* v) {
    if (!v) return nullptr;
    if (Value* done = mapped(values_, v)) return done;
    Value* c = dst_.arena.make<Value>();
    values_[v] = c;
    c->name = v->name;
    c->type = type(v->type);
    c->initializer = tensor(v->initializer);
    c->graph_output_count = v->graph_output_count;
    c->is_graph_input = v->is_graph_input;
    c->id = v->id;
    // producer: set by the node that makes it (a value left by a removed node has none);
    // graph and uses: set once everything is copied.
    return c;
  }

  ValueInfo value_info(const ValueInfo& vi) {
    ValueInfo c = vi;
    c.value = value(vi.value);
    c.type = type(vi.type);
    c.extra = extras(vi.extra);
    return c;
  }

  Attribute attribute(const Attribute& a, Graph* g, Node* owner) {
    Attribute c = a;
    c.s = bytes(a.s);
    c.t = tensor(a.t);
    c.g = a.g ? graph(a.g, g, owner) : nullptr;
    c.floats = span(a.floats, [](float f) { return f; });
    c.ints = span(a.ints, [](int64_t i) { return i; });
    c.strings = span(a.strings, [&](Bytes b) { return bytes(b); });
    c.tensors = span(a.tensors, [&](Tensor* t) { return tensor(t); });
    c.graphs = span(a.graphs, [&](Graph* sub) { return graph(sub, g, owner); });
    c.extra = extras(a.extra);
    return c;
  }

  Graph* graph(const Graph* from, Graph* parent, Node* owner) {
    Graph* g = dst_.arena.make<Graph>();
    graphs_[from] = g;
    g->model = &dst_;
    g->parent = parent;
    g->owner = owner;
    g->name = from->name;
    g->doc_string = from->doc_string;
    g->inputs = vec(from->inputs, [&](const ValueInfo& vi) { return value_info(vi); });
    g->outputs = vec(from->outputs, [&](const ValueInfo& vi) { return value_info(vi); });
    g->value_infos = vec(from->value_infos, [&](const ValueInfo& vi) { return value_info(vi); });
    g->initializers = vec(from->initializers, [&](Value* v) { return value(v); });
    g->captures = vec(from->captures, [&](Value* v) { return value(v); });
    g->extra = extras(from->extra);
    for (const Node* n = from->first; n; n = n->next) {
      if (!n->alive) continue;
      Node* c = dst_.arena.make<Node>();
      nodes_[n] = c;
      c->op_type = n->op_type;
      c->domain = n->domain;
      c->name = n->name;
      c->doc_string = n->doc_string;
      c->origins.data = dst_.arena.copy_array(n->origins.data, n->origins.size);
      c->origins.size = n->origins.size;
      c->graph = g;
      c->inputs = span(n->inputs, [&](Value* v) { return value(v); });
      c->outputs = span(n->outputs, [&](Value* v) { return value(v); });
      for (uint32_t i = 0; i < c->outputs.size; ++i)
        if (Value* o = c->outputs[i]) {
          o->producer = c;
          o->producer_output = i;
        }
      c->attributes = vec(n->attributes, [&](const Attribute& a) { return attribute(a, g, c); });
      c->extra = extras(n->extra);
      c->prev = g->last;
      if (g->last) g->last->next = c;
      else g->first = c;
      g->last = c;
      ++g->node_count;
    }
    return g;
  }

  const Model& src_;
  Model& dst_;
  bool independent_;
  std::unordered_map<const Value*, Value*> values_;
  std::unordered_map<const Node*, Node*> nodes_;
  std::unordered_map<const Type*, Type*> types_;
  std::unordered_map<const Tensor*, Tensor*> tensors_;
  std::unordered_map<const Graph*, Graph*> graphs_;
};

// Holds a model for another one that views its memory.
struct ModelBacking final : Backing {
  explicit ModelBacking(std::unique_ptr<Model> m) : model(std::move(m)) {}
  bool release_pages(Bytes b) const override {
    for (const auto& backing : model->backings)
      if (backing->release_pages(b)) return true;
    return false;
  }
  std::unique_ptr<Model> model;
};

}  // namespace

std::unique_ptr<Model> snapshot_model(const Model& m) {
  auto out = std::make_unique<Model>();
  Copier(m, *out, false).run();
  return out;
}

std::unique_ptr<Model> copy_model(const Model& m) {
  auto out = std::make_unique<Model>();
  Copier(m, *out, true).run();
  return out;
}

void keep_alive(Model& owner, std::unique_ptr<Model> m) {
  owner.backings.push_back(std::make_shared<ModelBacking>(std::move(m)));
}

}  // namespace ofg
