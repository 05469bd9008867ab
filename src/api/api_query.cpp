// Read-only questions about a loaded model.
#include <algorithm>
#include <cstddef>
#include <map>

#include "api/guard.h"
#include "api/handles.h"

using namespace ofg;
using namespace ofg::api;

namespace {

const ArenaVec<ValueInfo>& io_list(const ofg_model* m, int32_t kind) {
  if (kind != OFG_INPUT && kind != OFG_OUTPUT) fail(Status::kInvalidArgument, "kind must be OFG_INPUT or OFG_OUTPUT");
  return kind == OFG_INPUT ? m->model->graph->inputs : m->model->graph->outputs;
}

const ValueInfo& io_entry(const ofg_model* m, int32_t kind, size_t index, const char* fn) {
  const ArenaVec<ValueInfo>& list = io_list(m, kind);
  if (index >= list.size)
    fail(Status::kInvalidArgument, std::string(fn) + ": index " + std::to_string(index) + " is out of range (" +
                                       std::to_string(list.size) + (kind == OFG_INPUT ? " inputs)" : " outputs)"));
  return list[index];
}

const Type* declared_type(const ValueInfo& vi) { return vi.type ? vi.type : vi.value->type; }

}  // namespace

namespace {
// Counts nodes of g and all subgraphs.
void count_all(Graph* g, size_t& n) {
  n += g->node_count;
  for (Node* node = g->first; node; node = node->next)
    for (Attribute& a : node->attributes) {
      if (a.g) count_all(a.g, n);
      for (Graph* s : a.graphs) count_all(s, n);
    }
}
}  // namespace

