// What a save does to the files around it (issue 20, A): the input's external-data layout is
// kept, a model over 2 GiB is never written inline, the replaced file keeps its mode and owner,
// a symlinked output replaces the file it points to, no temporary file is left, and a data file
// the loaded model still reads is never replaced under another model's name.
#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ofg_onnx.pb.h"
#include "onnx/temp_file.h"
#include "onnxforge.h"
#include "support/huge_model.h"
#include "support/options_support.h"
#include "support/test_support.h"

namespace {

namespace pb = ofg_onnx;
using namespace ofg::test;  // file_exists, options_with, read_file, save_with, temp_dir, write_file


std::set<std::string> names_in(const std::string& dir) {
  std::set<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) out.insert(e->d_name);
  ::closedir(d);
  return out;
}

std::vector<std::string> log_lines;
void collect_log(void*, int32_t level, const char* message) {
  log_lines.push_back(std::to_string(level) + " " + message);
}

// The demo model saved with its weights (of 256 bytes or more) in DIR/NAME.data.
std::string demo_with_external_data(const std::string& dir, const std::string& name = "m.onnx") {
  ofg_model* m = nullptr;
  EXPECT_EQ(ofg_model_create_demo(&m), OFG_OK);
  std::string path = dir + "/" + name;
  EXPECT_EQ(save_with(m, path, {{"save.external_data", "1"}, {"save.external_threshold", "256"}}), OFG_OK);
  ofg_model_free(m);
  return path;
}

