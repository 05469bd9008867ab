#include <cmath>
#include <cstdio>

#include "cli.h"

namespace cli {

int report(const char* what, ofg_status s) {
  std::fprintf(stderr, "onnxforge: %s: %s (%s)\n", what, ofg_last_error(), ofg_status_string(s));
  return kUsage;
}

ofg_status load_model(const std::string& path, bool demo, ofg_model** out) {
  if (demo) return ofg_model_create_demo(out);
  return ofg_load(path.c_str(), nullptr, out);
}

std::string json_number_field(const char* key, double v) {
  std::string out = std::string("\"") + key + "\":";
  if (std::isfinite(v)) {
    char b[64];
    std::snprintf(b, sizeof b, "%.6g", v);
    return out + b;
  }
  return out + "null,\"" + key + "_nonfinite\":\"" + (std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf") + "\"";
}

std::string json_escape(const std::string& s) {
  std::string out;
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
  return out;
}

bool is_flag(const std::string& a, const char* name) { return a == name; }

}  // namespace cli
