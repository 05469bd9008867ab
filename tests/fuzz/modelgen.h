// Random valid ONNX models for differential testing of the optimizer (see modelgen_main.cpp for
// how to run it).
//
// generate(seed) builds a random DAG of ops the interpreter runs, with consistent shapes and
// element types, biased towards the patterns the passes rewrite. The same seed always gives the
// same model (the generator has its own random number generator, independent of the standard
// library's distributions).
//
// check_model() is the differential check: the model goes through the public API (loaded from
// memory), is optimized with the default pipeline, verified against the unoptimized model, saved
// to memory, reloaded, and the reloaded model is verified again.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ir/ir.h"

namespace ofg::modelgen {

struct GenOptions {
  int min_steps = 4;   // pattern recipes applied per model (a recipe adds 1 to ~12 nodes)
  int max_steps = 18;
};

struct Generated {
  std::unique_ptr<Model> model;
  std::string recipes;  // the recipes applied, in order (for failure reports)
};

Generated generate(uint64_t seed, const GenOptions& options = {});

// The nodes of a model, one a line (for debugging a failing seed).
std::string dump(const Model& m);

// The generated model serialized as an ONNX file image.
std::vector<uint8_t> serialize(const Model& m);

struct CheckOptions {
  bool blame = false;  // on a mismatch, rerun the passes one by one and name the first that breaks it
  // ofg_optimize options: "optimize.passes" ("" = the default pipeline) and
  // "optimize.input_shapes" ("" = keep the symbolic dims).
  std::string passes;
  std::string input_shapes;
  std::vector<std::string> n_values{"2", "3"};  // sizes of N the models are verified at
};

// The variant of the check a seed gets: seed % 4 == 2 adds the opt-in fuse_conv_relu to the
// default passes, seed % 4 == 3 fixes N = 3 with optimize.input_shapes first; others run the
// default pipeline.
CheckOptions variant_for(uint64_t seed, const Model& m, CheckOptions base);

struct CheckResult {
  bool ok = true;
  std::string stage;    // load, run-original, optimize, verify, save, reload, verify-reloaded, optimize-again, verify-again
  std::string message;  // what failed
  std::string blame;    // with CheckOptions::blame: the first pass whose output no longer verifies
  int64_t nodes_before = 0, nodes_after = 0;
  std::vector<std::pair<std::string, size_t>> ops_before, ops_after;  // main-graph op histograms
};

CheckResult check_model(const std::vector<uint8_t>& bytes, const CheckOptions& options = {});
const char* variant_name(const CheckOptions& o);

}  // namespace ofg::modelgen
