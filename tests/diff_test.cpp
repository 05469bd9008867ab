// The graph diff (src/diff, ofg_diff_json; issue 24 part 4): the node matcher on small built
// graphs (identical, a fused pair through provenance and without it, a renamed output, a changed
// initializer, a split), reading provenance out of a report, the C ABI's errors, and a shared
// model optimized by the pipeline whose every node is matched.
#include <gtest/gtest.h>

#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "diff/diff.h"
#include "diff/provenance.h"
#include "ir/builder.h"
#include "ir/error.h"
#include "onnxforge.h"
#include "support/test_support.h"

using namespace ofg;
using namespace ofg::diff;

namespace {

void name_node(Model& m, Value* out, const char* name) { out->producer->name = m.intern(name); }

// x -> Conv(w) "c1" -> Add(bias) "a1" -> Relu "r1" -> y
std::unique_ptr<Model> conv_add_relu(float w0 = 1.0f) {
  auto m = new_model(17);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, 2, 4, 4});
  Value* w = b.initializer("w", {3, 2, 1, 1}, {w0, 2, 3, 4, 5, 6});
  Value* bias = b.initializer("bias", {1, 3, 1, 1}, {0.5f, 0.25f, 0.125f});
  Value* c = b.op("Conv", {x, w}, {}, "c");
  name_node(*m, c, "c1");
  Value* t = b.op("Add", {c, bias}, {}, "t");
  name_node(*m, t, "a1");
  Value* y = b.op("Relu", {t}, {}, "y");
  name_node(*m, y, "r1");
  b.output(y);
  return m;
}

// The same computed with Conv's bias input: x -> Conv(w, b) "c1" -> Relu "r1" -> y. The Conv's
// output is named `conv_out` ("t" keeps the name the Add's output had, as the pipeline does).
std::unique_ptr<Model> conv_bias_relu(const std::string& conv_out) {
  auto m = new_model(17);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, 2, 4, 4});
  Value* w = b.initializer("w", {3, 2, 1, 1}, {1, 2, 3, 4, 5, 6});
  Value* bias = b.initializer("b_folded", {3}, {0.5f, 0.25f, 0.125f});
  Value* c = b.op("Conv", {x, w, bias}, {}, conv_out);
  name_node(*m, c, "c1");
  Value* y = b.op("Relu", {c}, {}, "y");
  name_node(*m, y, "r1");
  b.output(y);
  return m;
}

std::vector<std::string> names(const std::vector<NodeRef>& v) {
  std::vector<std::string> out;
  for (const NodeRef& r : v) out.push_back(r.name);
  return out;
}

TEST(Diff, IdenticalModelsHaveNoDifference) {
  auto a = conv_add_relu();
  auto b = conv_add_relu();
  Result r = diff_models(*a, *b, nullptr);
  EXPECT_TRUE(r.identical());
  EXPECT_EQ(r.same, 3u);
  EXPECT_EQ(r.b_matched(), 3u);
  EXPECT_EQ(r.by_output_name, 3u);
  EXPECT_TRUE(r.changed.empty() && r.added.empty() && r.removed.empty() && r.fused.empty());
  EXPECT_NE(diff_json(r).find("\"identical\":true"), std::string::npos);
}

TEST(Diff, ProvenanceMatchesAFusionTheNamesDoNotShow) {
  // B renamed every value: names alone cannot match the Conv.
  auto a = conv_add_relu();
  auto b = conv_bias_relu("fresh");
  Provenance p = {{"c1", {"c1", "a1"}}, {"r1", {"r1"}}};
  Result r = diff_models(*a, *b, &p);
  EXPECT_TRUE(r.with_provenance);
  ASSERT_EQ(r.fused.size(), 1u);
  EXPECT_EQ(r.fused[0].one.name, "c1");
  EXPECT_EQ(r.fused[0].how, "provenance");
  EXPECT_EQ(names(r.fused[0].many), (std::vector<std::string>{"c1", "a1"}));
  // Relu reads the fused node's output, which stands for the Add's: unchanged.
  EXPECT_EQ(r.same, 1u);
  EXPECT_TRUE(r.changed.empty()) << diff_json(r);
  EXPECT_TRUE(r.added.empty() && r.removed.empty()) << diff_json(r);
  EXPECT_EQ(r.by_provenance, 2u);
  EXPECT_EQ(r.b_matched(), 2u);
  EXPECT_EQ(r.op_counts.size(), 1u);  // Add 1 -> 0
  EXPECT_EQ(r.op_counts[0].op, "Add");
  EXPECT_FALSE(r.identical());

  // Without it the same pair falls back to names and structure: only the Relu matches (by its
  // output "y"), and reads a value nothing matched; the Conv is added, Conv and Add removed.
  Result f = diff_models(*a, *b, nullptr);
  EXPECT_FALSE(f.with_provenance);
  EXPECT_TRUE(f.fused.empty()) << diff_json(f);
  EXPECT_EQ(names(f.added), (std::vector<std::string>{"c1"})) << diff_json(f);
  EXPECT_EQ(names(f.removed), (std::vector<std::string>{"c1", "a1"})) << diff_json(f);
  ASSERT_EQ(f.changed.size(), 1u);
  EXPECT_EQ(f.changed[0].changes, (std::vector<std::string>{"input 0: t -> fresh"}));
}