extern "C" {

ofg_status ofg_model_ir_version(const ofg_model* model, int64_t* out) {
  return api_call([&] {
    require(model, "ofg_model_ir_version", "model");
    require(out, "ofg_model_ir_version", "out");
    *out = model->model->ir_version;
  });
}

ofg_status ofg_model_producer(const ofg_model* model, const char** name, const char** version) {
  return api_call([&] {
    require(model, "ofg_model_producer", "model");
    const Model& m = *model->model;
    if (name) *name = m.strings.c_str(m.producer_name);
    if (version) *version = m.strings.c_str(m.producer_version);
  });
}

ofg_status ofg_model_opset_count(const ofg_model* model, size_t* out) {
  return count_call("ofg_model_opset_count", model, "model", out, "out",
                    [](const ofg_model& x) { return x.model->opsets.size; });
}

ofg_status ofg_model_opset(const ofg_model* model, size_t index, const char** domain, int64_t* version) {
  return api_call([&] {
    require(model, "ofg_model_opset", "model");
    const Model& m = *model->model;
    if (index >= m.opsets.size) fail(Status::kInvalidArgument, "ofg_model_opset: index " + std::to_string(index) + " is out of range");
    if (domain) *domain = m.strings.c_str(m.opsets[index].domain);
    if (version) *version = m.opsets[index].version;
  });
}

const char* ofg_elem_type_name(int32_t elem_type) { return dtype_name(elem_type); }

ofg_status ofg_model_io_count(const ofg_model* model, int32_t kind, size_t* out) {
  return api_call([&] {
    require(model, "ofg_model_io_count", "model");
    require(out, "ofg_model_io_count", "out");
    *out = io_list(model, kind).size;
  });
}

ofg_status ofg_model_io(const ofg_model* model, int32_t kind, size_t index, ofg_value_desc* out) {
  return api_call([&] {
    require(model, "ofg_model_io", "model");
    require(out, "ofg_model_io", "out");
    if (out->struct_size < sizeof(uint32_t) + sizeof(const char*) + 2 * sizeof(int32_t))
      fail(Status::kInvalidArgument, "ofg_model_io: out->struct_size is smaller than the first version of ofg_value_desc");
    const ValueInfo& vi = io_entry(model, kind, index, "ofg_model_io");
    const Type* t = declared_type(vi);
    out->name = model->model->strings.c_str(vi.value->name);
    out->elem_type = (t && t->is_tensor()) ? t->elem_type : 0;
    out->rank = (t && t->is_tensor()) ? t->rank() : -1;
    // Appended field: callers built against the first version have no room for it.
    if (out->struct_size >= offsetof(ofg_value_desc, kind) + sizeof(int32_t)) {
      int32_t k = 0;
      if (t && t->kind == Type::kTensor) k = OFG_VALUE_TENSOR;
      else if (t && t->kind == Type::kSequence) k = OFG_VALUE_SEQUENCE;
      else if (t && t->kind == Type::kOptional) k = OFG_VALUE_OPTIONAL;
      out->kind = k;
    }
  });
}

ofg_status ofg_model_io_dim(const ofg_model* model, int32_t kind, size_t index, size_t dim, int64_t* value,
                            const char** symbol) {
  return api_call([&] {
    require(model, "ofg_model_io_dim", "model");
    const ValueInfo& vi = io_entry(model, kind, index, "ofg_model_io_dim");
    const Type* t = declared_type(vi);
    if (!t || !t->shape_known() || dim >= t->dims.size)
      fail(Status::kInvalidArgument, "ofg_model_io_dim: dimension " + std::to_string(dim) + " does not exist");
    const Dim& d = t->dims[dim];
    if (value) *value = d.has_value ? d.value : -1;
    if (symbol) *symbol = d.param != kNoStr ? model->model->strings.c_str(d.param) : nullptr;
  });
}

ofg_status ofg_model_node_count(const ofg_model* model, int32_t include_subgraphs, size_t* out) {
  return api_call([&] {
    require(model, "ofg_model_node_count", "model");
    require(out, "ofg_model_node_count", "out");
    size_t n = 0;
    if (include_subgraphs) count_all(model->model->graph, n);
    else n = model->model->graph->node_count;
    *out = n;
  });
}

ofg_status ofg_model_op_histogram_count(const ofg_model* model, size_t* out) {
  return api_call([&] {
    require(model, "ofg_model_op_histogram_count", "model");
    require(out, "ofg_model_op_histogram_count", "out");
    const Model& m = *model->model;
    std::map<std::pair<StrId, StrId>, size_t> counts;
    for (Node* n = m.graph->first; n; n = n->next) {
      StrId domain = is_default_domain(m, n->domain) ? m.strings.find("") : n->domain;
      ++counts[{domain, n->op_type}];
    }
    std::vector<ofg_model::HistogramEntry> entries;
    for (auto& kv : counts)
      entries.push_back({std::string(m.str(kv.first.first)), std::string(m.str(kv.first.second)), kv.second});
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
      if (a.count != b.count) return a.count > b.count;
      if (a.domain != b.domain) return a.domain < b.domain;
      return a.op_type < b.op_type;
    });
    const_cast<ofg_model*>(model)->histogram = std::move(entries);
    *out = model->histogram.size();
  });
}

ofg_status ofg_model_op_histogram_entry(const ofg_model* model, size_t index, const char** domain, const char** op_type,
                                        size_t* count) {
  return api_call([&] {
    require(model, "ofg_model_op_histogram_entry", "model");
    if (index >= model->histogram.size())
      fail(Status::kInvalidArgument, "ofg_model_op_histogram_entry: index " + std::to_string(index) +
                                         " is out of range (call ofg_model_op_histogram_count first)");
    const auto& e = model->histogram[index];
    if (domain) *domain = e.domain.c_str();
    if (op_type) *op_type = e.op_type.c_str();
    if (count) *count = e.count;
  });
}

ofg_status ofg_model_initializer_stats(const ofg_model* model, size_t* count, uint64_t* bytes) {
  return api_call([&] {
    require(model, "ofg_model_initializer_stats", "model");
    const Graph* g = model->model->graph;
    uint64_t total = 0;
    for (const Value* v : g->initializers) {
      const Tensor* t = v->initializer;
      if (t->data_type == kString)
        for (Bytes s : t->strings) total += s.size;
      else
        total += t->data.size;
    }
    if (count) *count = g->initializers.size;
    if (bytes) *bytes = total;
  });
}

}  // extern "C"
