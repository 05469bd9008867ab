// Hostile and broken input: every case gets a status and a message naming what is wrong, never a
// crash, never a partial output file.
#include <gtest/gtest.h>

#include <csignal>
#include <cstring>
#include <initializer_list>
#include <random>
#include <utility>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ofg_onnx.pb.h"
#include "onnxforge.h"
#include "support/options_support.h"
#include "support/test_support.h"

namespace {

namespace pb = ofg_onnx;
using ofg::test::options_with;
using ofg::test::read_file;
using ofg::test::save_with;
using ofg::test::temp_dir;
using ofg::test::write_file;


// A small valid model: y = Relu(x + w).
pb::ModelProto valid_model() {
  pb::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  pb::GraphProto* g = m.mutable_graph();
  g->set_name("g");
  auto* in = g->add_input();
  in->set_name("x");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(1);
  in->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(2);
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(1);
  w->add_dims(2);
  float values[2] = {1.0f, -2.0f};
  w->set_raw_data(values, sizeof values);
  auto* add = g->add_node();
  add->set_op_type("Add");
  add->set_name("add");
  add->add_input("x");
  add->add_input("w");
  add->add_output("s");
  auto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->set_name("relu");
  relu->add_input("s");
  relu->add_output("y");
  g->add_output()->set_name("y");
  return m;
}

struct LoadResult {
  ofg_status status;
  std::string message;
};

LoadResult load_bytes(const std::string& bytes) {
  ofg_model* m = nullptr;
  ofg_status s = ofg_load_from_memory(bytes.data(), bytes.size(), nullptr, &m);
  std::string msg = ofg_last_error();
  if (s == OFG_OK) ofg_model_free(m);
  return {s, msg};
}

LoadResult load_model(const pb::ModelProto& m) { return load_bytes(m.SerializeAsString()); }

// r failed with status `want` and a message that names every one of `words` (what a user needs to
// find the fault: the file, node, op or value).
::testing::AssertionResult refused(const LoadResult& r, ofg_status want, std::initializer_list<const char*> words) {
  if (r.status != want) return ::testing::AssertionFailure() << "status " << r.status << ", not " << want << ": " << r.message;
  for (const char* w : words)
    if (r.message.find(w) == std::string::npos) return ::testing::AssertionFailure() << "no '" << w << "' in: " << r.message;
  return ::testing::AssertionSuccess();
}

TEST(BadInput, ValidModelLoads) { EXPECT_EQ(load_model(valid_model()).status, OFG_OK); }

TEST(BadInput, MissingPathIsAnIoErrorNamingThePath) {
  ofg_model* m = reinterpret_cast<ofg_model*>(0x1);
  EXPECT_EQ(ofg_load("/nonexistent/dir/model.onnx", nullptr, &m), OFG_ERR_IO);
  EXPECT_NE(std::strstr(ofg_last_error(), "/nonexistent/dir/model.onnx"), nullptr);
  EXPECT_EQ(m, reinterpret_cast<ofg_model*>(0x1));
}

TEST(BadInput, DirectoryIsRefused) {
  ofg_model* m = nullptr;
  std::string dir = temp_dir();
  EXPECT_EQ(ofg_load(dir.c_str(), nullptr, &m), OFG_ERR_IO);
  EXPECT_NE(std::strstr(ofg_last_error(), "not a regular file"), nullptr);
}

TEST(BadInput, EmptyFileIsAParseError) {
  std::string path = temp_dir() + "/empty.onnx";
  write_file(path, {});
  ofg_model* m = nullptr;
  EXPECT_EQ(ofg_load(path.c_str(), nullptr, &m), OFG_ERR_PARSE);
  EXPECT_NE(std::strstr(ofg_last_error(), "empty"), nullptr);
}

TEST(BadInput, EveryTruncationIsRefusedWithoutCrashing) {
  std::string bytes = valid_model().SerializeAsString();
  for (size_t n = 1; n < bytes.size(); ++n) {
    LoadResult r = load_bytes(bytes.substr(0, n));
    // A prefix can happen to be a complete message; otherwise it must be refused.
    if (r.status != OFG_OK) {
      EXPECT_TRUE(r.status == OFG_ERR_PARSE || r.status == OFG_ERR_INVALID_MODEL) << "at " << n << ": " << r.message;
      EXPECT_FALSE(r.message.empty());
    }
  }
  EXPECT_NE(load_bytes(bytes.substr(0, bytes.size() - 3)).status, OFG_OK);
}

TEST(BadInput, RandomBytesAreRefused) {
  std::mt19937 rng(1234);
  int refused = 0;
  for (int trial = 0; trial < 500; ++trial) {
    std::string bytes(1 + rng() % 512, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    LoadResult r = load_bytes(bytes);
    if (r.status != OFG_OK) {
      ++refused;
      EXPECT_FALSE(r.message.empty());
    }
  }
  EXPECT_GT(refused, 490);  // random bytes essentially never form a model with a graph
}

TEST(BadInput, HugeDeclaredLengthIsRefusedBeforeAllocating) {
  // field 7 (graph), length-delimited, claiming 2^40 bytes.
  std::string bytes = "\x3a";
  uint64_t len = uint64_t(1) << 40;
  while (len >= 0x80) {
    bytes += static_cast<char>((len & 0x7f) | 0x80);
    len >>= 7;
  }
  bytes += static_cast<char>(len);
  EXPECT_TRUE(refused(load_bytes(bytes), OFG_ERR_PARSE, {"past the end"}));
}

TEST(BadInput, ModelWithoutGraph) {
  pb::ModelProto m = valid_model();
  m.clear_graph();
  EXPECT_TRUE(refused(load_model(m), OFG_ERR_INVALID_MODEL, {"no graph"}));
}

TEST(BadInput, UndefinedValueNamesNodeAndValue) {
  pb::ModelProto m = valid_model();
  m.mutable_graph()->mutable_node(1)->set_input(0, "nowhere");
  EXPECT_TRUE(refused(load_model(m), OFG_ERR_INVALID_MODEL, {"relu", "Relu", "nowhere"}));
}

TEST(BadInput, CycleIsRefused) {
  pb::ModelProto m = valid_model();
  // add reads relu's output, relu reads add's output.
  m.mutable_graph()->mutable_node(0)->set_input(0, "y");
  EXPECT_TRUE(refused(load_model(m), OFG_ERR_INVALID_MODEL, {"cycle"}));
}

TEST(BadInput, OutOfOrderButAcyclicIsAccepted) {
  pb::ModelProto m = valid_model();
  m.mutable_graph()->mutable_node()->SwapElements(0, 1);
  EXPECT_EQ(load_model(m).status, OFG_OK);
}

TEST(BadInput, DuplicateValueNames) {
  pb::ModelProto m = valid_model();
  m.mutable_graph()->mutable_node(1)->set_output(0, "s");  // "s" is already add's output
  m.mutable_graph()->mutable_output(0)->set_name("s");
  EXPECT_TRUE(refused(load_model(m), OFG_ERR_INVALID_MODEL, {"'s'"}));
  pb::ModelProto m2 = valid_model();
  *m2.mutable_graph()->add_initializer() = m2.graph().initializer(0);
  m2.mutable_graph()->mutable_initializer(1)->set_name("x");  // an input's default value (IR < 4): allowed
  EXPECT_EQ(load_model(m2).status, OFG_OK);
  *m2.mutable_graph()->add_initializer() = m2.graph().initializer(0);  // "w" twice: not allowed
  EXPECT_EQ(load_model(m2).status, OFG_ERR_INVALID_MODEL);
  pb::ModelProto m3 = valid_model();
  m3.mutable_graph()->mutable_node(0)->set_output(0, "w");  // clashes with the initializer
  m3.mutable_graph()->mutable_node(1)->set_input(0, "w");
  EXPECT_EQ(load_model(m3).status, OFG_ERR_INVALID_MODEL);
}

TEST(BadInput, RawDataLengthMustMatchDims) {
  pb::ModelProto m = valid_model();
  m.mutable_graph()->mutable_initializer(0)->add_dims(3);  // now [2,3]: needs 24 bytes, has 8
  EXPECT_TRUE(refused(load_model(m), OFG_ERR_INVALID_MODEL, {"8 bytes", "24", "'w'"}));
}

TEST(BadInput, TypedDataCountMustMatchDims) {
  pb::ModelProto m = valid_model();
  auto* w = m.mutable_graph()->mutable_initializer(0);
  w->clear_raw_data();
  w->add_float_data(1.0f);  // 1 value for 2 elements
  EXPECT_EQ(load_model(m).status, OFG_ERR_INVALID_MODEL);
  w->add_float_data(2.0f);
  EXPECT_EQ(load_model(m).status, OFG_OK);
}

TEST(BadInput, DimsWhoseProductOverflows) {
  pb::ModelProto m = valid_model();
  auto* w = m.mutable_graph()->mutable_initializer(0);
  w->clear_dims();
  for (int i = 0; i < 4; ++i) w->add_dims(int64_t(1) << 20);
  EXPECT_TRUE(refused(load_model(m), OFG_ERR_INVALID_MODEL, {"overflow"}));
  // A product that fits int64 but not in bytes present is caught by the length check.
  w->clear_dims();
  w->add_dims(int64_t(1) << 40);
  EXPECT_EQ(load_model(m).status, OFG_ERR_INVALID_MODEL);
}

TEST(BadInput, NegativeDims) {
  pb::ModelProto m = valid_model();
  m.mutable_graph()->mutable_initializer(0)->set_dims(0, -2);
  EXPECT_TRUE(refused(load_model(m), OFG_ERR_INVALID_MODEL, {"negative"}));
}

TEST(BadInput, UnknownDataType) {
  pb::ModelProto m = valid_model();
  m.mutable_graph()->mutable_initializer(0)->set_data_type(99);
  EXPECT_EQ(load_model(m).status, OFG_ERR_INVALID_MODEL);
}

TEST(BadInput, NodeWithoutOpType) {
  pb::ModelProto m = valid_model();
  m.mutable_graph()->mutable_node(0)->clear_op_type();
  EXPECT_TRUE(refused(load_model(m), OFG_ERR_INVALID_MODEL, {"op_type"}));
}

TEST(BadInput, GraphOutputThatNothingProduces) {
  pb::ModelProto m = valid_model();
  m.mutable_graph()->mutable_output(0)->set_name("ghost");
  EXPECT_TRUE(refused(load_model(m), OFG_ERR_INVALID_MODEL, {"ghost"}));
}

TEST(BadInput, SubgraphsNestedTooDeeplyHitTheLimit) {
  // If nodes nested 100 deep through their then_branch.
  pb::GraphProto inner;
  inner.set_name("leaf");
  for (int depth = 0; depth < 100; ++depth) {
    pb::GraphProto outer;
    outer.set_name("level");
    auto* node = outer.add_node();
    node->set_op_type("If");
    auto* a = node->add_attribute();
    a->set_name("then_branch");
    a->set_type(pb::AttributeProto::GRAPH);
    *a->mutable_g() = inner;
    inner = outer;
  }
  pb::ModelProto m = valid_model();
  auto* node = m.mutable_graph()->add_node();
  node->set_op_type("If");
  auto* a = node->add_attribute();
  a->set_name("then_branch");
  *a->mutable_g() = inner;
  LoadResult r = load_model(m);
  EXPECT_EQ(r.status, OFG_ERR_LIMIT) << r.message;
}

// ---------------------------------------------------------------- external data

struct ExternalCase {
  std::string dir;
  pb::ModelProto model;
};

// A model whose initializer lives in `location`, with 8 bytes of data written to data.bin.
ExternalCase external_model(const std::string& location, const std::string& offset = "0", const std::string& length = "8") {
  ExternalCase c{temp_dir(), valid_model()};
  float values[2] = {3.0f, 4.0f};
  write_file(c.dir + "/data.bin", std::vector<uint8_t>(reinterpret_cast<uint8_t*>(values), reinterpret_cast<uint8_t*>(values) + 8));
  auto* w = c.model.mutable_graph()->mutable_initializer(0);
  w->clear_raw_data();
  w->set_data_location(pb::TensorProto::EXTERNAL);
  auto add = [&](const char* k, const std::string& v) {
    auto* e = w->add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  add("location", location);
  if (!offset.empty()) add("offset", offset);
  if (!length.empty()) add("length", length);
  return c;
}

LoadResult load_external(const ExternalCase& c) {
  std::string path = c.dir + "/model.onnx";
  std::string bytes = c.model.SerializeAsString();
  write_file(path, std::vector<uint8_t>(bytes.begin(), bytes.end()));
  ofg_model* m = nullptr;
  ofg_status s = ofg_load(path.c_str(), nullptr, &m);
  LoadResult r{s, ofg_last_error()};
  if (s == OFG_OK) ofg_model_free(m);
  return r;
}

TEST(ExternalData, InsideTheFolderLoads) { EXPECT_EQ(load_external(external_model("data.bin")).status, OFG_OK); }

TEST(ExternalData, AbsoluteLocationIsRefused) {
  ExternalCase c = external_model("");
  c.model.mutable_graph()->mutable_initializer(0)->mutable_external_data(0)->set_value(c.dir + "/data.bin");
  EXPECT_TRUE(refused(load_external(c), OFG_ERR_INVALID_MODEL, {"absolute"}));
}

TEST(ExternalData, DotDotIsRefused) {
  EXPECT_TRUE(refused(load_external(external_model("../data.bin")), OFG_ERR_INVALID_MODEL, {".."}));
  EXPECT_EQ(load_external(external_model("sub/../data.bin")).status, OFG_ERR_INVALID_MODEL);
}

TEST(ExternalData, LinkLeadingOutsideIsRefused) {
  ExternalCase c = external_model("link.bin");
  std::string outside = temp_dir() + "/secret.bin";
  write_file(outside, std::vector<uint8_t>(8, 1));
  ASSERT_EQ(symlink(outside.c_str(), (c.dir + "/link.bin").c_str()), 0);
  EXPECT_TRUE(refused(load_external(c), OFG_ERR_INVALID_MODEL, {"outside"}));
}

TEST(ExternalData, RangePastTheEndIsRefused) {
  EXPECT_TRUE(refused(load_external(external_model("data.bin", "4", "8")), OFG_ERR_INVALID_MODEL, {"past the end"}));
  EXPECT_EQ(load_external(external_model("data.bin", "100", "")).status, OFG_ERR_INVALID_MODEL);
  EXPECT_EQ(load_external(external_model("data.bin", "-1", "8")).status, OFG_ERR_INVALID_MODEL);
}

TEST(ExternalData, MissingFileIsAnIoError) {
  EXPECT_TRUE(refused(load_external(external_model("absent.bin")), OFG_ERR_IO, {"absent.bin"}));
}

TEST(ExternalData, MemoryLoadNeedsAFolder) {
  ExternalCase c = external_model("data.bin");
  EXPECT_TRUE(refused(load_model(c.model), OFG_ERR_INVALID_MODEL, {"external"}));
  ofg_options* o = options_with({{"load.external_data_dir", c.dir.c_str()}});
  std::string bytes = c.model.SerializeAsString();
  ofg_model* m = nullptr;
  EXPECT_EQ(ofg_load_from_memory(bytes.data(), bytes.size(), o, &m), OFG_OK);
  ofg_model_free(m);
  ofg_options_free(o);
}

// ---------------------------------------------------------------- saving

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const std::string& name : {std::string("model.onnx"), std::string("out.onnx")})
    if (ofg::test::file_exists(dir + "/" + name)) out.push_back(name);
  std::string cmd = "ls -A '" + dir + "'";
  FILE* p = popen(cmd.c_str(), "r");
  out.clear();
  char line[512];
  while (p && fgets(line, sizeof line, p)) {
    std::string s(line);
    if (!s.empty() && s.back() == '\n') s.pop_back();
    out.push_back(s);
  }
  if (p) pclose(p);
  return out;
}

TEST(Save, IntoAMissingFolderFailsAndWritesNothing) {
  ofg_model* m = nullptr;
  ASSERT_EQ(ofg_model_create_demo(&m), OFG_OK);
  std::string dir = temp_dir();
  std::string path = dir + "/no/such/folder/out.onnx";
  EXPECT_EQ(ofg_save(m, path.c_str(), nullptr), OFG_ERR_IO);
  EXPECT_NE(std::strstr(ofg_last_error(), "out.onnx"), nullptr);
  EXPECT_TRUE(files_in(dir).empty());
  EXPECT_EQ(ofg_save(m, dir.c_str(), nullptr), OFG_ERR_IO);  // a directory as the target
  ofg_model_free(m);
}

TEST(Save, FailureMidWriteLeavesTheOldFileAndNoTemporary) {
  ofg_model* m = nullptr;
  ASSERT_EQ(ofg_model_create_demo(&m), OFG_OK);
  std::string dir = temp_dir();
  std::string path = dir + "/out.onnx";
  write_file(path, std::vector<uint8_t>(100, 7));
  // Make writes fail past 1 KiB: the demo model is larger than that.
  struct rlimit old_limit;
  getrlimit(RLIMIT_FSIZE, &old_limit);
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old_limit;
  small.rlim_cur = 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  ofg_status s = ofg_save(m, path.c_str(), nullptr);
  setrlimit(RLIMIT_FSIZE, &old_limit);
  EXPECT_EQ(s, OFG_ERR_IO);
  EXPECT_EQ(read_file(path), std::vector<uint8_t>(100, 7));
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"out.onnx"});
  ofg_model_free(m);
}

