// The one JSON writer of the command line: every command that prints or writes JSON builds it
// here, so the output is always valid JSON (escaped strings; NaN and infinities written as null
// with a "<key>_nonfinite" sibling naming them).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace cli {

class JsonWriter {
 public:
  JsonWriter& begin_object(const char* key = nullptr);
  JsonWriter& end_object();
  JsonWriter& begin_array(const char* key = nullptr);
  JsonWriter& end_array();
  JsonWriter& str(const char* key, const std::string& v);
  JsonWriter& num(const char* key, double v);
  JsonWriter& integer(const char* key, long long v);
  JsonWriter& boolean(const char* key, bool v);
  JsonWriter& null(const char* key);
  // A value that is already JSON (the library's reports); null when `json` is null.
  JsonWriter& raw(const char* key, const char* json);
  const std::string& text() const { return out_; }

 private:
  JsonWriter& open(const char* key, char bracket);  // an object or array, in its parent
  JsonWriter& close(char bracket);
  void key(const char* k);
  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
};

std::string json_quote(const std::string& s);

}  // namespace cli
