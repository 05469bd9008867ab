#include "json_reader.h"

#include <cstdlib>

namespace cli {
namespace {

struct Reader {
  const std::string& t;
  size_t i = 0;
  void ws() {
    while (i < t.size() && (t[i] == ' ' || t[i] == '\n' || t[i] == '\t' || t[i] == '\r')) ++i;
  }
  bool lit(const char* w) {
    size_t n = std::char_traits<char>::length(w);
    if (t.compare(i, n, w) != 0) return false;
    i += n;
    return true;
  }
  bool string(std::string& out) {
    if (i >= t.size() || t[i] != '"') return false;
    ++i;
    while (i < t.size() && t[i] != '"') {
      char c = t[i++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i >= t.size()) return false;
      char e = t[i++];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {  // the library escapes only control characters this way
          if (i + 4 > t.size()) return false;
          out += static_cast<char>(std::strtol(t.substr(i, 4).c_str(), nullptr, 16));
          i += 4;
          break;
        }
        default: out += e;
      }
    }
    if (i >= t.size()) return false;
    ++i;
    return true;
  }
  // From the opening bracket at i: nothing, or `one` (one member, read) then ',' or `close`, repeated.
  template <class One>
  bool members(char close, One&& one) {
    ++i;
    ws();
    if (i < t.size() && t[i] == close) return ++i, true;
    for (;;) {
      if (!one()) return false;
      ws();
      if (i < t.size() && t[i] == ',') { ++i; continue; }
      if (i < t.size() && t[i] == close) return ++i, true;
      return false;
    }
  }
  bool value(JsonValue& v, int depth) {
    if (depth > 64) return false;
    ws();
    if (i >= t.size()) return false;
    char c = t[i];
    if (c == '{') {
      v.kind = JsonValue::kObject;
      return members('}', [&] {
        ws();
        std::string k;
        if (!string(k)) return false;
        ws();
        if (i >= t.size() || t[i++] != ':') return false;
        JsonValue x;
        if (!value(x, depth + 1)) return false;
        v.fields.emplace_back(std::move(k), std::move(x));
        return true;
      });
    }
    if (c == '[') {
      v.kind = JsonValue::kArray;
      return members(']', [&] {
        JsonValue x;
        if (!value(x, depth + 1)) return false;
        v.items.push_back(std::move(x));
        return true;
      });
    }
    if (c == '"') {
      v.kind = JsonValue::kString;
      return string(v.s);
    }
    if (lit("true")) { v.kind = JsonValue::kBool; v.b = true; return true; }
    if (lit("false")) { v.kind = JsonValue::kBool; return true; }
    if (lit("null")) return true;
    char* end = nullptr;
    v.num = std::strtod(t.c_str() + i, &end);
    if (end == t.c_str() + i) return false;
    v.kind = JsonValue::kNumber;
    i = static_cast<size_t>(end - t.c_str());
    return true;
  }
};

}  // namespace

const JsonValue& JsonValue::operator[](const std::string& key) const {
  static const JsonValue none;
  for (const auto& f : fields)
    if (f.first == key) return f.second;
  return none;
}

bool parse_json(const std::string& text, JsonValue& out) {
  Reader r{text};
  out = JsonValue();
  if (!r.value(out, 0)) return false;
  r.ws();
  return r.i == text.size();
}

}  // namespace cli
