// Provenance (ir/provenance.h): every node of an optimized model names the original nodes it came
// from; folded initializers name the nodes folded into them; optimize.keep_names keeps value names.
#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "convert/opset_convert.h"
#include "ir/provenance.h"
#include "onnx/serialize.h"
#include "passes/pipeline.h"
#include "passes_test_util.h"
#include "support/test_support.h"

namespace ofg::test {
namespace {

// Names every node of the main graph "n<k>" in order (the builder's names say the op too), so the
// expected origins are short; nodes already named by the test ("conv", "ln") keep their names.
void name_nodes(Model& m) {
  int k = 0;
  for (Node* n = m.graph->first; n; n = n->next, ++k) {
    std::string_view old = m.str(n->name);
    if (n->name == kNoStr || old.find('_') != std::string_view::npos) n->name = m.intern("n" + std::to_string(k));
  }
}

// Clears the names the builder gives (`<op>_<k>`): the model then has unnamed nodes, as exports do.
void unname(Model& m) {
  for (Node* n = m.graph->first; n; n = n->next) n->name = kNoStr;
}

std::vector<std::string> origins_of(const Model& m, const Node* n) {
  std::vector<std::string> out;
  for (uint32_t id : n->origins) out.push_back(origin_name(m, id));
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

passes::PipelineReport optimize_with_provenance(std::unique_ptr<Model>& m, std::vector<std::string> only = {},
                                                bool keep_names = false) {
  passes::PipelineOptions o;
  o.only = std::move(only);
  o.provenance = true;
  o.keep_names = keep_names;
  o.check_each_pass = true;
  return passes::optimize(m, o);
}

const std::vector<std::string>* entry(const std::vector<std::pair<std::string, std::vector<std::string>>>& list,
                                      const std::string& key) {
  for (const auto& e : list)
    if (e.first == key) return &e.second;
  return nullptr;
}

TEST(Provenance, ConvBatchNormFusionListsBoth) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, 1, 4, 4});
  Value* y = b.op("Conv", {x, b.initializer("w", {2, 1, 1, 1}, {3.0f, -4.0f})});
  Value* out = b.op("BatchNormalization", {y, b.initializer("s", {2}, {2, 0.5f}), b.initializer("bb", {2}, {0.1f, 0.2f}),
                                            b.initializer("mu", {2}, {1, -1}), b.initializer("var", {2}, {3, 0.25f})},
                    {b.f("epsilon", 1e-5f)});
  b.output(out);
  m->graph->first->name = m->intern("conv");
  m->graph->last->name = m->intern("bn");
  EXPECT_EQ(run_checked(*m, "fuse_conv_batchnorm").changes, 1);
  ASSERT_EQ(m->graph->node_count, 1u);
  EXPECT_EQ(origins_of(*m, out->producer), (std::vector<std::string>{"bn", "conv"}));
}

std::unique_ptr<Model> layer_norm17() {
  auto m = new_model(17);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {"batch", 3, 4});
  Value* mean = b.op("ReduceMean", {x}, {b.ints("axes", {-1})});
  Value* d = b.op("Sub", {x, mean});
  Value* var = b.op("ReduceMean", {b.op("Pow", {d, b.initializer("two", {}, {2.0f})})}, {b.ints("axes", {-1})});
  Value* den = b.op("Sqrt", {b.op("Add", {var, b.initializer("eps", {}, {1e-5f})})});
  Value* y = b.op("Div", {d, den});
  Value* s = b.op("Mul", {y, b.initializer("gamma", {4}, {1, 2, 3, 4})});
  b.output(b.op("Add", {s, b.initializer("beta", {4}, {0.5f, 0, -1, 2})}));
  name_nodes(*m);
  return m;
}