TEST(Diff, FusionInferredFromOutputNamesWithoutProvenance) {
  // B's Conv writes "t", the Add's output name: matched by name, and the A Conv only the Add
  // read is fused into it.
  auto a = conv_add_relu();
  auto b = conv_bias_relu("t");
  Result r = diff_models(*a, *b, nullptr);
  ASSERT_EQ(r.fused.size(), 1u) << diff_json(r);
  EXPECT_EQ(r.fused[0].how, "inferred");
  EXPECT_EQ(names(r.fused[0].many), (std::vector<std::string>{"c1", "a1"}));
  EXPECT_EQ(r.same, 1u);
  EXPECT_TRUE(r.removed.empty() && r.added.empty()) << diff_json(r);
  EXPECT_EQ(r.initializers.removed.size(), 1u);  // bias [1,3,1,1] -> b_folded [3]: not the same tensor
  EXPECT_EQ(r.initializers.added.size(), 1u);
}

TEST(Diff, RenamedOutputIsMatchedByStructure) {
  auto make = [](const char* out) {
    auto m = new_model(17);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, {2, 3});
    Value* y = b.op("Relu", {x}, {}, out);
    name_node(*m, y, "relu");
    Value* z = b.op("Neg", {y}, {}, std::string(out) + "_neg");
    name_node(*m, z, "neg");
    b.output(z);
    return m;
  };
  auto a = make("y");
  auto b = make("z");
  Result r = diff_models(*a, *b, nullptr);
  EXPECT_EQ(r.by_structure, 2u);
  ASSERT_EQ(r.changed.size(), 2u) << diff_json(r);
  EXPECT_EQ(r.changed[0].how, "structure");
  EXPECT_EQ(r.changed[0].changes, (std::vector<std::string>{"output 0: y -> z"}));
  // Neg reads the renamed value: the same value, so only its own output's rename shows.
  EXPECT_EQ(r.changed[1].changes, (std::vector<std::string>{"output 0: y_neg -> z_neg"}));
  ASSERT_EQ(r.outputs.renamed.size(), 1u);
  EXPECT_EQ(r.outputs.renamed[0].a, "y_neg");
  EXPECT_EQ(r.outputs.renamed[0].b, "z_neg");
  EXPECT_TRUE(r.outputs.added.empty() && r.outputs.removed.empty());
}

TEST(Diff, ChangedInitializerAndAttribute) {
  auto a = conv_add_relu(1.0f);
  auto b = conv_add_relu(1.5f);
  Result r = diff_models(*a, *b, nullptr);
  ASSERT_EQ(r.initializers.changed.size(), 1u);
  EXPECT_EQ(r.initializers.changed[0].name, "w");
  EXPECT_EQ(r.initializers.changed[0].changes, "bytes");
  EXPECT_EQ(r.initializers.changed[0].a, "float32[3,2,1,1]");
  EXPECT_EQ(r.same, 3u);  // the nodes read the same-named value
  EXPECT_FALSE(r.identical());

  auto c = conv_add_relu();
  c->graph->first->attributes.push(c->arena, GraphBuilder(*c).ints("strides", {2, 2}));
  Result s = diff_models(*a, *c, nullptr);
  ASSERT_EQ(s.changed.size(), 1u);
  EXPECT_EQ(s.changed[0].a.name, "c1");
  EXPECT_EQ(s.changed[0].changes, (std::vector<std::string>{"attribute strides added: [2,2]"}));
}