int externals_in(const std::string& model_path, std::string* location = nullptr) {
  pb::ModelProto saved;
  std::vector<uint8_t> bytes = read_file(model_path);
  EXPECT_TRUE(saved.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  int n = 0;
  for (const auto& t : saved.graph().initializer()) {
    if (t.data_location() != pb::TensorProto::EXTERNAL) continue;
    ++n;
    for (const auto& e : t.external_data())
      if (e.key() == "location" && location) *location = e.value();
  }
  return n;
}

// The model as one inline protobuf: equal for two models with the same graph and weights
// whatever their files' layouts.
std::vector<uint8_t> inline_bytes(const ofg_model* m) {
  void* data = nullptr;
  size_t size = 0;
  EXPECT_EQ(ofg_save_to_memory(m, nullptr, &data, &size), OFG_OK);
  std::vector<uint8_t> out(static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + size);
  ofg_buffer_free(data);
  return out;
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// (a) The layout of the input is kept unless save.external_data says otherwise, and the caller
// is told where the weights went.
TEST(SaveFiles, ExternalDataInputIsSavedWithExternalData) {
  std::string dir = temp_dir();
  std::string in = demo_with_external_data(dir);
  ofg_model* m = nullptr;
  ASSERT_EQ(ofg_load(in.c_str(), nullptr, &m), OFG_OK);
  log_lines.clear();
  ofg_options* logged = nullptr;
  ASSERT_EQ(ofg_options_create(&logged), OFG_OK);
  ASSERT_EQ(ofg_options_set_log(logged, collect_log, nullptr), OFG_OK);
  ASSERT_EQ(ofg_save(m, (dir + "/out.onnx").c_str(), logged), OFG_OK);
  std::string location;
  EXPECT_GT(externals_in(dir + "/out.onnx", &location), 0);
  EXPECT_EQ(location, "out.onnx.data");
  ASSERT_TRUE(file_exists(dir + "/out.onnx.data"));
  ASSERT_EQ(log_lines.size(), 1u);
  EXPECT_EQ(log_lines[0].rfind("1 weights written to " + dir + "/out.onnx.data: ", 0), 0u) << log_lines[0];
  EXPECT_NE(log_lines[0].find("the input model kept its weights in external data"), std::string::npos) << log_lines[0];
  // Same model either way.
  ofg_model* back = nullptr;
  ASSERT_EQ(ofg_load((dir + "/out.onnx").c_str(), nullptr, &back), OFG_OK);
  EXPECT_EQ(inline_bytes(back), inline_bytes(m));
  ofg_model_free(back);

  // save.external_data=0 explicitly: everything inline, no data file, nothing logged.
  ofg_options* inl = options_with({{"save.external_data", "0"}});
  ASSERT_EQ(ofg_options_set_log(inl, collect_log, nullptr), OFG_OK);
  log_lines.clear();
  ASSERT_EQ(ofg_save(m, (dir + "/inline.onnx").c_str(), inl), OFG_OK);
  EXPECT_EQ(externals_in(dir + "/inline.onnx"), 0);
  EXPECT_FALSE(file_exists(dir + "/inline.onnx.data"));
  EXPECT_TRUE(log_lines.empty());
  ofg_options_free(inl);
  ofg_options_free(logged);

  // A model made in memory stays inline by default.
  ofg_model* demo = nullptr;
  ASSERT_EQ(ofg_model_create_demo(&demo), OFG_OK);
  ASSERT_EQ(ofg_save(demo, (dir + "/demo.onnx").c_str(), nullptr), OFG_OK);
  EXPECT_EQ(externals_in(dir + "/demo.onnx"), 0);
  EXPECT_FALSE(file_exists(dir + "/demo.onnx.data"));
  ofg_model_free(demo);
  ofg_model_free(m);
  EXPECT_EQ(names_in(dir), (std::set<std::string>{"m.onnx", "m.onnx.data", "out.onnx", "out.onnx.data", "inline.onnx",
                                                  "demo.onnx"}));
}

// In place: the new model.onnx.data replaces the one whose mapping the model reads its weights
// from while saving; that mapping keeps the old file, so the weights written are the right ones.
TEST(SaveFiles, InPlaceSaveOverItsOwnDataFile) {
  std::string dir = temp_dir();
  std::string path = demo_with_external_data(dir);
  ofg_model* m = nullptr;
  ASSERT_EQ(ofg_load(path.c_str(), nullptr, &m), OFG_OK);
  std::vector<uint8_t> before = inline_bytes(m);
  struct stat old_data {};
  ASSERT_EQ(::stat((path + ".data").c_str(), &old_data), 0);
  for (int round = 0; round < 2; ++round) {  // twice: the second save reads the unlinked old files
    ASSERT_EQ(ofg_save(m, path.c_str(), nullptr), OFG_OK) << ofg_last_error();
    struct stat new_data {};
    ASSERT_EQ(::stat((path + ".data").c_str(), &new_data), 0);
    EXPECT_NE(new_data.st_ino, old_data.st_ino);  // replaced, not rewritten in place
    ofg_model* back = nullptr;
    ASSERT_EQ(ofg_load(path.c_str(), nullptr, &back), OFG_OK);
    EXPECT_EQ(inline_bytes(back), before);
    ofg_model_free(back);
  }
  EXPECT_EQ(inline_bytes(m), before);  // the loaded model still reads its (old) weights
  ofg_model_free(m);
  EXPECT_EQ(names_in(dir), (std::set<std::string>{"m.onnx", "m.onnx.data"}));
}

// In place, a data file of another name than MODEL.data is written back under its own name (the
// layout the user had), not beside it as MODEL.data; another output still gets OUT.data.
TEST(SaveFiles, InPlaceSaveKeepsTheDataFileName) {
  std::string dir = temp_dir();
  ofg_model* demo = nullptr;
  ASSERT_EQ(ofg_model_create_demo(&demo), OFG_OK);
  std::string path = dir + "/m.onnx";
  ASSERT_EQ(save_with(demo, path,
                      {{"save.external_data", "1"}, {"save.external_threshold", "256"}, {"save.external_file", "weights.bin"}}),
            OFG_OK)
      << ofg_last_error();
  ofg_model_free(demo);
  ofg_model* m = nullptr;
  ASSERT_EQ(ofg_load(path.c_str(), nullptr, &m), OFG_OK);
  std::vector<uint8_t> before = inline_bytes(m);
  ASSERT_EQ(ofg_save(m, path.c_str(), nullptr), OFG_OK) << ofg_last_error();
  std::string location;
  EXPECT_GT(externals_in(path, &location), 0);
  EXPECT_EQ(location, "weights.bin");
  EXPECT_EQ(names_in(dir), (std::set<std::string>{"m.onnx", "weights.bin"}));
  ASSERT_EQ(ofg_save(m, (dir + "/other.onnx").c_str(), nullptr), OFG_OK) << ofg_last_error();
  EXPECT_GT(externals_in(dir + "/other.onnx", &location), 0);
  EXPECT_EQ(location, "other.onnx.data");
  ofg_model* back = nullptr;
  ASSERT_EQ(ofg_load(path.c_str(), nullptr, &back), OFG_OK);
  EXPECT_EQ(inline_bytes(back), before);
  ofg_model_free(back);
  ofg_model_free(m);
}

// Saving under another name must not replace a data file that the input model names: that would
// change the input on disk.
TEST(SaveFiles, RefusesToReplaceTheInputsDataFile) {
  std::string dir = temp_dir();
  ofg_model* demo = nullptr;
  ASSERT_EQ(ofg_model_create_demo(&demo), OFG_OK);
  ASSERT_EQ(save_with(demo, dir + "/a.onnx", {{"save.external_data", "1"}, {"save.external_file", "b.onnx.data"}}), OFG_OK);
  ofg_model_free(demo);
  std::vector<uint8_t> data_before = read_file(dir + "/b.onnx.data");
  ofg_model* m = nullptr;
  ASSERT_EQ(ofg_load((dir + "/a.onnx").c_str(), nullptr, &m), OFG_OK);
  EXPECT_EQ(ofg_save(m, (dir + "/b.onnx").c_str(), nullptr), OFG_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ofg_last_error()).find("holds weights of the loaded model"), std::string::npos) << ofg_last_error();
  EXPECT_EQ(read_file(dir + "/b.onnx.data"), data_before);
  EXPECT_FALSE(file_exists(dir + "/b.onnx"));
  // Another data file name works.
  EXPECT_EQ(save_with(m, dir + "/b.onnx", {{"save.external_file", "b.weights"}}), OFG_OK);
  ofg_model_free(m);
  EXPECT_EQ(names_in(dir), (std::set<std::string>{"a.onnx", "b.onnx.data", "b.onnx", "b.weights"}));
}

// (c) and the memory save: over 2 GiB - 1 bytes inline is refused before anything is written.
TEST(SaveFiles, ModelOver2GiBIsNeverWrittenInline) {
  ofg::test::HugeModelBytes bytes((2ull << 30) + 4096);
  if (!bytes.data()) GTEST_SKIP() << "cannot map 2 GiB of address space";
  ofg_model* m = nullptr;
  ASSERT_EQ(ofg_load_from_memory(bytes.data(), bytes.size(), nullptr, &m), OFG_OK) << ofg_last_error();
  std::string dir = temp_dir();
  EXPECT_EQ(save_with(m, dir + "/out.onnx", {{"save.external_data", "0"}}), OFG_ERR_LIMIT);
  std::string error = ofg_last_error();
  EXPECT_NE(error.find("over protobuf's limit of 2 GiB - 1 bytes"), std::string::npos) << error;
  EXPECT_NE(error.find(std::to_string(bytes.size())), std::string::npos) << error;
  EXPECT_TRUE(names_in(dir).empty());
  void* data = nullptr;
  size_t size = 0;
  EXPECT_EQ(ofg_save_to_memory(m, nullptr, &data, &size), OFG_ERR_LIMIT);
  EXPECT_EQ(data, nullptr);
  ofg_model_free(m);
}

// A replaced file keeps its mode; a new one gets 0666 less the umask (was: always 0644).
TEST(SaveFiles, ModeOfReplacedAndNewFiles) {
  std::string dir = temp_dir();
  ofg_model* m = nullptr;
  ASSERT_EQ(ofg_model_create_demo(&m), OFG_OK);
  std::string path = dir + "/p.onnx";
  for (mode_t mode : {mode_t(0640), mode_t(0600), mode_t(0755)}) {
    ASSERT_EQ(ofg_save(m, path.c_str(), nullptr), OFG_OK);
    ASSERT_EQ(::chmod(path.c_str(), mode), 0);
    ASSERT_EQ(ofg_save(m, path.c_str(), nullptr), OFG_OK);
    EXPECT_EQ(mode_of(path), mode);
  }
  // In place, through a loaded model, with external data: both files keep their modes.
  std::string ext = demo_with_external_data(dir, "e.onnx");
  ASSERT_EQ(::chmod(ext.c_str(), 0640), 0);
  ASSERT_EQ(::chmod((ext + ".data").c_str(), 0604), 0);
  ofg_model* loaded = nullptr;
  ASSERT_EQ(ofg_load(ext.c_str(), nullptr, &loaded), OFG_OK);
  ASSERT_EQ(ofg_save(loaded, ext.c_str(), nullptr), OFG_OK);
  EXPECT_EQ(mode_of(ext), 0640u);
  EXPECT_EQ(mode_of(ext + ".data"), 0604u);
  ofg_model_free(loaded);
  for (mode_t mask : {mode_t(022), mode_t(027), mode_t(002)}) {
    mode_t old = ::umask(mask);
    std::string fresh = dir + "/new" + std::to_string(mask) + ".onnx";
    ASSERT_EQ(save_with(m, fresh, {{"save.external_data", "1"}, {"save.external_threshold", "256"}}), OFG_OK);
    ::umask(old);
    EXPECT_EQ(mode_of(fresh), 0666u & ~mask) << std::oct << mask;
    EXPECT_EQ(mode_of(fresh + ".data"), 0666u & ~mask) << std::oct << mask;
  }
  ofg_model_free(m);
}

// The owner and group of a replaced file are kept where the process may set them (root).
TEST(SaveFiles, OwnerOfReplacedFileIsKeptAsRoot) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root may give a file to another user";
  std::string dir = temp_dir();
  ofg_model* m = nullptr;
  ASSERT_EQ(ofg_model_create_demo(&m), OFG_OK);
  std::string path = dir + "/owned.onnx";
  ASSERT_EQ(ofg_save(m, path.c_str(), nullptr), OFG_OK);
  ASSERT_EQ(::chown(path.c_str(), 4242, 4343), 0);
  ASSERT_EQ(::chmod(path.c_str(), 02640), 0);  // set-group-id too: kept with the group
  ASSERT_EQ(ofg_save(m, path.c_str(), nullptr), OFG_OK);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 4242u);
  EXPECT_EQ(st.st_gid, 4343u);
  EXPECT_EQ(st.st_mode & 07777, 02640u);
  ofg_model_free(m);
}