TEST(Provenance, LayerNormFusionListsEveryDecomposedNode) {
  auto m = layer_norm17();
  EXPECT_EQ(run_checked(*m, "fuse_layer_norm").changes, 1);
  ASSERT_EQ(m->graph->node_count, 1u);
  EXPECT_EQ(m->str(m->graph->first->op_type), "LayerNormalization");
  EXPECT_EQ(origins_of(*m, m->graph->first),
            sorted({"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8"}));
}

TEST(Provenance, CommonSubexpressionMergeGoesToTheKeptNode) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {4});
  Value* r1 = b.op("Relu", {x});
  Value* r2 = b.op("Relu", {x});
  b.output(b.op("Neg", {r1}));
  b.output(b.op("Abs", {r2}));
  name_nodes(*m);
  EXPECT_EQ(run_checked(*m, "eliminate_common_subexpressions").changes, 1);
  EXPECT_EQ(origins_of(*m, r1->producer), (std::vector<std::string>{"n0", "n1"}));
  EXPECT_EQ(origins_of(*m, m->graph->last), (std::vector<std::string>{"n3"}));
}

TEST(Provenance, FoldedConstantsListTheNodesFoldedAway) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2});
  Value* sum = b.op("Add", {b.initializer("a", {2}, {1, 2}), b.initializer("c", {2}, {3, 4})}, {}, "sum");
  Value* neg = b.op("Neg", {sum}, {}, "neg");
  b.output(b.op("Mul", {x, neg}));
  name_nodes(*m);  // n0 Add, n1 Neg, n2 Mul
  passes::PipelineReport rep = optimize_with_provenance(m, {"fold_constants"});
  ASSERT_EQ(m->graph->node_count, 1u);
  const std::vector<std::string>* f = entry(rep.folded, "neg");
  ASSERT_NE(f, nullptr) << rep.to_json();
  EXPECT_EQ(sorted(*f), (std::vector<std::string>{"n0", "n1"}));  // the Neg and the Add before it
  EXPECT_EQ(entry(rep.folded, "sum"), nullptr);  // swept away: not in the output
  ASSERT_NE(entry(rep.provenance, "n2"), nullptr);
  EXPECT_EQ(*entry(rep.provenance, "n2"), (std::vector<std::string>{"n2"}));
  std::string j = rep.to_json();
  EXPECT_NE(j.find("\"provenance\":{\"n2\":[\"n2\"]}"), std::string::npos) << j;
  EXPECT_NE(j.find("\"folded\":{\"neg\":[\"n0\",\"n1\"]}"), std::string::npos) << j;
}

TEST(Provenance, ConstantNodeBecomesAFoldedInitializer) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2});
  Value* k = b.constant("k", {2}, {1, 2});
  b.output(b.op("Add", {x, k}));
  name_nodes(*m);
  passes::PipelineReport rep = optimize_with_provenance(m, {"constants_to_initializers"});
  ASSERT_NE(entry(rep.folded, "k"), nullptr) << rep.to_json();
  EXPECT_EQ(*entry(rep.folded, "k"), (std::vector<std::string>{"n0"}));
}

TEST(Provenance, IdentityRemovalGoesToTheProducer) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2});
  Value* r = b.op("Relu", {x}, {}, "r");
  Value* id = b.op("Identity", {r}, {}, "id_out");
  b.output(b.op("Neg", {id}));
  Value* id2 = b.op("Identity", {b.op("Abs", {x}, {}, "abs_out")}, {}, "y2");
  b.output(id2);  // a graph output: Abs takes over its name
  name_nodes(*m);  // n0 Relu, n1 Identity, n2 Neg, n3 Abs, n4 Identity
  EXPECT_EQ(run_checked(*m, "eliminate_identity_ops").changes, 2);
  EXPECT_EQ(origins_of(*m, r->producer), (std::vector<std::string>{"n0", "n1"}));
  ASSERT_EQ(m->str(id2->producer->op_type), "Abs");
  EXPECT_EQ(origins_of(*m, id2->producer), (std::vector<std::string>{"n3", "n4"}));
}

