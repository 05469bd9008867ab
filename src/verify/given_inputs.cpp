// Real inputs for verification (the "verify.test_data" and "verify.input.NAME" options of
// ofg_verify and optimize.verify_each_pass), read from the files and folders the caller named.
#include <dirent.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "exec/input_check.h"
#include "verify/given_inputs.h"
#include "verify/values.h"

namespace ofg::verify {
namespace {

std::string read_whole_file(const std::string& path, const char* caller) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) fail(Status::kIo, std::string(caller) + ": cannot open '" + path + "'");
  std::string bytes;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
  bool bad = std::ferror(f) != 0;
  std::fclose(f);
  if (bad) fail(Status::kIo, std::string(caller) + ": cannot read '" + path + "'");
  return bytes;
}

// Entries of `dir` whose names start with `prefix`, sorted by the number that follows it.
std::vector<std::pair<long, std::string>> numbered_entries(const std::string& dir, const std::string& prefix,
                                                           const std::string& suffix) {
  std::vector<std::pair<long, std::string>> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    out.emplace_back(std::strtol(digits.c_str(), nullptr, 10), name);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

// Graph input `index` of `m` from a .pb file's bytes (as the input's declared type says).
exec::RValue input_from_pb(const Model& m, size_t index, const std::string& bytes, const std::string& context) {
  const ValueInfo& vi = m.graph->inputs[index];
  Bytes b{reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()};
  exec::RValue r = to_runtime(read_value_pb(b, vi.type ? vi.type : vi.value->type, context));
  // Checked here too (the interpreter checks every run) so that the message names the file.
  try {
    exec::check_input(m, index, r);
  } catch (const Error& e) {
    fail(e.status(), context + ": " + e.what());
  }
  return r;
}

// One test_data_set_N folder: input_K.pb is graph input K.
GivenInputs read_set(const Model& m, const std::string& dir, const char* caller) {
  GivenInputs set;
  set.source = dir;
  for (auto& [k, file] : numbered_entries(dir, "input_", ".pb")) {
    if (k < 0 || static_cast<size_t>(k) >= m.graph->inputs.size)
      fail(Status::kInvalidArgument, std::string(caller) + ": " + dir + "/" + file + " names input " + std::to_string(k) +
                                         " but the model has " + std::to_string(m.graph->inputs.size));
    std::string bytes = read_whole_file(dir + "/" + file, caller);
    std::string name(m.str(m.graph->inputs[static_cast<size_t>(k)].value->name));
    set.values.emplace_back(name, input_from_pb(m, static_cast<size_t>(k), bytes, std::string(caller) + ": " + dir + "/" + file));
  }
  return set;
}

}  // namespace

std::vector<GivenInputs> read_given_inputs(const Model& reference, const std::string& test_data,
                                           const std::vector<std::pair<std::string, std::string>>& input_files,
                                           const char* caller) {
  std::vector<GivenInputs> sets;
  std::string dir = test_data;
  if (!dir.empty()) {
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    GivenInputs direct = read_set(reference, dir, caller);
    if (!direct.values.empty()) sets.push_back(std::move(direct));
    else
      for (auto& entry : numbered_entries(dir, "test_data_set_", "")) {
        GivenInputs set = read_set(reference, dir + "/" + entry.second, caller);
        if (!set.values.empty()) sets.push_back(std::move(set));
      }
    if (sets.empty())
      fail(Status::kIo, std::string(caller) + ": verify.test_data: '" + dir +
                            "' holds no input_K.pb and no test_data_set_N folder with one");
  }
  // Single files per input: added to every set, or one set of their own.
  GivenInputs files;
  for (auto& [name, path] : input_files) {
    size_t index = reference.graph->inputs.size;
    for (size_t i = 0; i < reference.graph->inputs.size; ++i)
      if (reference.str(reference.graph->inputs[i].value->name) == name) index = i;
    if (index == reference.graph->inputs.size)
      fail(Status::kInvalidArgument, std::string(caller) + ": verify.input." + name + ": the model has no input '" + name + "' (its inputs: " +
                                         exec::input_names_text(reference) + ")");
    std::string bytes = read_whole_file(path, caller);
    files.values.emplace_back(name, input_from_pb(reference, index, bytes, std::string(caller) + ": " + path));
    files.source += (files.source.empty() ? "" : ", ") + path;
  }
  if (!files.values.empty()) {
    if (sets.empty()) sets.push_back(std::move(files));
    else
      for (GivenInputs& s : sets) {
        for (auto& f : files.values) {
          auto same = [&](const auto& kv) { return kv.first == f.first; };
          s.values.erase(std::remove_if(s.values.begin(), s.values.end(), same), s.values.end());
          s.values.push_back(f);
        }
        s.source += " with " + files.source;
      }
  }
  return sets;
}

void dims_of_given(const Model& reference, const std::vector<GivenInputs>& sets, std::map<std::string, int64_t>& dims) {
  if (sets.empty()) return;
  for (const auto& [name, value] : sets[0].values) {
    if (value.kind != exec::RValue::kTensor) continue;
    for (const ValueInfo& vi : reference.graph->inputs) {
      const Type* t = vi.type ? vi.type : vi.value->type;
      if (reference.str(vi.value->name) != name || !vi.has_type || !t || !t->shape_known() ||
          t->dims.size != value.t.shape.size())
        continue;
      for (uint32_t k = 0; k < t->dims.size; ++k) {
        if (!t->dims[k].is_symbolic()) continue;
        std::string symbol(reference.str(t->dims[k].param));
        auto [it, added] = dims.emplace(symbol, value.t.shape[k]);
        if (!added && it->second != value.t.shape[k])
          fail(Status::kInvalidArgument, "verify.dim." + symbol + " is " + std::to_string(it->second) + ", but input '" +
                                             name + "' is given " + exec::given_value_text(value) + " (" +
                                             sets[0].source + ") where the model declares " +
                                             exec::declared_type_text(reference, t));
      }
    }
  }
}

}  // namespace ofg::verify
