// A few-lines way to make graphs in C++: used by the tests, the benchmarks and the demo model.
//
//   auto m = ofg::new_model(17);
//   ofg::GraphBuilder b(*m);
//   Value* x = b.input("x", kFloat, {"batch", 3, 8, 8});
//   Value* w = b.initializer("w", kFloat, {4, 3, 3, 3}, weights);
//   Value* y = b.op("Conv", {x, w}, {b.ints("pads", {1, 1, 1, 1})});
//   b.output(y);
#pragma once
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph_ops.h"
#include "ir/ir.h"

namespace ofg {

// A model with an empty main graph importing the default domain at `opset`.
std::unique_ptr<Model> new_model(int64_t opset, int64_t ir_version = 8);

// One dimension of a declared shape: a number, or a symbolic name.
struct DimSpec {
  DimSpec(int64_t v) : value(v) {}         // NOLINT(runtime/explicit)
  DimSpec(int v) : value(v) {}             // NOLINT(runtime/explicit)
  DimSpec(const char* s) : symbol(s) {}    // NOLINT(runtime/explicit)
  int64_t value = -1;
  std::string symbol;
};

class GraphBuilder {
 public:
  explicit GraphBuilder(Model& m) : m_(m), g_(m.graph) {}
  GraphBuilder(Model& m, Graph* g) : m_(m), g_(g) {}

  Model& model() { return m_; }
  Graph* graph() { return g_; }

  Value* input(const std::string& name, int32_t dtype, std::vector<DimSpec> dims);
  Value* initializer(const std::string& name, int32_t dtype, std::vector<int64_t> dims, const void* data, size_t nbytes);
  Value* initializer(const std::string& name, std::vector<int64_t> dims, const std::vector<float>& values);
  Value* initializer_i64(const std::string& name, std::vector<int64_t> dims, const std::vector<int64_t>& values);
  // A Constant node holding the tensor.
  Value* constant(const std::string& name, std::vector<int64_t> dims, const std::vector<float>& values);
  Value* constant_i64(const std::string& name, std::vector<int64_t> dims, const std::vector<int64_t>& values);

  // Attribute values for node()/op().
  Attribute ints(const char* name, std::vector<int64_t> v);
  Attribute i(const char* name, int64_t v);
  Attribute f(const char* name, float v);
  Attribute floats(const char* name, std::vector<float> v);
  Attribute s(const char* name, const std::string& v);
  Attribute strings(const char* name, const std::vector<std::string>& v);
  Attribute t(const char* name, Tensor* v);
  Attribute g(const char* name, Graph* v);

  // Appends a node; inputs may contain nullptr for omitted optional inputs. Outputs get fresh
  // unique names unless given.
  Node* node(const std::string& op_type, std::vector<Value*> inputs, uint32_t n_outputs = 1,
             std::vector<Attribute> attrs = {}, std::vector<std::string> output_names = {},
             const std::string& domain = "");
  Value* op(const std::string& op_type, std::vector<Value*> inputs, std::vector<Attribute> attrs = {},
            const std::string& output_name = "");

  void output(Value* v);
  // Declares v's type (elem type and shape, -1 dims are unknown) for graph inputs/outputs.
  void set_type(Value* v, int32_t dtype, std::vector<DimSpec> dims);

  // A new, empty subgraph whose parent is this builder's graph (for If/Loop/Scan bodies).
  Graph* subgraph(const std::string& name);

 private:
  Type* make_type(int32_t dtype, const std::vector<DimSpec>& dims);
  Attribute attribute(const char* name, int32_t kind);
  Model& m_;
  Graph* g_;
};

}  // namespace ofg
