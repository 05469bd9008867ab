// A small JSON reader, just enough to find one object in a report: the library writes JSON but had
// no reason to read it before the diff took a report's provenance.
#include "diff/provenance.h"

#include <cstdlib>
#include <memory>

#include "ir/error.h"

namespace ofg::diff {
namespace {

struct JsonNode {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = kNull;
  std::string s;
  std::vector<JsonNode> items;                          // kArray
  std::vector<std::pair<std::string, JsonNode>> fields;  // kObject, in order
  const JsonNode* field(const std::string& key) const {
    for (const auto& f : fields)
      if (f.first == key) return &f.second;
    return nullptr;
  }
};

class Reader {
 public:
  explicit Reader(const std::string& t) : t_(t) {}

  JsonNode document() {
    JsonNode v = value(0);
    skip_space();
    if (i_ != t_.size()) error("text after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void error(const std::string& what) const {
    fail(Status::kInvalidArgument, "provenance: not valid JSON at offset " + std::to_string(i_) + ": " + what);
  }
  void skip_space() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\n' || t_[i_] == '\r')) ++i_;
  }
  bool take(char c) {
    skip_space();
    if (i_ < t_.size() && t_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!take(c)) error(std::string("expected '") + c + "'");
  }
  bool literal(const char* word) {
    size_t n = std::char_traits<char>::length(word);
    if (t_.compare(i_, n, word) != 0) return false;
    i_ += n;
    return true;
  }

  // Appends code point cp as UTF-8.
  static void put_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  unsigned hex4() {
    if (i_ + 4 > t_.size()) error("short \\u escape");
    unsigned v = 0;
    for (int k = 0; k < 4; ++k) {
      char c = t_[i_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= c - '0';
      else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
      else error("bad \\u escape");
    }
    return v;
  }
  std::string string() {
    expect('"');
    std::string out;
    while (true) {
      if (i_ >= t_.size()) error("unterminated string");
      char c = t_[i_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= t_.size()) error("unterminated escape");
      char e = t_[i_++];
      switch (e) {
        case '"': case '\\': case '/': out += e; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && t_.compare(i_, 2, "\\u") == 0) {  // surrogate pair
            i_ += 2;
            unsigned lo = hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) error("bad surrogate pair");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          put_utf8(out, cp);
          break;
        }
        default: error("bad escape");
      }
    }
  }
  JsonNode value(int depth) {
    if (depth > 64) error("nested too deeply");
    skip_space();
    if (i_ >= t_.size()) error("unexpected end");
    JsonNode v;
    char c = t_[i_];
    if (c == '{') {
      ++i_;
      v.kind = JsonNode::kObject;
      if (take('}')) return v;
      do {
        skip_space();
        std::string key = string();
        expect(':');
        v.fields.emplace_back(std::move(key), value(depth + 1));
      } while (take(','));
      expect('}');
    } else if (c == '[') {
      ++i_;
      v.kind = JsonNode::kArray;
      if (take(']')) return v;
      do v.items.push_back(value(depth + 1));
      while (take(','));
      expect(']');
    } else if (c == '"') {
      v.kind = JsonNode::kString;
      v.s = string();
    } else if (literal("true") || literal("false")) {
      v.kind = JsonNode::kBool;
    } else if (literal("null")) {
      v.kind = JsonNode::kNull;
    } else {
      const char* start = t_.c_str() + i_;
      char* end = nullptr;
      std::strtod(start, &end);
      if (end == start) error("unexpected character");
      i_ += static_cast<size_t>(end - start);
      v.kind = JsonNode::kNumber;
    }
    return v;
  }

  const std::string& t_;
  size_t i_ = 0;
};

// An object whose every value is an array of strings (an empty object counts).
bool is_name_map(const JsonNode& v) {
  if (v.kind != JsonNode::kObject) return false;
  for (const auto& f : v.fields) {
    if (f.second.kind != JsonNode::kArray) return false;
    for (const JsonNode& x : f.second.items)
      if (x.kind != JsonNode::kString) return false;
  }
  return true;
}

Provenance to_map(const JsonNode& object) {
  Provenance p;
  for (const auto& f : object.fields) {
    std::vector<std::string>& origins = p[f.first];
    for (const JsonNode& x : f.second.items) origins.push_back(x.s);
  }
  return p;
}

}  // namespace

Provenance parse_folded(const std::string& json) {
  JsonNode doc = Reader(json).document();
  const JsonNode* holder = doc.field("provenance") ? &doc : nullptr;
  for (size_t k = 0; !holder && k < doc.fields.size(); ++k)
    if (doc.fields[k].second.kind == JsonNode::kObject && doc.fields[k].second.field("provenance")) holder = &doc.fields[k].second;
  const JsonNode* folded = holder ? holder->field("folded") : nullptr;
  if (!folded) return {};
  if (!is_name_map(*folded))
    fail(Status::kInvalidArgument, "provenance: \"folded\" must map each initializer name to an array of node names");
  return to_map(*folded);
}

Provenance parse_provenance(const std::string& json) {
  JsonNode doc = Reader(json).document();
  if (doc.kind != JsonNode::kObject) fail(Status::kInvalidArgument, "provenance: expected a JSON object (an optimize report)");
  const JsonNode* found = doc.field("provenance");
  for (size_t k = 0; !found && k < doc.fields.size(); ++k)
    if (doc.fields[k].second.kind == JsonNode::kObject) found = doc.fields[k].second.field("provenance");
  // The bare map: at least one node with an origin, so a report without provenance whose only
  // fields are empty lists ({"passes": []}) is not mistaken for one.
  bool any_origin = false;
  for (const auto& f : doc.fields) any_origin = any_origin || (f.second.kind == JsonNode::kArray && !f.second.items.empty());
  if (!found && is_name_map(doc) && any_origin) found = &doc;
  if (!found)
    fail(Status::kInvalidArgument,
         "provenance: no \"provenance\" object in the report (expected {\"provenance\": {node: [original nodes]}} at "
         "the top level or one level down; optimize --report writes it)");
  if (!is_name_map(*found))
    fail(Status::kInvalidArgument, "provenance: \"provenance\" must map each node name to an array of node names");
  return to_map(*found);
}

}  // namespace ofg::diff
