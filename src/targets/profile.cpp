// Parsing target profiles (format: docs/targets.md) and the list of built-in ones.
#include "targets/profile.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <set>

#include "convert/op_versions.h"
#include "ir/error.h"
#include "ir/ir.h"
#include "ops/registry.h"
#include "targets/profiles_data.h"

namespace ofg::targets {
namespace {

[[noreturn]] void bad(const std::string& file, int line, const std::string& what) {
  fail(Status::kInvalidArgument, "target profile " + file + ":" + std::to_string(line) + ": " + what);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

// The words of a line (separated by spaces and tabs; a trailing '\r' is dropped).
std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\r') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// The line after its first word, trimmed.
std::string rest_after_key(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t k = s.find_first_of(" \t", b);
  if (k == std::string::npos) return "";
  size_t r = s.find_first_not_of(" \t", k);
  if (r == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(r, e + 1 - r);
}

// A whole decimal number, else false.
bool parse_int(const std::string& s, int64_t& out) {
  if (s.empty() || s.size() > 18) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  out = std::strtoll(s.c_str(), nullptr, 10);
  return true;
}

// The element type called `name` by dtype_name (float32, int64, bool, ...), 0 when none is.
int32_t dtype_by_name(const std::string& name) {
  for (int32_t t = 1; t < 64; ++t)
    if (name == dtype_name(t)) return t;
  return 0;
}

// "I" or "I,J,..." input indices.
std::vector<int> parse_indices(const std::string& list, const std::string& file, int line, const std::string& tok) {
  std::vector<int> out;
  for (const std::string& s : split(list, ',')) {
    int64_t v;
    if (!parse_int(s, v) || v > 64) bad(file, line, "'" + tok + "': input indices are small whole numbers");
    out.push_back(static_cast<int>(v));
  }
  return out;
}

using TypeSets = std::map<std::string, std::vector<int32_t>>;

void parse_rule(OpEntry& e, const std::string& tok, const std::string& file, int line, const TypeSets& typesets) {
  size_t eq = tok.find('=');
  if (eq == std::string::npos || eq + 1 == tok.size()) bad(file, line, "rule '" + tok + "' has no value");
  std::string key = tok.substr(0, eq), val = tok.substr(eq + 1);
  int64_t n;
  if (key == "since" || key == "until") {
    if (!parse_int(val, n) || n < 1) bad(file, line, "'" + tok + "': an opset is a whole number >= 1");
    (key == "since" ? e.since : e.until) = n;
    return;
  }
  OpRule r{};
  if (key == "types" || key.rfind("types@", 0) == 0) {
    r.kind = OpRule::kTypes;
    if (key != "types") r.input = parse_indices(key.substr(6), file, line, tok).at(0);
    for (const std::string& t : split(val, ',')) {
      auto set = typesets.find(t);
      if (set != typesets.end()) {
        r.types.insert(r.types.end(), set->second.begin(), set->second.end());
        continue;
      }
      int32_t dt = dtype_by_name(t);
      if (!dt) bad(file, line, "'" + tok + "': unknown element type '" + t + "' (float32, int64, bool, ...)");
      r.types.push_back(dt);
    }
  } else if (key == "rank") {
    r.kind = OpRule::kRank;
    std::vector<std::string> lh = split(val, '-');
    int64_t lo, hi;
    if (lh.size() > 2 || !parse_int(lh[0], lo) || !parse_int(lh.back(), hi) || lo > hi || hi > 64)
      bad(file, line, "'" + tok + "': rank=N or rank=LO-HI");
    r.rank_lo = static_cast<int>(lo);
    r.rank_hi = static_cast<int>(hi);
  } else if (key == "const" || key == "zero") {
    for (int i : parse_indices(val, file, line, tok)) {
      OpRule c{};
      c.kind = key == "const" ? OpRule::kConst : OpRule::kZero;
      c.input = i;
      e.rules.push_back(c);
    }
    return;
  } else if (key.rfind("attr:", 0) == 0 && key.size() > 5) {
    r.kind = OpRule::kAttr;
    r.attr = key.substr(5);
    r.values = split(val, ',');
    for (const std::string& v : r.values)
      if (v.empty()) bad(file, line, "'" + tok + "': empty attribute value");
  } else {
    bad(file, line, "unknown rule '" + key + "' (since, until, types, types@I, rank, const, zero, attr:NAME)");
  }
  e.rules.push_back(std::move(r));
}

}  // namespace

const OpEntry* Profile::find(const std::string& domain, const std::string& op) const {
  auto it = ops.find({domain == "ai.onnx" ? "" : domain, op});
  return it == ops.end() ? nullptr : &it->second;
}

Profile parse_profile(const std::string& text, const std::string& file) {
  Profile p;
  TypeSets typesets;  // named element type sets of this file
  int line = 0;
  for (const std::string& raw : split(text, '\n')) {
    ++line;
    std::vector<std::string> w = words(raw.substr(0, raw.find('#')));
    if (w.empty()) continue;
    const std::string& key = w[0];
    std::string rest = rest_after_key(raw.substr(0, raw.find('#')));
    if (key == "target" || key == "title" || key == "source" || key == "url" || key == "version") {
      if (rest.empty()) bad(file, line, "'" + key + "' needs a value");
      std::string& field = key == "target" ? p.name : key == "title" ? p.title : key == "source" ? p.source
                           : key == "url" ? p.url : p.version;
      if (!field.empty()) bad(file, line, "'" + key + "' given twice");
      field = rest;
    } else if (key == "note") {
      // Notes are for readers of the file; the library keeps none.
    } else if (key == "typeset") {
      size_t eq = w.size() == 2 ? w[1].find('=') : std::string::npos;
      if (eq == std::string::npos || eq == 0) bad(file, line, "'typeset NAME=T,...'");
      std::vector<int32_t>& set = typesets[w[1].substr(0, eq)];
      for (const std::string& t : split(w[1].substr(eq + 1), ',')) {
        int32_t dt = dtype_by_name(t);
        if (!dt) bad(file, line, "typeset: unknown element type '" + t + "'");
        set.push_back(dt);
      }
    } else if (key == "opset") {
      int64_t l, h = 0;
      if (w.size() != 3 || !parse_int(w[1], l) || l < 1 || (w[2] != "*" && (!parse_int(w[2], h) || h < l)))
        bad(file, line, "'opset LO HI' (HI a number >= LO, or '*')");
      if (p.opset_lo) bad(file, line, "'opset' given twice");
      p.opset_lo = l;
      p.opset_hi = h;
    } else if (key == "op") {
      if (w.size() < 2) bad(file, line, "'op' needs a name");
      const std::string& name = w[1];
      OpEntry e;
      size_t colon = name.rfind(':');
      if (colon != std::string::npos) {
        e.domain = name.substr(0, colon);
        e.op = name.substr(colon + 1);
        if (e.domain.empty() || e.op.empty()) bad(file, line, "'" + name + "': DOMAIN:OP");
      } else {
        e.op = name;
      }
      for (size_t i = 2; i < w.size(); ++i) parse_rule(e, w[i], file, line, typesets);
      if (e.since && e.until && e.since > e.until) bad(file, line, name + ": since is after until");
      auto key2 = std::make_pair(e.domain, e.op);
      if (p.ops.count(key2)) bad(file, line, "op " + name + " listed twice");
      p.ops.emplace(key2, std::move(e));
    } else {
      bad(file, line, "unknown directive '" + key + "' (target, title, source, url, version, note, typeset, opset, op)");
    }
  }
  for (const char* need : {"target", "source", "url", "version"}) {
    const std::string& v = std::string(need) == "target" ? p.name : std::string(need) == "source" ? p.source
                           : std::string(need) == "url" ? p.url : p.version;
    if (v.empty()) bad(file, line, std::string("no '") + need + "' line");
  }
  if (p.ops.empty()) bad(file, line, "no 'op' line");
  return p;
}

const std::vector<Profile>& builtin_profiles() {
  static const std::vector<Profile> all = [] {
    std::vector<Profile> v;
    for (size_t i = 0; i < kProfileCount; ++i) {
      try {
        v.push_back(parse_profile(kProfiles[i].text, kProfiles[i].file));
      } catch (const Error& e) {
        fail(Status::kInternal, e.what());
      }
      if (v.back().name + ".profile" != kProfiles[i].file)
        fail(Status::kInternal, std::string("target profile ") + kProfiles[i].file + " names itself '" + v.back().name + "'");
    }
    return v;
  }();
  return all;
}

namespace {

// opset:N from the op-version table: every default-domain op the library knows (its registry,
// plus the ops of the table) that exists at opset N.
Profile generic_profile(int64_t n) {
  Profile p;
  p.name = "opset:" + std::to_string(n);
  p.title = "Every default-domain ONNX op that exists at opset " + std::to_string(n);
  p.source = "onnxforge's op-version table (src/convert/op_versions.cpp, from the ONNX operator changelog)";
  p.url = "https://github.com/onnx/onnx/blob/main/docs/Changelog.md";
  p.version = "this build of onnxforge";
  p.opset_lo = p.opset_hi = n;
  std::set<std::string> names;
  for (const ops::OpEntry* e : ops::Registry::instance().all_entries())
    if (e->domain.empty() || e->domain == "ai.onnx") names.insert(std::string(e->op_type));
  for (const std::string& op : names) {
    convert::OpRange r = convert::op_range(op);
    if (r.since > n || r.until < n) continue;
    OpEntry e;
    e.op = op;
    p.ops.emplace(std::make_pair(std::string(), op), std::move(e));
  }
  return p;
}

}  // namespace

std::string known_names() {
  std::string s;
  for (const Profile& p : builtin_profiles()) s += (s.empty() ? "" : ", ") + p.name;
  return s + ", opset:N (N " + std::to_string(kGenericOpsetLo) + " to " + std::to_string(kGenericOpsetHi) + ")";
}

const Profile& find_profile(const std::string& name) {
  for (const Profile& p : builtin_profiles())
    if (p.name == name) return p;
  if (name.rfind("opset:", 0) == 0) {
    int64_t n;
    if (parse_int(name.substr(6), n) && n >= kGenericOpsetLo && n <= kGenericOpsetHi) {
      // Made on first request and kept (the C ABI may be called from several threads).
      static std::mutex mu;
      static std::unique_ptr<Profile> made[kGenericOpsetHi - kGenericOpsetLo + 1];
      std::lock_guard<std::mutex> lock(mu);
      std::unique_ptr<Profile>& slot = made[n - kGenericOpsetLo];
      if (!slot) slot.reset(new Profile(generic_profile(n)));
      return *slot;
    }
  }
  fail(Status::kInvalidArgument, "unknown target '" + name + "'; known targets: " + known_names());
}

}  // namespace ofg::targets
