// onnxforge optimize [IN] OUT [--passes a,b] [--skip a,b] [--input-shape NAME=1,3,224,224]...
//                   [--report FILE.json] [--external-data]
#include <sys/stat.h>

#include <cstdio>
#include <map>
#include <string>

#include "cli.h"

namespace cli {

namespace {

const char* kUsageText =
    "usage: onnxforge optimize IN OUT [--passes a,b] [--skip a,b] [--input-shape NAME=d1,d2,...]\n"
    "                          [--report FILE.json] [--external-data] [--check]\n"
    "                          [--verify [--samples N] [--test-data DIR] ...] [--verify-each-pass]\n"
    "       onnxforge optimize --demo OUT [...]\n\n"
    "Runs the default pass pipeline to a fixed point and saves the result as OUT. OUT may be IN\n"
    "(an in-place run): the file is replaced only once the new model is complete, and --verify\n"
    "compares against the model as it was before the run. --demo optimizes the built-in demo model.\n"
    "--passes a,b        run only these passes, in this order\n"
    "--skip a,b          do not run these passes\n"
    "--input-shape N=..  fix the shape of input N (repeatable; verification uses it too)\n"
    "--report FILE       write the per-pass report as JSON\n"
    "--external-data     save tensors of 1 KiB or more to OUT.data\n"
    "--check             check IR consistency after every pass\n"
    "--verify            run the original and the result on the same inputs and compare\n"
    "                    (exit 1 when they differ, 3 when no input the model accepts could be\n"
    "                    built; OUT is still written so it can be inspected)\n"
    "--verify-each-pass  verify after every class 1/2 pass and roll back a pass that drifts\n";

struct Snapshot {
  size_t nodes = 0, inits = 0;
  uint64_t bytes = 0;
  std::map<std::string, size_t> ops;
};

Snapshot snapshot(ofg_model* m) {
  Snapshot s;
  ofg_model_node_count(m, 1, &s.nodes);
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

// Runs the original model (as loaded before the run) and the optimized one on the same inputs.
// True when both paths name one existing file (an in-place run, also through a link).
bool same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int verify_against_original(ofg_model* original, ofg_model* optimized, const ofg_options* opts) {
  ofg_report* rep = nullptr;
  ofg_status st = ofg_verify(original, optimized, opts, &rep);
  if (st != OFG_OK) return report_verify_error(st);
  int rc = print_verify_report(rep, false, "  ");
  ofg_report_free(rep);
  return rc;
}

}  // namespace

int cmd_optimize(const Args& args) {
  std::vector<std::string> files, shapes;
  std::string passes, skip, report_path;
  bool external = false, check = false, verify = false, verify_each = false, demo = false;
  VerifyArgs vargs;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string& dst) -> bool {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "onnxforge optimize: %s needs a value\n", a.c_str());
        return false;
      }
      dst = args[++i];
      return true;
    };
    if (is_flag(a, "--help") || is_flag(a, "-h")) {
      std::printf("%s\n%s", kUsageText, kVerifyOptionsHelp);
      return kOk;
    }
    int taken = vargs.take(args, i, "optimize");
    if (taken == kUsage) return kUsage;
    if (taken == kOk) continue;
    if (is_flag(a, "--passes")) { if (!value(passes)) return kUsage; }
    else if (is_flag(a, "--skip")) { if (!value(skip)) return kUsage; }
    else if (is_flag(a, "--report")) { if (!value(report_path)) return kUsage; }
    else if (is_flag(a, "--input-shape")) {
      std::string s;
      if (!value(s)) return kUsage;
      shapes.push_back(s);
    } else if (is_flag(a, "--external-data")) external = true;
    else if (is_flag(a, "--check")) check = true;
    else if (is_flag(a, "--verify")) verify = true;
    else if (is_flag(a, "--verify-each-pass")) verify_each = true;
    else if (is_flag(a, "--demo")) demo = true;
    else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "onnxforge optimize: unknown option '%s'\n", a.c_str());
      return kUsage;
    } else files.push_back(a);
  }
  // The demo model only when asked for: a lone path is never taken as OUT (that would write the
  // demo over the user's model).
  if (files.size() != (demo ? 1u : 2u)) {
    std::fprintf(stderr, "%s%s", demo ? "onnxforge optimize: --demo takes OUT only\n"
                                      : "onnxforge optimize: give IN and OUT (OUT may be IN for an in-place run)\n",
                 kUsageText);
    return kUsage;
  }
  if (vargs.any() && !verify && !verify_each) {
    std::fprintf(stderr, "onnxforge optimize: verification options need --verify or --verify-each-pass\n");
    return kUsage;
  }
  std::string in = demo ? "" : files[0], out = files.back();

  ofg_options* opts = nullptr;
  ofg_status st = ofg_options_create(&opts);
  std::string shape_spec;
  for (const std::string& s : shapes) shape_spec += (shape_spec.empty() ? "" : ";") + s;
  if (st == OFG_OK && !passes.empty()) st = ofg_options_set(opts, "optimize.passes", passes.c_str());
  if (st == OFG_OK && !skip.empty()) st = ofg_options_set(opts, "optimize.skip", skip.c_str());
  if (st == OFG_OK && !shape_spec.empty()) st = ofg_options_set(opts, "optimize.input_shapes", shape_spec.c_str());
  if (st == OFG_OK && check) st = ofg_options_set(opts, "optimize.check_each_pass", "1");
  if (st == OFG_OK && external) st = ofg_options_set(opts, "save.external_data", "1");
  if (st == OFG_OK && verify_each) st = ofg_options_set(opts, "optimize.verify_each_pass", "1");
  if (st != OFG_OK) {
    ofg_options_free(opts);
    return report("options", st);
  }
  if ((verify || verify_each) && vargs.apply(opts, in) != kOk) {
    ofg_options_free(opts);
    return kUsage;
  }
  ofg_model* m = nullptr;
  st = load_model(in, demo, &m);
  if (st != OFG_OK) {
    ofg_options_free(opts);
    return report(demo ? "demo model" : in.c_str(), st);
  }
  // The reference of --verify: the model as loaded now. It views the input file's mapping, which
  // stays valid after an in-place save renames a new file over the path.
  ofg_model* original = nullptr;
  if (verify) {
    st = load_model(in, demo, &original);
    if (st != OFG_OK) {
      ofg_model_free(m);
      ofg_options_free(opts);
      return report(demo ? "demo model" : in.c_str(), st);
    }
  }
  Snapshot before = snapshot(m);
  ofg_pass_report* rep = nullptr;
  st = ofg_optimize(m, opts, &rep);
  if (st != OFG_OK) {
    ofg_model_free(original);
    ofg_model_free(m);
    ofg_options_free(opts);
    return report("optimize", st);
  }
  Snapshot after = snapshot(m);

  int64_t nb = 0, na = 0;
  uint64_t bb = 0, ba = 0;
  double ms = 0;
  int32_t iterations = 0;
  ofg_pass_report_totals(rep, &nb, &na, &bb, &ba, &ms, &iterations);
  std::printf("%s -> %s\n", demo ? "(demo model)" : in.c_str(), out.c_str());
  std::printf("  nodes        %zu -> %zu\n", before.nodes, after.nodes);
  std::printf("  initializers %zu -> %zu (%.2f MB -> %.2f MB)\n", before.inits, after.inits, before.bytes / 1e6,
              after.bytes / 1e6);
  std::printf("  time         %.2f ms, %d round(s)\n", ms, iterations);
  std::printf("  op changes:\n");
  std::map<std::string, std::pair<size_t, size_t>> ops;
  for (auto& e : before.ops) ops[e.first].first = e.second;
  for (auto& e : after.ops) ops[e.first].second = e.second;
  for (auto& e : ops)
    if (e.second.first != e.second.second)
      std::printf("    %-28s %5zu -> %zu\n", e.first.c_str(), e.second.first, e.second.second);
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
  int exit_code = kOk;
  if (verify) exit_code = verify_against_original(original, m, opts);
  // An in-place run replaces the user's model only with a result that passed its verification.
  if (exit_code != kOk && !demo && same_file(in, out)) {
    std::fprintf(stderr, "onnxforge optimize: verification did not pass; %s was left unchanged\n", in.c_str());
  } else {
    st = ofg_save(m, out.c_str(), opts);
    if (st != OFG_OK) exit_code = report(out.c_str(), st);
  }
  if (!report_path.empty()) {
    FILE* f = std::fopen(report_path.c_str(), "wb");
    const char* json = ofg_pass_report_json(rep);
    if (!f || std::fputs(json, f) < 0 || std::fclose(f) != 0) {
      std::fprintf(stderr, "onnxforge optimize: cannot write %s\n", report_path.c_str());
      if (exit_code == kOk) exit_code = kUsage;
    }
  }
  ofg_pass_report_free(rep);
  ofg_model_free(original);
  ofg_model_free(m);
  ofg_options_free(opts);
  return exit_code;
}

}  // namespace cli
