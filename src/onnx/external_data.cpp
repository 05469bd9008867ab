#include "onnx/external_data.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "ir/error.h"
#include "ofg_onnx_fields.h"
#include "onnx/wire.h"

namespace ofg {
namespace {

bool parse_u64(const std::string& s, uint64_t& out) {
  if (s.empty() || s.size() > 19) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  out = v;
  return true;
}

std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  if (!::realpath(p.c_str(), buf)) return std::string();
  return buf;
}

}  // namespace

ExternalRef read_external_ref(const Tensor& t, const std::string& where) {
  ExternalRef ref;
  bool has_location = false;
  for (const RawField& f : t.extra) {
    if (f.number != ofg_onnx_fields::TensorProto::kExternalDataFieldNumber) continue;
    wire::Reader outer(f.encoded, &where);
    uint32_t num, wt;
    outer.next_field(num, wt);
    wire::Reader r(outer.length_delimited(), &where);
    std::string key, value;
    while (!r.done()) {
      r.next_field(num, wt);
      if (wt != wire::kLengthDelimited) { r.skip(wt); continue; }
      std::string_view s = r.length_delimited().view();
      if (num == ofg_onnx_fields::StringStringEntryProto::kKeyFieldNumber) key = s;
      else if (num == ofg_onnx_fields::StringStringEntryProto::kValueFieldNumber) value = s;
    }
    if (key == "location") {
      ref.location = value;
      has_location = true;
    } else if (key == "offset") {
      if (!parse_u64(value, ref.offset)) fail(Status::kInvalidModel, where + ": external data offset '" + value + "' is not a non-negative integer");
      ref.has_offset = true;
    } else if (key == "length") {
      if (!parse_u64(value, ref.length)) fail(Status::kInvalidModel, where + ": external data length '" + value + "' is not a non-negative integer");
      ref.has_length = true;
    }
  }
  if (!has_location || ref.location.empty()) fail(Status::kInvalidModel, where + ": external data without a location");
  return ref;
}

Bytes ExternalData::resolve(const Tensor& t, Model& m, size_t want, const std::string& where) {
  ExternalRef ref = read_external_ref(t, where);
  const std::string& loc = ref.location;
  if (loc.find('\0') != std::string::npos) fail(Status::kInvalidModel, where + ": external data location contains a NUL byte");
  if (loc[0] == '/' || loc[0] == '\\' || (loc.size() > 1 && loc[1] == ':'))
    fail(Status::kInvalidModel, where + ": external data location '" + loc + "' is absolute; only paths inside the model's folder are read");
  // Reject any '..' component, whichever separator is used.
  size_t start = 0;
  while (start <= loc.size()) {
    size_t end = loc.find_first_of("/\\", start);
    if (end == std::string::npos) end = loc.size();
    if (loc.compare(start, end - start, "..") == 0)
      fail(Status::kInvalidModel, where + ": external data location '" + loc + "' contains '..'; only paths inside the model's folder are read");
    start = end + 1;
  }
  if (real_folder_.empty()) {
    real_folder_ = real_path(folder_);
    if (real_folder_.empty()) fail(Status::kIo, where + ": external data folder '" + folder_ + "' cannot be resolved: " + std::strerror(errno));
  }
  std::string full = folder_ + "/" + loc;
  std::string real = real_path(full);
  if (real.empty()) fail(Status::kIo, where + ": external data file '" + full + "' cannot be opened: " + std::strerror(errno));
  std::string prefix = real_folder_ == "/" ? "/" : real_folder_ + "/";
  if (real.compare(0, prefix.size(), prefix) != 0)
    fail(Status::kInvalidModel, where + ": external data location '" + loc + "' leads outside the model's folder (through a link)");
  auto it = files_.find(real);
  if (it == files_.end()) {
    it = files_.emplace(real, MappedFile::open(real)).first;
    m.backings.push_back(it->second);
  }
  if (std::find(m.external_locations.begin(), m.external_locations.end(), loc) == m.external_locations.end())
    m.external_locations.push_back(loc);
  const MappedFile& file = *it->second;
  uint64_t offset = ref.has_offset ? ref.offset : 0;
  if (offset > file.size())
    fail(Status::kInvalidModel, where + ": external data offset " + std::to_string(offset) + " is past the end of '" + loc +
                                    "' (" + std::to_string(file.size()) + " bytes)");
  uint64_t length = ref.has_length ? ref.length : file.size() - offset;
  if (length > file.size() - offset)
    fail(Status::kInvalidModel, where + ": external data [" + std::to_string(offset) + ", +" + std::to_string(length) +
                                    ") runs past the end of '" + loc + "' (" + std::to_string(file.size()) + " bytes)");
  if (length != want)
    fail(Status::kInvalidModel, where + ": external data has " + std::to_string(length) + " bytes, its type and dims need " + std::to_string(want));
  return Bytes{file.data() + offset, static_cast<size_t>(length)};
}

}  // namespace ofg
