#include <csignal>
#include <cstdio>
#include <cstring>

#include "cli.h"
#include "messages.h"

namespace {

// Ctrl-C, kill and a closed terminal during a save: the library's temporary file is removed
// (where it has a name at all, see ofg_save), then the signal ends the process as it would have.
extern "C" void on_terminating_signal(int sig) {
  ofg_remove_temporary_files();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install_signal_handlers() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;  // nohup, background jobs
    struct sigaction sa {};
    sa.sa_handler = on_terminating_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, nullptr);
  }
}

void usage(FILE* out) {
  std::fprintf(out,
               "onnxforge %s - load, simplify, verify and save ONNX models\n\n"
               "usage: onnxforge <command> [options]      (onnxforge help <command> for its options)\n\n"
               "commands:\n"
               "  inspect MODEL [--json]        summary of a model (--demo: the built-in demo model)\n"
               "  convert IN OUT [--external-data [--threshold BYTES]]\n"
               "                                load and save again (optionally moving weights to OUT.data)\n"
               "  optimize IN OUT [--passes a,b] [--skip a,b] [--input-shape NAME=1,3,224,224]\n"
               "           [--report FILE.json] [--external-data] [--verify] [--verify-each-pass] [--threads N]\n"
               "           [--max-rewrites N] [--fold-budget BYTES]\n"
               "           [--target NAME [--allow-illegal]]  (legalise for a target profile)\n"
               "                                run the pass pipeline and save (OUT may be IN;\n"
               "                                --demo OUT: the built-in demo model)\n"
               "  passes [--json]               list the optimization passes\n"
               "  run DIR|MODEL [--light] [--input NAME=FILE.pb]... [--output-dir D] [--rtol X --atol Y] [--json]\n"
               "                [--threads N]\n"
               "                                execute a model; DIR: compare with its test_data_set_N outputs\n"
               "  verify A B [--test-data DIR] [--input NAME=F.pb] [--dim NAME=V] [--samples N] [--json]\n"
               "           [--threads N]\n"
               "                                run both models on the same inputs (real data first, else\n"
               "                                seeded inputs A accepts) and compare\n"
               "  targets [--json]              list the target profiles and their sources\n"
               "  check MODEL --target NAME [--json]\n"
               "                                which nodes the target does not accept, with the rule\n"
               "  diff A B [--provenance REPORT.json] [--json] [--max N]\n"
               "                                what differs, node by node (matched through optimize's\n"
               "                                provenance, else by output names and structure)\n"
               "  help [COMMAND]                this text, or a command's own help\n"
               "  --version                     the library's version\n\n"
               "Options take their value as --opt VALUE or --opt=VALUE. --threads N: threads for the model's\n"
               "ops (default: the machine's cores; 1: one thread).\n"
               "Where a command writes (OUT, OUT.data, --report, --output-dir) is checked before any work, and a\n"
               "command that fails leaves no output new or changed: with --verify a result that fails is not\n"
               "saved; only optimize's --report is written to record it. A given input must fit the model's\n"
               "declared input (element type, rank, fixed sizes).\n"
               "exit codes: 0 ok, 1 a check failed (diff: the models differ), 2 usage or input error, 3 no\n"
               "input the model accepts could be built for verification, 5 check --target found nodes the\n"
               "target does not accept\n",
               ofg_version_string());
}

}  // namespace

int main(int argc, char** argv) {
  install_signal_handlers();
  if (argc < 2) {
    usage(stderr);
    return cli::kUsage;
  }
  std::string verb = argv[1];
  cli::Args args(argv + 2, argv + argc);
  if (verb == "--help" || verb == "-h" || (verb == "help" && args.empty())) {
    usage(stdout);
    return cli::kOk;
  }
  if (verb == "--version" || verb == "version") {
    std::printf("onnxforge %s\n", ofg_version_string());
    return cli::kOk;
  }
  if (verb == "help") {
    if (args.size() > 1) return cli::usage_error("help", "give one command");
    verb = args[0];
    args = {"--help"};
  }
  if (verb == "inspect") return cli::cmd_inspect(args);
  if (verb == "convert") return cli::cmd_convert(args);
  if (verb == "optimize") return cli::cmd_optimize(args);
  if (verb == "passes") return cli::cmd_passes(args);
  if (verb == "run") return cli::cmd_run(args);
  if (verb == "verify") return cli::cmd_verify(args);
  if (verb == "targets") return cli::cmd_targets(args);
  if (verb == "check") return cli::cmd_check(args);
  if (verb == "diff") return cli::cmd_diff(args);
  std::string hint = cli::nearest(verb, {"inspect", "convert", "optimize", "passes", "run", "verify", "targets", "check", "diff", "help", "--version"});
  std::fprintf(stderr, "onnxforge: unknown command '%s' (%sonnxforge help lists the commands)\n", verb.c_str(),
               hint.empty() ? "" : ("did you mean '" + hint + "'?; ").c_str());
  return cli::kUsage;
}
