// onnxforge inspect [MODEL] [--json]
#include <cstdio>
#include <string>
#include <vector>

#include "cli.h"

namespace cli {
namespace {

struct IoDesc {
  std::string name;
  std::string type;
  std::vector<std::string> dims;  // numbers, symbols, or "?"
};

struct Summary {
  int64_t ir_version = 0;
  std::string producer, producer_version;
  std::vector<std::pair<std::string, int64_t>> opsets;
  std::vector<IoDesc> inputs, outputs;
  size_t nodes = 0, nodes_all = 0, initializers = 0;
  uint64_t initializer_bytes = 0;
  std::vector<std::pair<std::string, size_t>> ops;
};

ofg_status describe_io(ofg_model* m, int32_t kind, std::vector<IoDesc>& out) {
  size_t n = 0;
  ofg_status s = ofg_model_io_count(m, kind, &n);
  for (size_t i = 0; s == OFG_OK && i < n; ++i) {
    ofg_value_desc d;
    d.struct_size = sizeof d;
    if ((s = ofg_model_io(m, kind, i, &d)) != OFG_OK) break;
    IoDesc io;
    io.name = d.name;
    io.type = d.elem_type ? ofg_elem_type_name(d.elem_type) : "?";
    for (int32_t k = 0; k < d.rank; ++k) {
      int64_t value;
      const char* symbol;
      if ((s = ofg_model_io_dim(m, kind, i, static_cast<size_t>(k), &value, &symbol)) != OFG_OK) break;
      io.dims.push_back(value >= 0 ? std::to_string(value) : symbol ? symbol : "?");
    }
    if (d.rank < 0) io.dims.push_back("...");
    out.push_back(io);
  }
  return s;
}

ofg_status summarize(ofg_model* m, Summary& s) {
  ofg_status st;
  const char *name, *version;
  if ((st = ofg_model_ir_version(m, &s.ir_version)) != OFG_OK) return st;
  if ((st = ofg_model_producer(m, &name, &version)) != OFG_OK) return st;
  s.producer = name;
  s.producer_version = version;
  size_t n;
  if ((st = ofg_model_opset_count(m, &n)) != OFG_OK) return st;
  for (size_t i = 0; i < n; ++i) {
    const char* domain;
    int64_t v;
    if ((st = ofg_model_opset(m, i, &domain, &v)) != OFG_OK) return st;
    s.opsets.emplace_back(*domain ? domain : "ai.onnx", v);
  }
  if ((st = describe_io(m, OFG_INPUT, s.inputs)) != OFG_OK) return st;
  if ((st = describe_io(m, OFG_OUTPUT, s.outputs)) != OFG_OK) return st;
  if ((st = ofg_model_node_count(m, 0, &s.nodes)) != OFG_OK) return st;
  if ((st = ofg_model_node_count(m, 1, &s.nodes_all)) != OFG_OK) return st;
  if ((st = ofg_model_initializer_stats(m, &s.initializers, &s.initializer_bytes)) != OFG_OK) return st;
  if ((st = ofg_model_op_histogram_count(m, &n)) != OFG_OK) return st;
  for (size_t i = 0; i < n; ++i) {
    const char *domain, *op;
    size_t count;
    if ((st = ofg_model_op_histogram_entry(m, i, &domain, &op, &count)) != OFG_OK) return st;
    s.ops.emplace_back(*domain ? std::string(domain) + "." + op : std::string(op), count);
  }
  return OFG_OK;
}

std::string shape_text(const IoDesc& io) {
  std::string t = "[";
  for (size_t k = 0; k < io.dims.size(); ++k) t += (k ? "," : "") + io.dims[k];
  return t + "]";
}

void print_table(const std::string& source, const Summary& s) {
  std::printf("model        %s\n", source.c_str());
  std::printf("ir_version   %lld\n", static_cast<long long>(s.ir_version));
  std::printf("producer     %s %s\n", s.producer.c_str(), s.producer_version.c_str());
  std::printf("opsets      ");
  for (auto& o : s.opsets) std::printf(" %s:%lld", o.first.c_str(), static_cast<long long>(o.second));
  std::printf("\n");
  for (auto& io : s.inputs) std::printf("input        %-24s %-8s %s\n", io.name.c_str(), io.type.c_str(), shape_text(io).c_str());
  for (auto& io : s.outputs) std::printf("output       %-24s %-8s %s\n", io.name.c_str(), io.type.c_str(), shape_text(io).c_str());
  std::printf("nodes        %zu (%zu with subgraphs)\n", s.nodes, s.nodes_all);
  std::printf("initializers %zu (%.2f MiB)\n", s.initializers, static_cast<double>(s.initializer_bytes) / (1024.0 * 1024.0));
  std::printf("ops\n");
  for (auto& op : s.ops) std::printf("  %-28s %zu\n", op.first.c_str(), op.second);
}

void print_json(const std::string& source, const Summary& s) {
  auto io_json = [](const std::vector<IoDesc>& list) {
    std::string out = "[";
    for (size_t i = 0; i < list.size(); ++i) {
      const IoDesc& io = list[i];
      out += (i ? "," : "") + std::string("{\"name\":\"") + json_escape(io.name) + "\",\"type\":\"" + io.type + "\",\"shape\":[";
      for (size_t k = 0; k < io.dims.size(); ++k) {
        const std::string& d = io.dims[k];
        bool numeric = !d.empty() && d.find_first_not_of("0123456789") == std::string::npos;
        out += (k ? "," : "") + (numeric ? d : "\"" + json_escape(d) + "\"");
      }
      out += "]}";
    }
    return out + "]";
  };
  std::printf("{\"model\":\"%s\",\"ir_version\":%lld,\"producer\":\"%s\",\"producer_version\":\"%s\",\"opsets\":{",
              json_escape(source).c_str(), static_cast<long long>(s.ir_version), json_escape(s.producer).c_str(),
              json_escape(s.producer_version).c_str());
  for (size_t i = 0; i < s.opsets.size(); ++i)
    std::printf("%s\"%s\":%lld", i ? "," : "", json_escape(s.opsets[i].first).c_str(), static_cast<long long>(s.opsets[i].second));
  std::printf("},\"inputs\":%s,\"outputs\":%s,\"nodes\":%zu,\"nodes_with_subgraphs\":%zu,\"initializers\":%zu,"
              "\"initializer_bytes\":%llu,\"ops\":{",
              io_json(s.inputs).c_str(), io_json(s.outputs).c_str(), s.nodes, s.nodes_all, s.initializers,
              static_cast<unsigned long long>(s.initializer_bytes));
  for (size_t i = 0; i < s.ops.size(); ++i) std::printf("%s\"%s\":%zu", i ? "," : "", json_escape(s.ops[i].first).c_str(), s.ops[i].second);
  std::printf("}}\n");
}

}  // namespace

int cmd_inspect(const Args& args) {
  std::string path;
  bool json = false, demo = false;
  for (const std::string& a : args) {
    if (is_flag(a, "--help") || is_flag(a, "-h")) {
      std::printf("usage: onnxforge inspect MODEL [--json]\n"
                  "       onnxforge inspect --demo [--json]\n\n"
                  "Prints a model's IR version, producer, opsets, inputs and outputs (with symbolic\n"
                  "dims), node count, op histogram and initializer size. --demo: the built-in demo\n"
                  "model. --json prints one JSON object instead of the table.\n");
      return kOk;
    }
    if (is_flag(a, "--json")) json = true;
    else if (is_flag(a, "--demo")) demo = true;
    else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "onnxforge inspect: unknown option '%s'\n", a.c_str());
      return kUsage;
    } else if (path.empty()) path = a;
    else {
      std::fprintf(stderr, "onnxforge inspect: more than one model given\n");
      return kUsage;
    }
  }
  if (path.empty() == !demo) {
    std::fprintf(stderr, "onnxforge inspect: give a MODEL%s\n", demo ? " or --demo, not both" : " (or --demo for the built-in one)");
    return kUsage;
  }
  ofg_model* m = nullptr;
  ofg_status st = load_model(path, demo, &m);
  if (st != OFG_OK) return report(path.c_str(), st);
  Summary s;
  st = summarize(m, s);
  if (st == OFG_OK) {
    std::string source = demo ? "(built-in demo)" : path;
    if (json) print_json(source, s);
    else print_table(source, s);
  }
  ofg_model_free(m);
  return st == OFG_OK ? kOk : report("inspect", st);
}

}  // namespace cli
