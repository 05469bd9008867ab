// Interned names: every identifier of a model (value names, op types, domains, attribute names)
// is stored once and referred to by a 32-bit id, so comparisons are integer compares and arena
// objects stay plain data.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <cstring>
#include <vector>

#include "ir/arena.h"

namespace ofg {

using StrId = uint32_t;
// A string field that is absent from the message (proto2 presence), as opposed to present and empty.
constexpr StrId kNoStr = UINT32_MAX;

// Open addressing with linear probing over a power-of-two slot array kept at most half full,
// and a hash that reads 8 bytes per step: loading a transformer export interns a few thousand
// names of 30-60 bytes, and std::unordered_map (a node allocation per string, a byte-wise hash,
// rehashing as it grew) was a quarter of the load time.
class StringTable {
 public:
  explicit StringTable(Arena& arena) : arena_(arena) { intern(""); }

  StrId intern(std::string_view s) {
    if ((strings_.size() + 1) * 2 > slots_.size()) grow();
    const uint32_t h = hash(s);
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const uint32_t slot = slots_[i];
      if (slot == 0) {
        char* copy = static_cast<char*>(arena_.allocate(s.size() + 1, 1));
        if (!s.empty()) std::memcpy(copy, s.data(), s.size());
        copy[s.size()] = '\0';
        StrId id = static_cast<StrId>(strings_.size());
        strings_.push_back(std::string_view(copy, s.size()));
        hashes_.push_back(h);
        slots_[i] = id + 1;
        return id;
      }
      if (hashes_[slot - 1] == h && strings_[slot - 1] == s) return slot - 1;
    }
  }
  // kNoStr when the string was never interned.
  StrId find(std::string_view s) const {
    const uint32_t h = hash(s);
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const uint32_t slot = slots_[i];
      if (slot == 0) return kNoStr;
      if (hashes_[slot - 1] == h && strings_[slot - 1] == s) return slot - 1;
    }
  }
  std::string_view view(StrId id) const { return id == kNoStr ? std::string_view() : strings_[id]; }
  const char* c_str(StrId id) const { return id == kNoStr ? "" : strings_[id].data(); }
  size_t size() const { return strings_.size(); }

 private:
  static uint32_t hash(std::string_view s) {
    const char* p = s.data();
    size_t n = s.size();
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    for (; n >= 8; p += 8, n -= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      h = (h ^ w) * 0xFF51AFD7ED558CCDull;
      h ^= h >> 32;
    }
    uint64_t w = 0;
    if (n) std::memcpy(&w, p, n);
    h = (h ^ w) * 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 29;
    return static_cast<uint32_t>(h);
  }

  void grow() {
    std::vector<uint32_t> bigger(slots_.empty() ? 1024 : slots_.size() * 2, 0);
    const size_t mask = bigger.size() - 1;
    for (StrId id = 0; id < strings_.size(); ++id) {
      size_t i = hashes_[id] & mask;
      while (bigger[i] != 0) i = (i + 1) & mask;
      bigger[i] = id + 1;
    }
    slots_.swap(bigger);
  }

  Arena& arena_;
  std::vector<std::string_view> strings_;
  std::vector<uint32_t> hashes_;  // hash of strings_[id], so probing and growing never rehash text
  std::vector<uint32_t> slots_;   // id + 1 of the string in each slot, 0 = empty
};

}  // namespace ofg