TEST(Diff, SplitAndAddedThroughProvenance) {
  auto a = conv_add_relu();
  auto b = conv_add_relu();
  // Both Conv and Add of B claim to come from A's Add (a decomposition), Relu from nothing (so
  // its output name does not match it either).
  Provenance p = {{"c1", {"a1"}}, {"a1", {"a1", "nowhere"}}, {"r1", {}}, {"ghost", {"c1"}}, {"r1x", {"r1"}}};
  Result r = diff_models(*a, *b, &p);
  ASSERT_EQ(r.split.size(), 1u) << diff_json(r);
  EXPECT_EQ(r.split[0].one.name, "a1");
  EXPECT_EQ(names(r.split[0].many), (std::vector<std::string>{"c1", "a1"}));
  EXPECT_EQ(names(r.added), (std::vector<std::string>{"r1"}));
  // A's Conv and Relu are named by no B node: removed. Unknown names are listed.
  EXPECT_EQ(names(r.removed), (std::vector<std::string>{"c1", "r1"}));
  EXPECT_EQ(r.unknown_b, (std::vector<std::string>{"ghost", "r1x"}));
  EXPECT_EQ(r.unknown_a, (std::vector<std::string>{"nowhere"}));
}

TEST(Diff, ReportNamesUnnamedOriginalsByIndexAndFoldedNodes) {
  auto a = conv_add_relu();
  a->graph->first->next->name = kNoStr;  // the Add: the report calls it "#1"
  auto b = conv_bias_relu("fresh");
  Provenance p = {{"c1", {"c1", "#1"}}, {"r1", {"r1"}}};
  Result r = diff_models(*a, *b, &p);
  ASSERT_EQ(r.fused.size(), 1u) << diff_json(r);
  ASSERT_EQ(r.fused[0].many.size(), 2u);
  EXPECT_EQ(r.fused[0].many[1].name, "");
  EXPECT_EQ(r.fused[0].many[1].op, "Add");
  EXPECT_EQ(r.fused[0].many[1].index, 1u);
  EXPECT_TRUE(r.unknown_a.empty());
  Provenance bad = {{"c1", {"#0"}}, {"r1", {"#7"}}};  // #0 has a name (c1); #7 does not exist
  Result u = diff_models(*a, *b, &bad);
  EXPECT_EQ(u.unknown_a, (std::vector<std::string>{"#0", "#7"}));

  // The Add folded into the initializer b_folded instead: folded, not removed.
  Provenance q = {{"c1", {"c1"}}, {"r1", {"r1"}}};
  Provenance folded = {{"b_folded", {"#1"}}};
  Result f = diff_models(*a, *b, &q, &folded);
  ASSERT_EQ(f.folded.size(), 1u) << diff_json(f);
  EXPECT_EQ(f.folded[0].one.name, "b_folded");
  EXPECT_EQ(f.folded[0].many[0].op, "Add");
  EXPECT_TRUE(f.removed.empty()) << diff_json(f);
  EXPECT_NE(diff_json(f).find("\"folded\":[{\"initializer\":\"b_folded\",\"a\":[{\"name\":\"\",\"op\":\"Add\",\"index\":1}]}]"),
            std::string::npos) << diff_json(f);
  // Without "folded" the Add is removed.
  EXPECT_EQ(diff_models(*a, *b, &q).removed.size(), 1u);
}