// A symlinked output (model and data file): the file the link points to is replaced, the link
// stays a link, and the result loads through the link.
TEST(SaveFiles, SymlinkedOutputsReplaceTheirTargets) {
  std::string dir = temp_dir();
  ASSERT_EQ(::mkdir((dir + "/store").c_str(), 0755), 0);
  ofg_model* m = nullptr;
  ASSERT_EQ(ofg_model_create_demo(&m), OFG_OK);
  write_file(dir + "/store/real.onnx", {1, 2, 3});
  write_file(dir + "/store/real.data", {4, 5, 6});
  ASSERT_EQ(::symlink("store/real.onnx", (dir + "/link.onnx").c_str()), 0);
  ASSERT_EQ(::symlink("store/real.data", (dir + "/link.onnx.data").c_str()), 0);
  ASSERT_EQ(::chmod((dir + "/store/real.onnx").c_str(), 0640), 0);
  ASSERT_EQ(save_with(m, dir + "/link.onnx", {{"save.external_data", "1"}, {"save.external_threshold", "256"}}), OFG_OK)
      << ofg_last_error();
  for (const char* link : {"/link.onnx", "/link.onnx.data"}) {
    struct stat st {};
    ASSERT_EQ(::lstat((dir + link).c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode)) << link;
  }
  EXPECT_EQ(mode_of(dir + "/store/real.onnx"), 0640u);
  EXPECT_GT(read_file(dir + "/store/real.onnx").size(), 3u);
  EXPECT_GT(read_file(dir + "/store/real.data").size(), 3u);
  std::string location;
  EXPECT_GT(externals_in(dir + "/store/real.onnx", &location), 0);
  EXPECT_EQ(location, "link.onnx.data");  // named as the reader of link.onnx finds it
  ofg_model* back = nullptr;
  ASSERT_EQ(ofg_load((dir + "/link.onnx").c_str(), nullptr, &back), OFG_OK) << ofg_last_error();
  EXPECT_EQ(inline_bytes(back), inline_bytes(m));
  ofg_model_free(back);
  ofg_model_free(m);
  EXPECT_EQ(names_in(dir), (std::set<std::string>{"store", "link.onnx", "link.onnx.data"}));
  EXPECT_EQ(names_in(dir + "/store"), (std::set<std::string>{"real.onnx", "real.data"}));
}

