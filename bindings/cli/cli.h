// The onnxforge command line. Written against include_c/onnxforge.h only.
#pragma once
#include <string>
#include <vector>

#include "onnxforge.h"

namespace cli {

// Exit codes of every verb.
enum Exit { kOk = 0, kCheckFailed = 1, kUsage = 2 };

using Args = std::vector<std::string>;

// Prints "onnxforge: <what>: <ofg_last_error()>" to stderr and returns kUsage.
int report(const char* what, ofg_status s);
// Loads `path`, or the built-in demo model when `path` is empty.
ofg_status load_or_demo(const std::string& path, ofg_model** out);
std::string json_escape(const std::string& s);
bool is_flag(const std::string& a, const char* name);

int cmd_inspect(const Args& args);
int cmd_convert(const Args& args);
int cmd_optimize(const Args& args);
int cmd_passes(const Args& args);
int cmd_run(const Args& args);
int cmd_verify(const Args& args);

}  // namespace cli
