// The library's JSON output (pass reports, verification reports) is written with these two
// helpers, so it is always valid JSON: strings escaped, and numbers JSON cannot hold (NaN,
// infinities) written as null with a sibling field naming them.
#pragma once
#include <cmath>
#include <cstdio>
#include <string>

namespace ofg::json {

inline std::string string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      out += b;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// `"key":v`, or `"key":null,"key_nonfinite":"inf"` (or "-inf", "nan") when v is not finite.
inline std::string number_field(const char* key, double v, const char* format = "%.6g") {
  std::string out = std::string("\"") + key + "\":";
  if (std::isfinite(v)) {
    char b[64];
    std::snprintf(b, sizeof b, format, v);
    return out + b;
  }
  const char* what = std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
  return out + "null,\"" + key + "_nonfinite\":\"" + what + "\"";
}

}  // namespace ofg::json