TEST(Provenance, KeepNamesKeepsTheIdentityThatWouldRenameItsInput) {
  auto build = [] {
    auto m = new_model(13);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, {2});
    Value* id = b.op("Identity", {b.op("Relu", {x}, {}, "r")}, {}, "mid");
    b.output(b.op("Identity", {b.op("Abs", {id}, {}, "abs_out")}, {}, "y"));
    return m;
  };
  auto names = [](Model& m) {
    std::set<std::string> out;
    for (Node* n = m.graph->first; n; n = n->next)
      for (Value* v : n->outputs) out.insert(std::string(m.str(v->name)));
    return out;
  };
  auto plain = build();
  optimize_with_provenance(plain, {"eliminate_identity_ops"});
  EXPECT_EQ(names(*plain), (std::set<std::string>{"r", "y"}));  // abs_out became y
  auto kept = build();
  optimize_with_provenance(kept, {"eliminate_identity_ops"}, true);
  // The Identity reading r goes (its output "mid" is no surviving value, r is); the one that
  // would rename abs_out to y stays.
  EXPECT_EQ(names(*kept), (std::set<std::string>{"r", "abs_out", "y"}));
  EXPECT_EQ(kept->graph->node_count, 3u);
}

// x -> If(true) { then: Neg(x) -> "t_out" } else { Abs(x) } -> "y" -> Exp -> "z".
std::unique_ptr<Model> constant_if() {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2});
  uint8_t one = 1;
  Value* c = b.initializer("cond", kBool, {}, &one, 1);
  Graph* then_g = b.subgraph("then");
  GraphBuilder tb(*m, then_g);
  tb.output(tb.op("Neg", {x}, {}, "t_out"));
  Graph* else_g = b.subgraph("else");
  GraphBuilder eb(*m, else_g);
  eb.output(eb.op("Abs", {x}, {}, "e_out"));
  Node* n = b.node("If", {c}, 1, {b.g("then_branch", then_g), b.g("else_branch", else_g)}, {"y"});
  n->name = m->intern("if0");
  b.output(b.op("Exp", {n->outputs[0]}, {}, "z"));
  recompute_captures(m->graph);
  return m;
}

TEST(Provenance, KeepNamesKeepsABranchResultsName) {
  auto names = [](Model& m) {
    std::set<std::string> out;
    for (Node* n = m.graph->first; n; n = n->next)
      for (Value* v : n->outputs) out.insert(std::string(m.str(v->name)));
    return out;
  };
  auto plain = constant_if();
  optimize_with_provenance(plain, {"inline_constant_if"});
  EXPECT_EQ(names(*plain), (std::set<std::string>{"y", "z"}));  // the Neg writes "y": "t_out" is gone
  auto kept = constant_if();
  passes::PipelineReport rep = optimize_with_provenance(kept, {"inline_constant_if"}, true);
  EXPECT_EQ(names(*kept), (std::set<std::string>{"t_out", "y", "z"}));  // Neg -> "t_out", Identity -> "y"
  // The Identity standing in for the If lists it; the moved Neg keeps its own origin.
  const std::vector<std::string>* id = nullptr;
  for (Node* n = kept->graph->first; n; n = n->next)
    if (kept->str(n->op_type) == "Identity") id = entry(rep.provenance, std::string(kept->str(n->name)));
  ASSERT_NE(id, nullptr) << rep.to_json();
  EXPECT_NE(std::find(id->begin(), id->end(), "if0"), id->end()) << rep.to_json();
}

