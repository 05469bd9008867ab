// onnxforge optimize IN OUT | --demo OUT  [--passes a,b] [--skip a,b] [--max-rewrites N] [--input-shape NAME=d,...]
//                   [--report FILE.json] [--external-data] [--check] [--verify ...] [--verify-each-pass]
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <string>

#include "cli.h"
#include "convert_float_flags.h"
#include "messages.h"
#include "output_paths.h"
#include "progress.h"

namespace cli {

namespace {

const char* kUsageText =
    "usage: onnxforge optimize IN OUT [options]\n"
    "       onnxforge optimize --demo OUT [options]\n";
const char* kDescription =
    "Runs the default pass pipeline to a fixed point and saves the result as OUT. OUT may be IN\n"
    "(an in-place run): the file is replaced only once the new model is complete, and --verify\n"
    "compares against the model as it was before the run.\n"
    "Before any work, every place written to is checked: OUT's folder (and OUT.data's with\n"
    "--external-data) and --report's folder must exist and be writable, and OUT must not be a folder.\n"
    "When the command fails, OUT is not written: with --verify, a result whose verification does not\n"
    "pass (exit 1) or cannot be run (exit 3) is not saved (--keep-on-verify-failure saves it anyway,\n"
    "to inspect it; never over IN). --report FILE is written whole (through a temporary file) when\n"
    "the run got as far as a result, so also on exit 1 and 3, where it records why\n"
    "(\"exit_code\", \"output_written\": false); on exit 2 neither OUT nor FILE is written.\n"
    "--to-float16/--to-bfloat16 convert the optimized model's float32 computation after the passes\n"
    "(and after --verify), verified against the float32 result (see onnxforge help convert); a\n"
    "conversion that does not verify exits 1 and writes no OUT. --report gets its JSON as \"convert\".\n"
    "--target-opset N converts the default ONNX domain to opset N, verified by execution: going up\n"
    "before the passes (so the fusions of the new opset apply, e.g. LayerNormalization at 17), going\n"
    "down after them (the passes work at the richer opset and the conversion lowers what the target\n"
    "lacks); a precision conversion comes after both.\n"
    "Exit 0 ok, 1 outputs differ, 2 usage or input error, 3 no input the model accepts could be built,\n"
    "4 not convertible to --target-opset (the message names each node, op and opset; OUT not written),\n"
    "6 --target: nodes still not legal for the target (each printed with its rule; OUT not written\n"
    "unless --allow-illegal, which exits 0).\n"
    "--target NAME legalises the optimized model for a target profile (onnxforge targets lists them):\n"
    "the opset moved into the target's range, fused ops the target lacks decomposed, Gemm <-> MatMul+Add\n"
    "and other exact rewrites (docs/targets.md), each kept only when it lowers the illegal count;\n"
    "verified by execution against the optimized model; --report gets its JSON as \"target\".\n";

std::vector<OptionSpec> specs() {
  std::vector<OptionSpec> s = {
      {"--demo", OptionSpec::kFlag, "", "optimize the built-in demo model (then give OUT only)"},
      {"--passes", OptionSpec::kText, "a,b", "run only these passes, in this order"},
      {"--skip", OptionSpec::kText, "a,b", "do not run these passes"},
      {"--max-rewrites", OptionSpec::kText, "N",
       "stop after N rewrites in total (0: none); --report lists them (bench/bisect_rewrites.py bisects N)"},
      {"--fold-budget", OptionSpec::kText, "BYTES",
       "bytes one constant fold may add to the model (default 4096; more folds e.g. a tied weight's Transpose)"},
      {"--input-shape", OptionSpec::kText, "NAME=d1,d2", "fix the shape of input NAME (verification uses it too)", true},
      {"--report", OptionSpec::kText, "FILE.json",
       "write everything printed, plus paths and version, as JSON (with \"provenance\": unnamed output nodes get names)"},
      {"--keep-names", OptionSpec::kFlag, "", "every value that stays keeps its name (for encodings keyed by name)"},
      kExplainSpec,  // --explain NODE (explain.cpp)
      {"--external-data", OptionSpec::kFlag, "", "save tensors of 1 KiB or more to OUT.data"},
      {"--check", OptionSpec::kFlag, "", "check IR consistency after every pass"},
      {"--verify", OptionSpec::kFlag, "", "run the original and the result on the same inputs and compare"},
      {"--verify-each-pass", OptionSpec::kFlag, "", "verify after every class 1/2 pass; roll back a pass that drifts"},
      {"--keep-on-verify-failure", OptionSpec::kFlag, "",
       "with --verify: save OUT even when verification fails (exit stays 1; never over IN)"},
  };
  s.insert(s.end(), kVerifySpecs.begin(), kVerifySpecs.end());
  s.push_back(kThreadsSpec);
  // --- precision conversion (--to-float16 / --to-bfloat16 ...): after the passes
  s.insert(s.end(), convert_float_specs().begin(), convert_float_specs().end());
  // --- end precision conversion
  s.push_back(kTargetOpsetSpec);
  s.push_back(kNoOpsetVerifySpec);
  s.push_back(kTargetSpec);  // --target NAME (target_step.cpp)
  s.push_back(kAllowIllegalSpec);
  return s;
}

struct Snapshot {
  size_t nodes = 0, nodes_all = 0, inits = 0;
  uint64_t bytes = 0;
  std::map<std::string, size_t> ops;
};

Snapshot snapshot(ofg_model* m) {
  Snapshot s;
  ofg_model_node_count(m, 0, &s.nodes);
  ofg_model_node_count(m, 1, &s.nodes_all);
  ofg_model_initializer_stats(m, &s.inits, &s.bytes);
  size_t n = 0;
  ofg_model_op_histogram_count(m, &n);
  for (size_t i = 0; i < n; ++i) {
    const char *domain = nullptr, *op = nullptr;
    size_t count = 0;
    if (ofg_model_op_histogram_entry(m, i, &domain, &op, &count) != OFG_OK) continue;
    std::string key = (domain && *domain) ? std::string(domain) + "." + op : std::string(op);
    s.ops[key] = count;
  }
  return s;
}

// True when both paths name one existing file (an in-place run, also through a link).
bool same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

double mib(double bytes) { return bytes / (1024.0 * 1024.0); }

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

struct Times {
  double load = 0, passes = 0, verify = 0, save = 0;
};

void print_summary(const std::string& in, const std::string& out, const Snapshot& b, const Snapshot& a, long long in_size,
                   long long out_size, const Times& t, int iterations) {
  std::printf("%s -> %s\n", in.c_str(), out.c_str());
  std::printf("  %-30s %12s %12s\n", "", "before", "after");
  std::printf("  %-30s %12zu %12zu\n", "nodes", b.nodes, a.nodes);
  std::printf("  %-30s %12zu %12zu\n", "nodes with subgraphs", b.nodes_all, a.nodes_all);
  std::printf("  %-30s %12zu %12zu\n", "initializers", b.inits, a.inits);
  std::printf("  %-30s %12.2f %12.2f\n", "initializer data (MiB)", mib(static_cast<double>(b.bytes)), mib(static_cast<double>(a.bytes)));
  auto size_text = [](long long s) {
    char buf[32];
    if (s < 0) return std::string("-");
    std::snprintf(buf, sizeof buf, "%.2f", mib(static_cast<double>(s)));
    return std::string(buf);
  };
  std::printf("  %-30s %12s %12s\n", "file on disk (MiB)", size_text(in_size).c_str(), size_text(out_size).c_str());
  std::map<std::string, std::pair<size_t, size_t>> ops;
  for (auto& e : b.ops) ops[e.first].first = e.second;
  for (auto& e : a.ops) ops[e.first].second = e.second;
  std::printf("  op types (main graph):\n");
  for (auto& e : ops)
    std::printf("    %-28s %12zu %12zu%s\n", e.first.c_str(), e.second.first, e.second.second,
                e.second.first != e.second.second ? "  *" : "");
  std::printf("  time (ms): load %.2f, passes %.2f (%d round%s), verify %.2f, save %.2f, total %.2f\n", t.load, t.passes,
              iterations, iterations == 1 ? "" : "s", t.verify, t.save, t.load + t.passes + t.verify + t.save);
}

void snapshot_json(JsonWriter& j, const char* key, const Snapshot& s, long long file_size) {
  j.begin_object(key).integer("nodes", static_cast<long long>(s.nodes));
  j.integer("nodes_with_subgraphs", static_cast<long long>(s.nodes_all));
  j.integer("initializers", static_cast<long long>(s.inits)).integer("initializer_bytes", static_cast<long long>(s.bytes));
  if (file_size >= 0) j.integer("file_bytes", file_size);
  else j.null("file_bytes");
  j.begin_object("ops");
  for (auto& e : s.ops) j.integer(e.first.c_str(), static_cast<long long>(e.second));
  j.end_object().end_object();
}

}  // namespace

int cmd_optimize(const Args& args) {
  const char* const kName = "optimize";
  const std::vector<OptionSpec> spec_list = specs();
  ParsedArgs p;
  if (int rc = parse_command({kName, kUsageText, kDescription}, args, spec_list, p); rc >= 0) return rc;
  const bool demo = p.has("--demo"), verify = p.has("--verify"), verify_each = p.has("--verify-each-pass");
  // The demo model only when asked for: a lone path is never taken as OUT (that would write the
  // demo over the user's model).
  if (p.positional.size() != (demo ? 1u : 2u))
    return usage_error(kName, demo ? "--demo takes OUT only" : "give IN and OUT (OUT may be IN for an in-place run)");
  if (any_verify_option(p) && !verify && !verify_each)
    return usage_error(kName, "verification options need --verify or --verify-each-pass");
  if (p.has("--target") && p.has("--target-opset")) return usage_error(kName, "give --target or --target-opset, not both");
  if (p.has("--allow-illegal") && !p.has("--target")) return usage_error(kName, "--allow-illegal goes with --target");
  if (p.has("--keep-on-verify-failure") && !verify) return usage_error(kName, "--keep-on-verify-failure goes with --verify");
  for (const char* list : {"--passes", "--skip"})
    if (p.has(list)) {
      std::string bad = unknown_pass(p.text(list));
      if (!bad.empty()) {
        std::fprintf(stderr, "onnxforge optimize: %s: %s\n", list, bad.c_str());
        return kUsage;
      }
    }
  const std::string in = demo ? "" : p.positional[0], out = p.positional.back();
  const std::string in_name = demo ? "(demo model)" : in;
  const std::string report_path = p.text("--report");
  // Every place written to is checked before any work.
  if (!check_output_file(kName, out)) return kUsage;
  if (p.has("--external-data") && !check_output_file(kName, external_data_path(out))) return kUsage;
  if (p.has("--report")) {
    if (report_path == out) return usage_error(kName, "--report FILE must not be OUT");
    if (!check_output_file(kName, report_path)) return kUsage;
  }

  ofg_options* opts = nullptr;
  if (ofg_status s = ofg_options_create(&opts)) return report(kName, "", s);
  std::string shape_spec;
  for (const std::string& s : p.all("--input-shape")) shape_spec += (shape_spec.empty() ? "" : ";") + s;
  bool options_ok =
      (!p.has("--passes") || set_option(kName, opts, "--passes", "optimize.passes", p.text("--passes")) == kOk) &&
      (!p.has("--skip") || set_option(kName, opts, "--skip", "optimize.skip", p.text("--skip")) == kOk) &&
      (!p.has("--max-rewrites") ||
       set_option(kName, opts, "--max-rewrites", "optimize.max_rewrites", p.text("--max-rewrites")) == kOk) &&
      (!p.has("--fold-budget") ||
       set_option(kName, opts, "--fold-budget", "optimize.fold_budget", p.text("--fold-budget")) == kOk) &&
      (shape_spec.empty() || set_option(kName, opts, "--input-shape", "optimize.input_shapes", shape_spec) == kOk) &&
      (!p.has("--check") || set_option(kName, opts, "--check", "optimize.check_each_pass", "1") == kOk) &&
      // The report carries provenance (pipeline "provenance"/"folded"); it names unnamed nodes.
      (!p.has("--report") || set_option(kName, opts, "--report", "optimize.provenance", "1") == kOk) &&
      (!p.has("--keep-names") || set_option(kName, opts, "--keep-names", "optimize.keep_names", "1") == kOk) &&
      (!p.has("--external-data") || set_option(kName, opts, "--external-data", "save.external_data", "1") == kOk) &&
      (!verify_each || set_option(kName, opts, "--verify-each-pass", "optimize.verify_each_pass", "1") == kOk) &&
      apply_threads_option(kName, p, opts) == kOk &&
      (!(verify || verify_each) || apply_verify_options(kName, p, opts, in) == kOk) &&
      apply_convert_float_options(kName, p, opts) == kOk &&  // precision conversion
      apply_explain_option(kName, p, opts) == kOk;
  if (!options_ok) {
    ofg_options_free(opts);
    return kUsage;
  }
  ProgressLine progress(opts);
  Times times;
  auto t0 = std::chrono::steady_clock::now();
  ofg_model* m = nullptr;
  ofg_status st = load_model(in, demo, &m);
  times.load = ms_since(t0);
  if (st != OFG_OK) {
    ofg_options_free(opts);
    return report(kName, in_name, st);
  }
  // The reference of --verify: the model as loaded now. It views the input file's mapping, which
  // stays valid after an in-place save renames a new file over the path.
  ofg_model* original = nullptr;
  if (verify && (st = load_model(in, demo, &original)) != OFG_OK) {
    ofg_model_free(m);
    ofg_options_free(opts);
    return report(kName, in_name, st);
  }
  if ((verify || verify_each) && check_input_names(kName, p, m) != kOk) {
    ofg_model_free(original);
    ofg_model_free(m);
    ofg_options_free(opts);
    return kUsage;
  }
  const long long in_size = demo ? -1 : file_size(in);
  Snapshot before = snapshot(m);
  ofg_pass_report* rep = nullptr;
  // --target-opset: up before the passes, down after them (see the help text).
  int64_t model_opset = 0;
  {
    size_t count = 0;
    ofg_model_opset_count(m, &count);
    for (size_t i = 0; i < count; ++i) {
      const char* domain = nullptr;
      int64_t version = 0;
      if (ofg_model_opset(m, i, &domain, &version) == OFG_OK && domain &&
          (std::string(domain).empty() || std::string(domain) == "ai.onnx"))
        model_opset = version;
    }
  }
  const bool opset_up = p.has("--target-opset") && target_opset(p) > model_opset;
  const bool opset_down = p.has("--target-opset") && !opset_up;
  if (opset_up) {
    if (int rc = convert_to_target_opset(kName, p, m, opts); rc != kOk) {
      ofg_model_free(original);
      ofg_model_free(m);
      ofg_options_free(opts);
      return rc;
    }
  }
  progress.phase("optimize: passes");
  t0 = std::chrono::steady_clock::now();
  st = ofg_optimize(m, opts, &rep);
  times.passes = ms_since(t0);
  progress.finish();
  if (st != OFG_OK) {
    ofg_model_free(original);
    ofg_model_free(m);
    ofg_options_free(opts);
    return report(kName, in_name, st);
  }
  if (opset_down) {
    if (int rc = convert_to_target_opset(kName, p, m, opts); rc != kOk) {
      ofg_pass_report_free(rep);
      ofg_model_free(original);
      ofg_model_free(m);
      ofg_options_free(opts);
      return rc;
    }
  }
  // --target: legalised after the passes (and verified against the optimized model).
  std::string target_json;
  int target_rc = kOk;
  if (p.has("--target")) {
    target_rc = legalise_for_target(kName, p, m, opts, &target_json);
    if (target_rc != kOk && target_rc != kIllegalAfterTarget) {
      ofg_pass_report_free(rep);
      ofg_model_free(original);
      ofg_model_free(m);
      ofg_options_free(opts);
      return target_rc;
    }
  }
  Snapshot after = snapshot(m);

  int exit_code = kOk;
  ofg_report* vrep = nullptr;
  if (verify) {
    progress.phase("optimize: verify (input sets)");
    t0 = std::chrono::steady_clock::now();
    ofg_status vs = ofg_verify(original, m, opts, &vrep);
    times.verify = ms_since(t0);
    progress.finish();
    if (vs != OFG_OK) exit_code = report_verify_error(kName, vs);
  }
  int32_t verified = 1;
  if (vrep) ofg_report_passed(vrep, &verified);
  if (!verified) exit_code = kCheckFailed;
  if (exit_code == kOk) exit_code = target_rc;  // --target: nodes still illegal
  // --- precision conversion: the float32 result (verified with --verify) is converted and the
  // conversion verified against it, before anything is saved. A failed conversion saves nothing.
  std::string convert_json;
  bool convert_failed = false;
  if (exit_code == kOk && wants_convert_float(p)) {
    progress.phase("optimize: precision conversion");
    exit_code = run_convert_float(kName, m, opts, &convert_json);
    progress.finish();
    convert_failed = exit_code != kOk;
    if (!convert_failed) after = snapshot(m);
  }
  // --- end precision conversion
  // A result that failed its verification is not saved (unless asked to, and never over IN);
  // nor after an error (exit 2): then there is no report either.
  const bool in_place = !demo && same_file(in, out);
  const bool keep = exit_code == kCheckFailed && p.has("--keep-on-verify-failure") && !in_place && !convert_failed;
  const bool save = exit_code == kOk || keep;
  // What existed before, so that a report that cannot be written takes a new OUT away again.
  const std::string data_path = external_data_path(out);
  const bool out_existed = path_exists(out), data_existed = path_exists(data_path);
  if (save) {
    t0 = std::chrono::steady_clock::now();
    st = save_model(m, out, opts);
    times.save = ms_since(t0);
    if (st != OFG_OK) exit_code = report(kName, out, st);
  }
  const long long out_size = save && st == OFG_OK ? file_size(out) : -1;

  int32_t iterations = 0;
  ofg_pass_report_totals(rep, nullptr, nullptr, nullptr, nullptr, nullptr, &iterations);
  print_summary(in_name, out, before, after, in_size, out_size, times, iterations);
  // Per pass: time and changes summed over rounds.
  std::map<std::string, std::pair<double, int64_t>> per_pass;
  std::vector<std::string> order;
  size_t count = 0;
  ofg_pass_report_count(rep, &count);
  for (size_t i = 0; i < count; ++i) {
    ofg_pass_entry e{};
    e.struct_size = sizeof e;
    if (ofg_pass_report_entry(rep, i, &e) != OFG_OK) continue;
    if (!per_pass.count(e.name)) order.push_back(e.name);
    per_pass[e.name].first += e.milliseconds;
    per_pass[e.name].second += e.changes;
    if (e.rolled_back) std::printf("  rolled back: %s (round %d): %s\n", e.name, e.iteration + 1, e.note);
  }
  std::printf("  passes (ms, changes):\n");
  for (const std::string& name : order)
    std::printf("    %-34s %8.3f %6lld\n", name.c_str(), per_pass[name].first, static_cast<long long>(per_pass[name].second));
  if (p.has("--explain")) print_explain(p.text("--explain"), ofg_pass_report_json(rep));
  if (vrep) print_verify_report(vrep, "  ");
  if (exit_code != kOk && exit_code != kUsage && !save) {
    std::string what = out + (out_existed ? " was left unchanged" : " was not written");
    if (exit_code == kCheckFailed && !in_place) what += " (--keep-on-verify-failure writes it anyway)";
    std::fprintf(stderr, "onnxforge optimize: %s; %s\n",
                 exit_code == kCheckFailed         ? "verification did not pass"
                 : exit_code == kIllegalAfterTarget ? "nodes are still not legal for --target"
                                                    : "the result could not be verified",
                 what.c_str());
  }

  // The report of a run that got as far as a result (exit 0, 1 or 3), not of one that failed.
  if (p.has("--report") && exit_code != kUsage) {
    JsonWriter j;
    j.begin_object().str("version", ofg_version_string());
    if (demo) j.null("input");
    else j.str("input", in);
    j.str("output", out).boolean("output_written", out_size >= 0).integer("exit_code", exit_code);
    snapshot_json(j, "before", before, in_size);
    snapshot_json(j, "after", after, out_size);
    j.begin_object("milliseconds").num("load", times.load).num("passes", times.passes).num("verify", times.verify);
    j.num("save", times.save).num("total", times.load + times.passes + times.verify + times.save).end_object();
    j.raw("pipeline", ofg_pass_report_json(rep));
    if (vrep) j.raw("verify", ofg_report_json(vrep));
    else j.null("verify");
    if (!convert_json.empty()) j.raw("convert", convert_json.c_str());  // precision conversion
    if (!target_json.empty()) j.raw("target", target_json.c_str());    // --target
    j.end_object();
    if (!write_file_atomically(kName, report_path, j.text() + "\n")) {
      exit_code = kUsage;
      // The run fails, so the model it saved must not stay new.
      if (out_size >= 0 && !out_existed) {
        std::remove(out.c_str());
        if (!data_existed) std::remove(data_path.c_str());
        std::fprintf(stderr, "onnxforge optimize: %s was removed again\n", out.c_str());
      } else if (out_size >= 0) {
        std::fprintf(stderr, "onnxforge optimize: %s was already replaced by the result\n", out.c_str());
      }
    }
  }
  ofg_report_free(vrep);
  ofg_pass_report_free(rep);
  ofg_model_free(original);
  ofg_model_free(m);
  ofg_options_free(opts);
  return exit_code;
}

}  // namespace cli
