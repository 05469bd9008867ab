// One option parser for every command: `--name value` and `--name=value`, `--` ends options,
// numbers validated where they are read, unknown options refused, help generated from the same
// table that drives the parsing.
#pragma once
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace cli {

struct OptionSpec {
  enum Kind { kFlag, kText, kCount, kNumber };
  const char* name;        // "--samples"
  Kind kind;
  const char* value_name;  // "N" (unused for flags)
  const char* help;
  bool repeatable = false;
};

struct ParsedArgs {
  std::vector<std::string> positional;
  bool help = false;
  bool has(const char* name) const { return values.count(name) != 0; }
  // The value given (the last one for repeatable options); `fallback` when absent.
  std::string text(const char* name, const std::string& fallback = "") const;
  const std::vector<std::string>& all(const char* name) const;
  double number(const char* name, double fallback) const;
  std::map<std::string, std::vector<std::string>> values;
};

// Parses `args` for `command`; prints what is wrong to stderr and returns false on an unknown
// option, a missing or malformed value, or a repeated option that is not repeatable.
bool parse_args(const char* command, const std::vector<std::string>& args, const std::vector<OptionSpec>& specs,
                ParsedArgs& out);
// The option table as help text.
void print_options(FILE* out, const std::vector<OptionSpec>& specs);

}  // namespace cli
