#include "options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "messages.h"

namespace cli {

namespace {

bool valid_value(const OptionSpec& s, const std::string& v) {
  if (s.kind == OptionSpec::kCount)
    return !v.empty() && v.size() <= 18 && v.find_first_not_of("0123456789") == std::string::npos;
  if (s.kind == OptionSpec::kNumber) {
    char* end = nullptr;
    errno = 0;
    double d = std::strtod(v.c_str(), &end);
    return !v.empty() && *end == '\0' && errno == 0 && std::isfinite(d);
  }
  return true;
}

const char* kind_word(OptionSpec::Kind k) {
  return k == OptionSpec::kCount ? "a whole number" : k == OptionSpec::kNumber ? "a number" : "a value";
}

}  // namespace

std::string ParsedArgs::text(const char* name, const std::string& fallback) const {
  auto it = values.find(name);
  return it == values.end() || it->second.empty() ? fallback : it->second.back();
}

const std::vector<std::string>& ParsedArgs::all(const char* name) const {
  static const std::vector<std::string> kNone;
  auto it = values.find(name);
  return it == values.end() ? kNone : it->second;
}

double ParsedArgs::number(const char* name, double fallback) const {
  return has(name) ? std::strtod(text(name).c_str(), nullptr) : fallback;
}

bool parse_args(const char* command, const std::vector<std::string>& args, const std::vector<OptionSpec>& specs,
                ParsedArgs& out) {
  bool options_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (options_done || a.size() < 2 || a[0] != '-') {
      out.positional.push_back(a);
      continue;
    }
    if (a == "--") {
      options_done = true;
      continue;
    }
    if (a == "--help" || a == "-h") {
      out.help = true;
      continue;
    }
    size_t eq = a.find('=');
    std::string name = a.substr(0, eq);
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& s : specs)
      if (name == s.name) spec = &s;
    if (!spec) {
      std::vector<std::string> known = {"--help"};
      for (const OptionSpec& s : specs) known.push_back(s.name);
      std::string hint = nearest(name, known);
      std::fprintf(stderr, "onnxforge %s: unknown option '%s' (%sonnxforge help %s lists them)\n", command, name.c_str(),
                   hint.empty() ? "" : ("did you mean '" + hint + "'?; ").c_str(), command);
      return false;
    }
    std::string value;
    if (spec->kind == OptionSpec::kFlag) {
      if (eq != std::string::npos) {
        std::fprintf(stderr, "onnxforge %s: %s takes no value\n", command, spec->name);
        return false;
      }
    } else if (eq != std::string::npos) {
      value = a.substr(eq + 1);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      std::fprintf(stderr, "onnxforge %s: %s needs %s %s\n", command, spec->name, kind_word(spec->kind), spec->value_name);
      return false;
    }
    if (!valid_value(*spec, value)) {
      std::fprintf(stderr, "onnxforge %s: %s takes %s, got '%s'\n", command, spec->name, kind_word(spec->kind),
                   value.c_str());
      return false;
    }
    auto& list = out.values[spec->name];
    if (!list.empty() && !spec->repeatable) {
      std::fprintf(stderr, "onnxforge %s: %s given twice\n", command, spec->name);
      return false;
    }
    list.push_back(value);
  }
  return true;
}

void print_options(FILE* out, const std::vector<OptionSpec>& specs) {
  for (const OptionSpec& s : specs) {
    std::string left = std::string("  ") + s.name;
    if (s.kind != OptionSpec::kFlag) left += std::string(" ") + s.value_name;
    if (s.repeatable) left += " ...";
    if (left.size() < 24) left.resize(24, ' ');
    else left += "\n" + std::string(24, ' ');
    std::fprintf(out, "%s%s\n", left.c_str(), s.help);
  }
  std::fprintf(out, "  --help, -h              this text\n");
}

}  // namespace cli
