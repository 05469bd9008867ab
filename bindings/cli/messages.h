// How the command line words errors for a person who reads them once: one line, one prefix
// ("onnxforge COMMAND:"), a path only once, the status as the library words it (ofg_status_string) at the end in brackets,
// and for a name it does not know the nearest one it does ("did you mean").
// The library's ofg_last_error() stays the precise text; this only rephrases around it.
#pragma once
#include <string>
#include <vector>

#include "onnxforge.h"

namespace cli {

// ofg_last_error() for a person: a leading function name ("ofg_verify: ") and a leading
// repetition of the command ("verify: ") are dropped; `subject` (a path, usually) is put in front
// unless the text already names it ("PATH: ..." or 'PATH'); library option keys are shown as the
// command-line options a person typed (verify.input.x -> --input x).
std::string error_text(const std::string& command, const std::string& subject, const std::string& library_text);

// Prints "onnxforge COMMAND: [SUBJECT: ]TEXT [STATUS]" (TEXT from ofg_last_error(), STATUS from ofg_status_string()) to stderr.
void print_error(const std::string& command, const std::string& subject, ofg_status s);

// The candidate nearest to `name` by edit distance, when close enough to be what was meant
// (at most a third of the longer name's letters differ, at least one may); "" otherwise.
std::string nearest(const std::string& name, const std::vector<std::string>& candidates);
// " (did you mean 'X'?)" for the nearest candidate, or "" when none is close.
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);

// The names of the optimization passes (ofg_pass_name), for checking --passes and --skip.
std::vector<std::string> pass_names();
// The first name of a comma-separated list that is no pass, with its "did you mean" and a pointer
// to `onnxforge passes`: "unknown pass 'nosuchpass' (did you mean 'X'?; onnxforge passes lists
// them)"; "" when every name is a pass.
std::string unknown_pass(const std::string& list);

}  // namespace cli