TEST(Save, OverItsOwnInputFile) {
  ofg_model* demo = nullptr;
  ASSERT_EQ(ofg_model_create_demo(&demo), OFG_OK);
  std::string path = temp_dir() + "/model.onnx";
  ASSERT_EQ(ofg_save(demo, path.c_str(), nullptr), OFG_OK);
  std::vector<uint8_t> first = read_file(path);
  ofg_model* m = nullptr;
  ASSERT_EQ(ofg_load(path.c_str(), nullptr, &m), OFG_OK);
  ASSERT_EQ(ofg_save(m, path.c_str(), nullptr), OFG_OK);  // the mapping stays valid
  ASSERT_EQ(ofg_save(m, path.c_str(), nullptr), OFG_OK);
  EXPECT_EQ(read_file(path), first);
  ofg_model_free(m);
  ofg_model_free(demo);
}

TEST(Save, DurableSaveGivesTheSameBytes) {
  ofg_model* m = nullptr;
  ASSERT_EQ(ofg_model_create_demo(&m), OFG_OK);
  std::string dir = temp_dir();
  ofg_options* o = options_with({{"save.durable", "1"}});
  EXPECT_EQ(ofg_options_set(o, "save.durable", "2"), OFG_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(ofg_save(m, (dir + "/a.onnx").c_str(), o), OFG_OK);
  ASSERT_EQ(ofg_save(m, (dir + "/b.onnx").c_str(), nullptr), OFG_OK);
  EXPECT_EQ(read_file(dir + "/a.onnx"), read_file(dir + "/b.onnx"));
  ofg_options_free(o);
  ofg_model_free(m);
}

TEST(Save, LargeWeightsCopiedFromTheLoadedFileKeepTheBytes) {
  // A model with a 1 MiB initializer: saving it again copies that range file to file.
  ofg_model* demo = nullptr;
  ASSERT_EQ(ofg_model_create_demo(&demo), OFG_OK);
  ofg_model_free(demo);
  pb::ModelProto mp = valid_model();
  auto* big = mp.mutable_graph()->add_initializer();
  big->set_name("big");
  big->set_data_type(1);
  big->add_dims(262144);
  std::string bytes(262144 * 4, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 31 + 7);
  big->set_raw_data(bytes);
  std::string dir = temp_dir();
  std::string serialized = mp.SerializeAsString();
  write_file(dir + "/in.onnx", std::vector<uint8_t>(serialized.begin(), serialized.end()));
  ofg_model* m = nullptr;
  ASSERT_EQ(ofg_load((dir + "/in.onnx").c_str(), nullptr, &m), OFG_OK);
  ASSERT_EQ(ofg_save(m, (dir + "/out.onnx").c_str(), nullptr), OFG_OK);
  EXPECT_EQ(read_file(dir + "/out.onnx"), read_file(dir + "/in.onnx"));
  ASSERT_EQ(save_with(m, dir + "/ext.onnx", {{"save.external_data", "1"}}), OFG_OK);
  std::vector<uint8_t> data = read_file(dir + "/ext.onnx.data");
  ASSERT_EQ(data.size(), bytes.size());
  EXPECT_EQ(0, std::memcmp(data.data(), bytes.data(), bytes.size()));
  ofg_model_free(m);
}

TEST(Save, IsDeterministic) {
  ofg_model* m = nullptr;
  ASSERT_EQ(ofg_model_create_demo(&m), OFG_OK);
  std::string dir = temp_dir();
  ASSERT_EQ(ofg_save(m, (dir + "/a.onnx").c_str(), nullptr), OFG_OK);
  ASSERT_EQ(ofg_save(m, (dir + "/b.onnx").c_str(), nullptr), OFG_OK);
  EXPECT_EQ(read_file(dir + "/a.onnx"), read_file(dir + "/b.onnx"));
  ofg_model_free(m);
}

TEST(Save, ExternalDataRoundTripsAndKeepsSmallTensorsInline) {
  ofg_model* m = nullptr;
  ASSERT_EQ(ofg_model_create_demo(&m), OFG_OK);
  std::string dir = temp_dir();
  ASSERT_EQ(save_with(m, dir + "/ext.onnx", {{"save.external_data", "1"}, {"save.external_threshold", "256"}}), OFG_OK);
  EXPECT_TRUE(ofg::test::file_exists(dir + "/ext.onnx.data"));
  pb::ModelProto saved;
  std::vector<uint8_t> bytes = read_file(dir + "/ext.onnx");
  ASSERT_TRUE(saved.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  int external = 0, inline_count = 0;
  for (const auto& t : saved.graph().initializer()) {
    size_t nbytes = 4;
    for (int64_t d : t.dims()) nbytes *= static_cast<size_t>(d);
    if (t.data_location() == pb::TensorProto::EXTERNAL) {
      ++external;
      EXPECT_GE(nbytes, 256u) << t.name();
    } else {
      ++inline_count;
      EXPECT_LT(nbytes, 256u) << t.name();
    }
  }
  EXPECT_GT(external, 0);
  EXPECT_GT(inline_count, 0);
  // Loading it back and saving inline gives the same bytes as saving the demo inline.
  ofg_model* back = nullptr;
  ASSERT_EQ(ofg_load((dir + "/ext.onnx").c_str(), nullptr, &back), OFG_OK);
  void *a = nullptr, *b = nullptr;
  size_t na = 0, nb = 0;
  ASSERT_EQ(ofg_save_to_memory(m, nullptr, &a, &na), OFG_OK);
  ASSERT_EQ(ofg_save_to_memory(back, nullptr, &b, &nb), OFG_OK);
  ASSERT_EQ(na, nb);
  EXPECT_EQ(std::memcmp(a, b, na), 0);
  ofg_buffer_free(a);
  ofg_buffer_free(b);
  ofg_model_free(back);
  ofg_model_free(m);
}

TEST(Load, CopyBufferOptionDetachesFromTheCallersBytes) {
  ofg_model* demo = nullptr;
  ASSERT_EQ(ofg_model_create_demo(&demo), OFG_OK);
  void* bytes = nullptr;
  size_t size = 0;
  ASSERT_EQ(ofg_save_to_memory(demo, nullptr, &bytes, &size), OFG_OK);
  std::vector<uint8_t> copy(static_cast<uint8_t*>(bytes), static_cast<uint8_t*>(bytes) + size);
  ofg_options* o = options_with({{"load.copy_buffer", "1"}});
  ofg_model* m = nullptr;
  ASSERT_EQ(ofg_load_from_memory(bytes, size, o, &m), OFG_OK);
  std::memset(bytes, 0, size);  // the caller reuses its buffer
  ofg_buffer_free(bytes);
  void* again = nullptr;
  size_t again_size = 0;
  ASSERT_EQ(ofg_save_to_memory(m, nullptr, &again, &again_size), OFG_OK);
  ASSERT_EQ(again_size, copy.size());
  EXPECT_EQ(std::memcmp(again, copy.data(), again_size), 0);
  ofg_buffer_free(again);
  ofg_model_free(m);
  ofg_model_free(demo);
  ofg_options_free(o);
}

}  // namespace
