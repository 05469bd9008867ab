// A small JSON reader for the library's own JSON answers (ofg_targets_json, ofg_check_target), so
// the command line can print them as text without another C ABI per field.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cli {

struct JsonValue {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = kNull;
  bool b = false;
  double num = 0;
  std::string s;
  std::vector<JsonValue> items;                 // kArray
  std::vector<std::pair<std::string, JsonValue>> fields;  // kObject, in order
  // The field `key` of an object, or a null value when absent.
  const JsonValue& operator[](const std::string& key) const;
  std::string str(const std::string& key) const { return (*this)[key].s; }
  long long integer(const std::string& key) const { return static_cast<long long>((*this)[key].num); }
};

// Parses `text`; false (out unspecified) when it is not one well-formed JSON value.
bool parse_json(const std::string& text, JsonValue& out);

}  // namespace cli
