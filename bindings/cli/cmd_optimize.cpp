// onnxforge optimize [IN] OUT [--passes a,b] [--skip a,b] [--input-shape NAME=1,3,224,224]...
//                   [--report FILE.json] [--external-data]
#include <cstdio>
#include <map>
#include <string>

#include "cli.h"

namespace cli {

namespace {

const char* kUsageText =
    "usage: onnxforge optimize [IN] OUT [--passes a,b] [--skip a,b] [--input-shape NAME=d1,d2,...]\n"
    "                          [--report FILE.json] [--external-data] [--check]\n"
    "                          [--verify [--samples N]] [--verify-each-pass]\n\n"
    "Runs the default pass pipeline to a fixed point and saves the result as OUT (the built-in\n"
    "demo model when only OUT is given).\n"
    "--passes a,b        run only these passes, in this order\n"
    "--skip a,b          do not run these passes\n"
    "--input-shape N=..  fix the shape of input N (repeatable)\n"
    "--report FILE       write the per-pass report as JSON\n"
    "--external-data     save tensors of 1 KiB or more to OUT.data\n"
    "--check             check IR consistency after every pass\n"
    "--verify            run the original and the result on the same random inputs and compare\n"
    "                    (exit 1 when they differ; OUT is still written so it can be inspected)\n"
    "--samples N         input sets for --verify (default 1)\n"
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

// Runs the original model (loaded again) and the optimized one on the same inputs.
int verify_against_original(const std::string& in, ofg_model* optimized, const ofg_options* opts) {
  ofg_model* original = nullptr;
  ofg_status st = load_or_demo(in, &original);
  if (st != OFG_OK) return report(in.empty() ? "demo model" : in.c_str(), st);
  ofg_report* rep = nullptr;
  st = ofg_verify(original, optimized, opts, &rep);
  ofg_model_free(original);
  if (st != OFG_OK) return report("verify", st);
  int32_t passed = 0;
  size_t n = 0;
  ofg_report_passed(rep, &passed);
  ofg_report_output_count(rep, &n);
  std::printf("  verify: %s\n", passed ? "outputs match" : "OUTPUTS DIFFER");
  for (size_t i = 0; i < n; ++i) {
    ofg_diff d{};
    d.struct_size = sizeof d;
    if (ofg_report_output(rep, i, &d) != OFG_OK) continue;
    if (d.problem) std::printf("    %-28s %s\n", d.name, d.problem);
    else
      std::printf("    %-28s max abs %.3g  max rel %.3g  mismatches %llu/%llu\n", d.name, d.max_abs, d.max_rel,
                  static_cast<unsigned long long>(d.mismatches), static_cast<unsigned long long>(d.elements));
  }
  ofg_report_free(rep);
  return passed ? kOk : kCheckFailed;
}

}  // namespace

int cmd_optimize(const Args& args) {
  std::vector<std::string> files, shapes;
  std::string passes, skip, report_path;
  bool external = false, check = false, verify = false, verify_each = false;
  std::string samples;
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
      std::printf("%s", kUsageText);
      return kOk;
    }
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
    else if (is_flag(a, "--samples")) { if (!value(samples)) return kUsage; }
    else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "onnxforge optimize: unknown option '%s'\n", a.c_str());
      return kUsage;
    } else files.push_back(a);
  }
  if (files.empty() || files.size() > 2) {
    std::fprintf(stderr, "%s", kUsageText);
    return kUsage;
  }
  std::string in = files.size() == 2 ? files[0] : "", out = files.back();

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
  if (st == OFG_OK && !samples.empty()) st = ofg_options_set(opts, "verify.samples", samples.c_str());
  if (st != OFG_OK) {
    ofg_options_free(opts);
    return report("options", st);
  }
  ofg_model* m = nullptr;
  st = load_or_demo(in, &m);
  if (st != OFG_OK) {
    ofg_options_free(opts);
    return report(in.empty() ? "demo model" : in.c_str(), st);
  }
  Snapshot before = snapshot(m);
  ofg_pass_report* rep = nullptr;
  st = ofg_optimize(m, opts, &rep);
  if (st != OFG_OK) {
    ofg_model_free(m);
    ofg_options_free(opts);
    return report("optimize", st);
  }
  Snapshot after = snapshot(m);
  st = ofg_save(m, out.c_str(), opts);
  if (st != OFG_OK) {
    ofg_options_free(opts);
    ofg_pass_report_free(rep);
    ofg_model_free(m);
    return report(out.c_str(), st);
  }

  int64_t nb = 0, na = 0;
  uint64_t bb = 0, ba = 0;
  double ms = 0;
  int32_t iterations = 0;
  ofg_pass_report_totals(rep, &nb, &na, &bb, &ba, &ms, &iterations);
  std::printf("%s -> %s\n", in.empty() ? "(demo model)" : in.c_str(), out.c_str());
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
  if (!report_path.empty()) {
    FILE* f = std::fopen(report_path.c_str(), "wb");
    const char* json = ofg_pass_report_json(rep);
    if (!f || std::fputs(json, f) < 0 || std::fclose(f) != 0) {
      std::fprintf(stderr, "onnxforge optimize: cannot write %s\n", report_path.c_str());
      ofg_pass_report_free(rep);
      ofg_model_free(m);
      return kUsage;
    }
  }
  ofg_pass_report_free(rep);
  int exit_code = kOk;
  if (verify) exit_code = verify_against_original(in, m, opts);
  ofg_model_free(m);
  ofg_options_free(opts);
  return exit_code;
}

}  // namespace cli
