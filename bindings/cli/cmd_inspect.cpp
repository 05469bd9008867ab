// onnxforge inspect MODEL|--demo [--json]
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
  return op_counts(m, s.ops);
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
  JsonWriter j;
  j.begin_object().str("model", source).integer("ir_version", s.ir_version).str("producer", s.producer);
  j.str("producer_version", s.producer_version).begin_object("opsets");
  for (auto& o : s.opsets) j.integer(o.first.c_str(), o.second);
  j.end_object();
  for (auto* list : {&s.inputs, &s.outputs}) {
    j.begin_array(list == &s.inputs ? "inputs" : "outputs");
    for (const IoDesc& io : *list) {
      j.begin_object().str("name", io.name).str("type", io.type).begin_array("shape");
      for (const std::string& d : io.dims) {
        bool numeric = !d.empty() && d.find_first_not_of("0123456789") == std::string::npos;
        if (numeric) j.integer(nullptr, std::stoll(d));
        else j.str(nullptr, d);
      }
      j.end_array().end_object();
    }
    j.end_array();
  }
  j.integer("nodes", static_cast<long long>(s.nodes)).integer("nodes_with_subgraphs", static_cast<long long>(s.nodes_all));
  j.integer("initializers", static_cast<long long>(s.initializers));
  j.integer("initializer_bytes", static_cast<long long>(s.initializer_bytes)).begin_object("ops");
  for (auto& op : s.ops) j.integer(op.first.c_str(), static_cast<long long>(op.second));
  j.end_object().end_object();
  std::printf("%s\n", j.text().c_str());
}

}  // namespace

const CommandHelp kHelp = {
    "inspect",
    "usage: onnxforge inspect MODEL [--json]\n       onnxforge inspect --demo [--json]\n",
    "Prints a model's IR version, producer, opsets, inputs and outputs (with symbolic dims),\n"
    "node count, op histogram and initializer size.\n"};

const std::vector<OptionSpec> kSpecs = {
    {"--json", OptionSpec::kFlag, "", "print one JSON object instead of the table"},
    {"--demo", OptionSpec::kFlag, "", "the built-in demo model instead of MODEL"},
};

int cmd_inspect(const Args& args) {
  ParsedArgs p;
  if (int rc = parse_command(kHelp, args, kSpecs, p); rc >= 0) return rc;
  bool demo = p.has("--demo");
  if (p.positional.size() != (demo ? 0u : 1u))
    return usage_error(kHelp.name, demo ? "--demo takes no MODEL" : "give one MODEL (or --demo for the built-in one)");
  std::string path = demo ? "" : p.positional[0];
  ofg_model* m = nullptr;
  ofg_status st = load_model(path, demo, &m);
  if (st != OFG_OK) return report(kHelp.name, path, st);
  Summary s;
  st = summarize(m, s);
  if (st == OFG_OK) {
    std::string source = demo ? "(built-in demo)" : path;
    if (p.has("--json")) print_json(source, s);
    else print_table(source, s);
  }
  ofg_model_free(m);
  return st == OFG_OK ? kOk : report(kHelp.name, path, st);
}

}  // namespace cli