// The temporary file: anonymous where O_TMPFILE works (no name in the folder while written);
// named and removable by ofg_remove_temporary_files otherwise.
TEST(SaveFiles, TemporaryFileHasNoNameOrIsRemovable) {
  std::string dir = temp_dir();
  const std::string target = dir + "/t.onnx";
  {
    ofg::TempFile t(target);
    ASSERT_EQ(::write(t.fd(), "abc", 3), 3);
#if defined(__linux__)
    EXPECT_TRUE(names_in(dir).empty());  // O_TMPFILE: nothing to leave behind
#endif
  }
  EXPECT_TRUE(names_in(dir).empty());
  ASSERT_EQ(::setenv("ONNXFORGE_NO_O_TMPFILE", "1", 1), 0);
  {
    ofg::TempFile t(target);
    std::set<std::string> names = names_in(dir);
    ASSERT_EQ(names.size(), 1u);
    EXPECT_EQ(names.begin()->rfind("t.onnx.tmp-", 0), 0u);
    ofg_remove_temporary_files();  // what the CLI's signal handler calls
    EXPECT_TRUE(names_in(dir).empty());
  }
  {
    ofg::TempFile t(target);
    ASSERT_EQ(::write(t.fd(), "xyz", 3), 3);
    t.finish(false);
    t.commit();
    t.settle();
    ofg_remove_temporary_files();  // committed: nothing of it is registered any more
  }
  ::unsetenv("ONNXFORGE_NO_O_TMPFILE");
  EXPECT_EQ(read_file(target), (std::vector<uint8_t>{'x', 'y', 'z'}));
  EXPECT_EQ(names_in(dir), (std::set<std::string>{"t.onnx"}));
}

