#include "json_writer.h"

#include <cmath>
#include <cstdio>

namespace cli {

std::string json_quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

void JsonWriter::key(const char* k) {
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
  if (k) out_ += json_quote(k) + ":";
}

JsonWriter& JsonWriter::open(const char* k, char bracket) {
  key(k);
  out_ += bracket;
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::close(char bracket) {
  out_ += bracket;
  first_.pop_back();
  return *this;
}
JsonWriter& JsonWriter::begin_object(const char* k) { return open(k, '{'); }
JsonWriter& JsonWriter::end_object() { return close('}'); }
JsonWriter& JsonWriter::begin_array(const char* k) { return open(k, '['); }
JsonWriter& JsonWriter::end_array() { return close(']'); }
JsonWriter& JsonWriter::str(const char* k, const std::string& v) {
  key(k);
  out_ += json_quote(v);
  return *this;
}
JsonWriter& JsonWriter::num(const char* k, double v) {
  key(k);
  if (std::isfinite(v)) {
    char b[64];
    std::snprintf(b, sizeof b, "%.6g", v);
    out_ += b;
  } else {
    out_ += "null";
    if (k) str((std::string(k) + "_nonfinite").c_str(), std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
  }
  return *this;
}
JsonWriter& JsonWriter::integer(const char* k, long long v) {
  key(k);
  out_ += std::to_string(v);
  return *this;
}
JsonWriter& JsonWriter::boolean(const char* k, bool v) {
  key(k);
  out_ += v ? "true" : "false";
  return *this;
}
JsonWriter& JsonWriter::null(const char* k) {
  key(k);
  out_ += "null";
  return *this;
}
JsonWriter& JsonWriter::raw(const char* k, const char* json) {
  key(k);
  out_ += json ? json : "null";
  return *this;
}

}  // namespace cli
