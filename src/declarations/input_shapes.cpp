// The input shapes a user fixes (optimize.input_shapes, CLI --input-shape): parsing and applying them.
#include "declarations/declarations.h"

#include "ir/error.h"
#include "ir/graph_ops.h"

namespace ofg::declarations {

std::vector<std::pair<std::string, std::vector<int64_t>>> parse_input_shapes(const std::string& spec) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> out;
  size_t start = 0;
  while (start < spec.size()) {
    size_t end = spec.find(';', start);
    if (end == std::string::npos) end = spec.size();
    std::string entry = spec.substr(start, end - start);
    start = end + 1;
    if (entry.empty()) continue;
    size_t eq = entry.rfind('=');
    if (eq == std::string::npos || eq == 0) fail(Status::kInvalidArgument, "input shape '" + entry + "' is not NAME=d1,d2,...");
    std::string name = entry.substr(0, eq);
    std::vector<int64_t> dims;
    std::string list = entry.substr(eq + 1);
    size_t p = 0;
    while (p <= list.size() && !list.empty()) {
      size_t q = list.find(',', p);
      if (q == std::string::npos) q = list.size();
      std::string d = list.substr(p, q - p);
      if (d.empty() || d.size() > 18 || d.find_first_not_of("0123456789") != std::string::npos)
        fail(Status::kInvalidArgument, "input shape '" + entry + "': '" + d + "' is not a dimension");
      dims.push_back(std::stoll(d));
      p = q + 1;
    }
    out.emplace_back(name, std::move(dims));
  }
  return out;
}

void fix_input_shapes(Model& m, const std::string& spec) {
  for (auto& [name, dims] : parse_input_shapes(spec)) {
    ValueInfo* found = nullptr;
    for (ValueInfo& vi : m.graph->inputs)
      if (m.str(vi.value->name) == name) found = &vi;
    if (!found) fail(Status::kInvalidArgument, "input shape: the model has no input '" + name + "'");
    Value* v = found->value;
    const Type* old = found->type ? found->type : v->type;
    if (!old || !old->is_tensor()) fail(Status::kInvalidArgument, "input shape: '" + name + "' is not a tensor");
    if (old->has_shape && old->rank() != static_cast<int>(dims.size()))
      fail(Status::kInvalidArgument, "input shape: '" + name + "' has rank " + std::to_string(old->rank()) + ", got " +
                                         std::to_string(dims.size()) + " dims");
    if (old->has_shape)
      for (size_t i = 0; i < dims.size(); ++i)
        if (old->dims[i].has_value && old->dims[i].value != dims[i])
          fail(Status::kInvalidArgument, "input shape: dim " + std::to_string(i) + " of '" + name + "' is " +
                                             std::to_string(old->dims[i].value) + ", not " + std::to_string(dims[i]));
    Type* t = make_tensor_type(m, old->elem_type, dims.data(), dims.size());
    v->type = t;
    found->type = nullptr;
    found->has_type = true;
  }
}

}  // namespace ofg::declarations
