// Interned names: every identifier of a model (value names, op types, domains, attribute names)
// is stored once and referred to by a 32-bit id, so comparisons are integer compares and arena
// objects stay plain data.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/arena.h"

namespace ofg {

using StrId = uint32_t;
// A string field that is absent from the message (proto2 presence), as opposed to present and empty.
constexpr StrId kNoStr = UINT32_MAX;

class StringTable {
 public:
  explicit StringTable(Arena& arena) : arena_(arena) { intern(""); }

  StrId intern(std::string_view s) {
    auto it = index_.find(s);
    if (it != index_.end()) return it->second;
    char* copy = static_cast<char*>(arena_.allocate(s.size() + 1, 1));
    if (!s.empty()) std::memcpy(copy, s.data(), s.size());
    copy[s.size()] = '\0';
    std::string_view stored(copy, s.size());
    StrId id = static_cast<StrId>(strings_.size());
    strings_.push_back(stored);
    index_.emplace(stored, id);
    return id;
  }
  // kNoStr when the string was never interned.
  StrId find(std::string_view s) const {
    auto it = index_.find(s);
    return it == index_.end() ? kNoStr : it->second;
  }
  std::string_view view(StrId id) const { return id == kNoStr ? std::string_view() : strings_[id]; }
  const char* c_str(StrId id) const { return id == kNoStr ? "" : strings_[id].data(); }
  size_t size() const { return strings_.size(); }

 private:
  Arena& arena_;
  std::vector<std::string_view> strings_;
  std::unordered_map<std::string_view, StrId> index_;
};

}  // namespace ofg