TEST(Provenance, OpsetConversionNodesComeFromTheConvertedNode) {
  auto m = new_model(17);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 4});
  Node* ln = b.node("LayerNormalization", {x, b.initializer("g", {4}, {1, 2, 3, 4}), b.initializer("bt", {4}, {0, 1, 0, 1})});
  ln->name = m->intern("ln");
  b.output(b.op("Relu", {ln->outputs[0]}));
  name_nodes(*m);  // the Relu is n1
  convert::convert_opset(*m, 16);
  EXPECT_EQ(check_consistency(*m), "");
  ASSERT_GT(m->graph->node_count, 2u);  // LayerNormalization decomposed
  for (Node* n = m->graph->first; n; n = n->next) {
    std::vector<std::string> want = {m->str(n->op_type) == "Relu" && n == m->graph->last ? "n1" : "ln"};
    EXPECT_EQ(origins_of(*m, n), want) << m->str(n->op_type);
  }
}

TEST(Provenance, UnnamedOutputNodesGetNamesAndUnnamedOriginsAreNumbered) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2});
  b.output(b.op("Neg", {b.op("Identity", {x})}));
  unname(*m);
  passes::PipelineReport rep = optimize_with_provenance(m, {"eliminate_identity_ops"});
  ASSERT_EQ(m->graph->node_count, 1u);
  std::string name(m->str(m->graph->first->name));
  EXPECT_EQ(name, "Neg_ofg0");
  ASSERT_EQ(rep.provenance.size(), 1u);
  EXPECT_EQ(rep.provenance[0].first, "Neg_ofg0");
  EXPECT_EQ(rep.provenance[0].second, (std::vector<std::string>{"#1"}));  // the Identity (#0) read a graph input: no node takes its origin
}

TEST(Provenance, NoReportNoNames) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  b.output(b.op("Neg", {b.input("x", kFloat, {2})}));
  unname(*m);
  passes::PipelineOptions o;
  passes::PipelineReport rep = passes::optimize(m, o);
  EXPECT_EQ(m->graph->first->name, kNoStr);
  EXPECT_EQ(rep.to_json().find("provenance"), std::string::npos);
}

// Every shared model: after the default pipeline every output node is traced to nodes of the
// original, by name or "#k".
TEST(Provenance, CompleteOnEverySharedModel) {
  std::string data = data_dir();
  std::vector<std::string> models;
  if (!data.empty())
    for (const char* suite : {"/models", "/realworld/models"})
      for (const std::string& dir : folders_with(data + suite, "model.onnx")) models.push_back(dir + "/model.onnx");
  if (models.empty()) GTEST_SKIP() << "no shared models (ONNXFORGE_DATA)";
  for (const std::string& path : models) {
    std::unique_ptr<Model> m = load_model_file(path, LoadOptions{});
    std::set<std::string> original;
    uint32_t k = 0;
    for_each_graph(m->graph, [&](Graph* g) {
      for (Node* n = g->first; n; n = n->next, ++k)
        original.insert(n->name != kNoStr && !m->str(n->name).empty() ? std::string(m->str(n->name)) : "#" + std::to_string(k));
    });
    passes::PipelineOptions o;
    o.provenance = true;
    passes::PipelineReport rep = passes::optimize(m, o);
    size_t traced = 0, nodes = 0;
    std::set<std::string> represented;  // original nodes some output node or folded initializer lists
    for_each_graph(m->graph, [&](Graph* g) { nodes += g->node_count; });
    for (const auto& [node, origins] : rep.provenance) {
      if (!origins.empty()) ++traced;
      else ADD_FAILURE() << path << ": output node '" << node << "' has no origin";
      for (const std::string& o : origins) EXPECT_TRUE(original.count(o)) << path << ": '" << o << "' is no original node";
      represented.insert(origins.begin(), origins.end());
    }
    for (const auto& [init, origins] : rep.folded) {
      for (const std::string& o : origins) EXPECT_TRUE(original.count(o)) << path << ": folded '" << o << "'";
      represented.insert(origins.begin(), origins.end());
    }
    std::printf("provenance %s: %zu of %zu output nodes traced (%zu entries), %zu folded initializers; %zu of %u original nodes listed\n",
                path.substr(data.size()).c_str(), traced, nodes, rep.provenance.size(), rep.folded.size(), represented.size(), k);
  }
}

}  // namespace
}  // namespace ofg::test