TEST(Diff, ProvenanceIsFoundInAReport) {
  Provenance top = parse_provenance(R"({"passes":[{"name":"x","n":1.5e3}],"provenance":{"b":["a1","a2"]}})");
  EXPECT_EQ(top.at("b"), (std::vector<std::string>{"a1", "a2"}));
  Provenance nested = parse_provenance(R"({"ok":true,"optimize":{"provenance":{"n\u00e9":["m"]},"x":null}})");
  EXPECT_EQ(nested.at("n\xc3\xa9"), (std::vector<std::string>{"m"}));
  // optimize --report nests the pipeline's report, with "folded" beside "provenance".
  std::string report = R"({"version":"x","pipeline":{"passes":[],"provenance":{"n":["m"]},"folded":{"w":["#3"]}}})";
  EXPECT_EQ(parse_provenance(report).at("n"), (std::vector<std::string>{"m"}));
  EXPECT_EQ(parse_folded(report).at("w"), (std::vector<std::string>{"#3"}));
  EXPECT_TRUE(parse_folded(R"({"provenance":{"n":["m"]}})").empty());
  Provenance bare = parse_provenance(R"({"b": ["a"], "c": []})");
  EXPECT_EQ(bare.size(), 2u);
  EXPECT_TRUE(bare.at("c").empty());
  EXPECT_EQ(parse_provenance(R"({"provenance":{"\ud83d\ude00":["a"]}})").count("\xf0\x9f\x98\x80"), 1u);
  // A high surrogate followed by no low one; a report without provenance; not a map of names; cut short.
  for (const char* bad : {"{\"provenance\": {\"\\ud800\\u0041\": []}}", "{\"passes\": []}",
                          "[1]", "{\"provenance\": {\"b\": [1]}}", "{\"provenance\": ", "nope"}) {
    try {
      parse_provenance(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::kInvalidArgument) << bad;
      EXPECT_NE(std::string(e.what()).find("provenance"), std::string::npos) << e.what();
    }
  }
}

TEST(Diff, CApiArgumentsAndBadProvenance) {
  ofg_model* m = nullptr;
  ASSERT_EQ(ofg_model_create_demo(&m), OFG_OK);
  char* out = nullptr;
  EXPECT_EQ(ofg_diff_json(nullptr, m, nullptr, &out), OFG_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ofg_diff_json(m, m, nullptr, nullptr), OFG_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ofg_diff_json(m, m, "{\"provenance\": 3}", &out), OFG_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ofg_last_error()).find("provenance"), std::string::npos) << ofg_last_error();
  EXPECT_EQ(out, nullptr);
  ASSERT_EQ(ofg_diff_json(m, m, nullptr, &out), OFG_OK);
  EXPECT_EQ(std::string(out).rfind("{\"identical\":true,", 0), 0u) << out;
  ofg_buffer_free(out);
  ofg_model_free(m);
}

long long json_int(const std::string& json, const std::string& key) {
  std::smatch mm;
  if (!std::regex_search(json, mm, std::regex("\"" + key + "\":([0-9]+)"))) return -1;
  return std::stoll(mm[1]);
}

// A shared model through the default pipeline: every node of the output is matched to nodes of
// the input (through the report's provenance when it has one, else by names and structure).
TEST(Diff, EveryNodeOfAnOptimizedSharedModelIsMatched) {
  std::string dir = ofg::test::data_dir();
  std::string path = dir + "/models/resnet18_dirty/model.onnx";
  if (dir.empty() || !ofg::test::file_exists(path)) GTEST_SKIP() << "no shared model " << path;
  ofg_model* a = nullptr;
  ofg_model* b = nullptr;
  ASSERT_EQ(ofg_load(path.c_str(), nullptr, &a), OFG_OK) << ofg_last_error();
  ASSERT_EQ(ofg_model_clone(a, &b), OFG_OK);
  ofg_pass_report* rep = nullptr;
  ASSERT_EQ(ofg_optimize(b, nullptr, &rep), OFG_OK) << ofg_last_error();
  std::string report = ofg_pass_report_json(rep);
  ofg_pass_report_free(rep);
  bool with_provenance = report.find("\"provenance\"") != std::string::npos;
  char* out = nullptr;
  ASSERT_EQ(ofg_diff_json(a, b, with_provenance ? report.c_str() : nullptr, &out), OFG_OK) << ofg_last_error();
  std::string json = out;
  ofg_buffer_free(out);
  ofg_model_free(a);
  ofg_model_free(b);
  long long b_nodes = json_int(json, "b_nodes");
  EXPECT_GT(b_nodes, 0);
  EXPECT_EQ(json_int(json, "b_matched"), b_nodes) << json.substr(0, 2000);
  EXPECT_EQ(json_int(json, "added"), 0);
  // Each of resnet18's 20 BatchNormalizations is folded into the Conv before it.
  EXPECT_EQ(json_int(json, "fused"), 20) << json.substr(0, 2000);
  EXPECT_NE(json.find("{\"op\":\"BatchNormalization\",\"a\":20,\"b\":0}"), std::string::npos);
}

}  // namespace