// rollback() after commit(): the replaced file is back, or a file that did not exist is gone.
// save_model_file uses it for the data file when the model's rename fails after it.
TEST(SaveFiles, RollbackRestoresTheReplacedFile) {
  std::string dir = temp_dir();
  const std::string target = dir + "/d.data";
  write_file(target, {1, 2, 3});
  ASSERT_EQ(::chmod(target.c_str(), 0640), 0);
  {
    ofg::TempFile t(target);
    ASSERT_EQ(::write(t.fd(), "new", 3), 3);
    t.commit();
    EXPECT_EQ(read_file(target), (std::vector<uint8_t>{'n', 'e', 'w'}));
    t.rollback();
  }
  EXPECT_EQ(read_file(target), (std::vector<uint8_t>{1, 2, 3}));
  EXPECT_EQ(mode_of(target), 0640u);
  EXPECT_EQ(names_in(dir), (std::set<std::string>{"d.data"}));
  const std::string fresh = dir + "/fresh.data";
  {
    ofg::TempFile t(fresh);
    t.commit();
    EXPECT_TRUE(file_exists(fresh));
    t.rollback();
  }
  EXPECT_FALSE(file_exists(fresh));
  EXPECT_EQ(names_in(dir), (std::set<std::string>{"d.data"}));
}

}  // namespace
