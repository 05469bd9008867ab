// The onnxforge command line. Written against include_c/onnxforge.h only.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "onnxforge.h"

namespace cli {

// Exit codes of every verb.
enum Exit { kOk = 0, kCheckFailed = 1, kUsage = 2, kNoValidInputs = 3 };

using Args = std::vector<std::string>;

// Prints "onnxforge: <what>: <ofg_last_error()>" to stderr and returns kUsage.
int report(const char* what, ofg_status s);
// Loads `path`; with `demo` (only from an explicit --demo) the built-in demo model instead.
ofg_status load_model(const std::string& path, bool demo, ofg_model** out);
std::string json_escape(const std::string& s);
// `"key":v`, or `"key":null,"key_nonfinite":"inf"` when v is NaN or infinite (JSON has no such numbers).
std::string json_number_field(const char* key, double v);
bool is_flag(const std::string& a, const char* name);

// The options that choose verification inputs, shared by `optimize --verify` and `verify`.
struct VerifyArgs {
  std::vector<std::pair<std::string, std::string>> settings;  // verify.* option key, value
  std::string test_data;
  bool random_inputs = false, given_files = false;
  // Takes args[i] (and its value) when it is a verification option: kOk, kUsage on a bad
  // value, -1 when args[i] is not one.
  int take(const Args& args, size_t& i, const char* command);
  // Sets the options; the test_data_set_N folders beside `model_path` are the default inputs.
  int apply(ofg_options* o, const std::string& model_path) const;
  bool any() const { return !settings.empty() || !test_data.empty() || random_inputs; }
};
extern const char* const kVerifyOptionsHelp;
// Prints the inputs used and every output's differences (or the report's JSON); kOk or kCheckFailed.
int print_verify_report(ofg_report* rep, bool json, const char* indent);
// The exit code of a failed ofg_verify: kNoValidInputs when no input set was accepted.
int report_verify_error(ofg_status s);

int cmd_inspect(const Args& args);
int cmd_convert(const Args& args);
int cmd_optimize(const Args& args);
int cmd_passes(const Args& args);
int cmd_run(const Args& args);
int cmd_verify(const Args& args);

}  // namespace cli
