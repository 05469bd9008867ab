// Target profiles: what a converter or runtime (TensorRT, OpenVINO, RKNN, QNN, Core ML through
// ONNX Runtime) accepts, as data. Each profile is a text file in targets/ (format: docs/targets.md),
// compiled into the library by CMake (profiles_data.h) and parsed once on first use; plus the
// generic "opset:N" profiles computed from the library's op-version table.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ofg::targets {

// One rule of an op entry.
struct OpRule {
  enum Kind { kTypes, kRank, kConst, kZero, kAttr };
  Kind kind;
  int input = 0;                     // kTypes, kConst, kZero: the input index
  std::vector<int32_t> types;        // kTypes: TensorProto element types allowed
  int rank_lo = 0, rank_hi = 0;      // kRank: input 0's rank range
  std::string attr;                  // kAttr: the attribute's name
  std::vector<std::string> values;   // kAttr: the allowed values, as text ("nearest", "0")
};

struct OpEntry {
  std::string domain;  // "" = the default ONNX domain
  std::string op;
  int64_t since = 0, until = 0;  // 0: no bound of the profile's own
  std::vector<OpRule> rules;
};

struct Profile {
  std::string name, title, source, url, version;
  int64_t opset_lo = 0, opset_hi = 0;  // default-domain opset range; 0 = unbounded
  std::map<std::pair<std::string, std::string>, OpEntry> ops;  // (domain, op)
  const OpEntry* find(const std::string& domain, const std::string& op) const;
};

// Parses a profile's text; throws ofg::Error (kInvalidArgument) naming `file`, the line and what
// is wrong.
Profile parse_profile(const std::string& text, const std::string& file);

// The built-in profiles, parsed on first use (a malformed one throws kInternal: the tests parse
// every one, so a release never carries one).
const std::vector<Profile>& builtin_profiles();

// The lowest and highest N of the generic "opset:N" profiles.
constexpr int64_t kGenericOpsetLo = 7, kGenericOpsetHi = 28;

// The profile called `name` ("tensorrt", "opset:17"), kept for the life of the process; throws
// kInvalidArgument listing the known names when there is none.
const Profile& find_profile(const std::string& name);

// Every profile's name in listing order (the built-in files, then "opset:N").
std::string known_names();

}  // namespace ofg::targets
