// The onnxforge command line. Written against include_c/onnxforge.h only.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "json_writer.h"
#include "onnxforge.h"
#include "options.h"

namespace cli {

// Exit codes of every verb.
enum Exit {
  kOk = 0,
  kCheckFailed = 1,
  kUsage = 2,
  kNoValidInputs = 3,
  kNotConvertible = 4,  // --target-opset: some node has no adapter to the target (nothing written)
  kIllegalForTarget = 5,  // check --target: some node breaks the target profile's rules (listed)
  kIllegalAfterTarget = 6,  // optimize --target: nodes still illegal after legalisation (listed; OUT not written)
};

using Args = std::vector<std::string>;

// Prints "onnxforge COMMAND: [SUBJECT: ]<ofg_last_error()> [category]" to stderr (messages.h:
// the subject only when the library's text does not name it already) and returns kUsage.
int report(const char* command, const std::string& subject, ofg_status s);
// Prints "onnxforge COMMAND: <what> (see onnxforge help COMMAND)" to stderr and returns kUsage.
int usage_error(const char* command, const std::string& what);
// ofg_options_set(o, key, value) for command-line option `option` (--samples): on failure prints
// the library's reason in terms of the option ("--samples takes a positive count, got '0'") and
// returns kUsage; else kOk.
int set_option(const char* command, ofg_options* o, const char* option, const std::string& key, const std::string& value);
// What `onnxforge help COMMAND` and `COMMAND --help` show besides the options.
struct CommandHelp {
  const char* name;
  const char* usage;  // the usage lines
  const char* about;  // what the command does
};
// Parses `args` for a command; on --help prints its help page (usage lines, what it does, its
// options) on stdout. -1 when the command goes on, else the exit code to return.
int parse_command(const CommandHelp& help, const Args& args, const std::vector<OptionSpec>& specs, ParsedArgs& p);
// Loads `path`; with `demo` (only from an explicit --demo) the built-in demo model instead.
ofg_status load_model(const std::string& path, bool demo, ofg_model** out);
// ofg_save with the save's log lines (where weights went) printed on stdout; `opts` keeps that
// log callback afterwards.
ofg_status save_model(const ofg_model* m, const std::string& out, ofg_options* opts);
// Size of a file on disk, -1 when it cannot be read.
long long file_size(const std::string& path);
// How many nodes of each op the main graph has ("Conv", or "domain.Op" outside the default
// domain), in the library's histogram order: `inspect` prints it, `run --json` reports it.
ofg_status op_counts(ofg_model* m, std::vector<std::pair<std::string, size_t>>& ops);

// --threads N: "run.threads" for every command that runs a model (0 or absent: the machine's
// cores).
extern const OptionSpec kThreadsSpec;
// Sets run.threads on `o` when --threads was given; kOk or kUsage (after printing why).
int apply_threads_option(const char* command, const ParsedArgs& p, ofg_options* o);
// A new options object in `out` with run.threads set when --threads was given, else none (null);
// kOk or kUsage.
int make_threads_options(const char* command, const ParsedArgs& p, std::unique_ptr<ofg_options, void (*)(ofg_options*)>& out);

// The options that choose verification inputs, shared by `optimize --verify` and `verify`.
extern const std::vector<OptionSpec> kVerifySpecs;
bool any_verify_option(const ParsedArgs& p);
// Sets the verify.* options; the test_data_set_N folders beside `model_path` are the default
// inputs unless --random-inputs, --test-data or --input says otherwise. kOk or kUsage.
// Files given with --input and --test-data must be readable: checked here, before any work.
int apply_verify_options(const char* command, const ParsedArgs& p, ofg_options* o, const std::string& model_path);
// Every --input NAME names an input of `reference` (checked right after loading, before any
// work); else prints which inputs there are, with a "did you mean", and returns kUsage.
int check_input_names(const char* command, const ParsedArgs& p, ofg_model* reference);
// Prints the inputs used and every output's differences; kOk or kCheckFailed.
int print_verify_report(ofg_report* rep, const char* indent);
// Prints why ofg_verify failed; the exit code: kNoValidInputs when no input set was accepted.
int report_verify_error(const char* command, ofg_status s);

// ---- optimize --explain NODE (explain.cpp)
extern const OptionSpec kExplainSpec;
// Asks the pipeline to list its rewrites when --explain is given; kOk or kUsage.
int apply_explain_option(const char* command, const ParsedArgs& p, ofg_options* o);
// Prints the story of input node `node` from the pipeline report's JSON.
void print_explain(const std::string& node, const char* report_json);
// ---- end --explain

// ---- --target-opset (opset conversion, target_opset.cpp)
extern const OptionSpec kTargetOpsetSpec;
extern const OptionSpec kNoOpsetVerifySpec;
// The N of --target-opset (0 when absent).
int64_t target_opset(const ParsedArgs& p);
// ofg_convert_opset(m, N): kOk (and a summary line on stdout), kNotConvertible when a node has no
// adapter, kCheckFailed when the converted model does not verify, kNoValidInputs or kUsage.
int convert_to_target_opset(const char* command, const ParsedArgs& p, ofg_model* m, ofg_options* opts);
// ---- end --target-opset

// ---- --target NAME of optimize (legalisation for a target profile, target_step.cpp)
extern const OptionSpec kTargetSpec;
extern const OptionSpec kAllowIllegalSpec;
// ofg_legalize_for_target(m, NAME): prints a summary and every finding left; *json gets the
// library's JSON. kOk when legal (or --allow-illegal), kIllegalAfterTarget when something is left,
// kCheckFailed when the result does not verify, kNoValidInputs or kUsage.
int legalise_for_target(const char* command, const ParsedArgs& p, ofg_model* m, ofg_options* opts, std::string* json);
// ---- end --target

int cmd_inspect(const Args& args);
int cmd_convert(const Args& args);
int cmd_optimize(const Args& args);
int cmd_passes(const Args& args);
int cmd_run(const Args& args);
int cmd_verify(const Args& args);
int cmd_targets(const Args& args);
int cmd_check(const Args& args);
int cmd_diff(const Args& args);

}  // namespace cli
