// What the opaque handles of the C ABI hold.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "exec/interp.h"
#include "ir/ir.h"
#include "onnxforge.h"

struct ofg_options {
  std::map<std::string, std::string> values;
  bool has(const char* key) const { return values.count(key) != 0; }
  // By value: the fallback is often a temporary.
  std::string get(const char* key, const std::string& fallback) const {
    auto it = values.find(key);
    return it == values.end() ? fallback : it->second;
  }
};

struct ofg_model {
  std::unique_ptr<ofg::Model> model;
  // What ofg_run derives from the weights (packed conv weights, aligned copies), kept across runs.
  // Reset before anything that may change or replace the model.
  std::unique_ptr<ofg::exec::ExecCache> exec_cache;
  // Cached answers whose strings the C caller may hold until the model changes.
  struct HistogramEntry {
    std::string domain, op_type;
    size_t count;
  };
  std::vector<HistogramEntry> histogram;
};
