// The one body of ofg_run and ofg_run_values: argument checks, the tensor budget, the model's
// cache of what is derived from the weights, the run, and the output array.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "api/guard.h"
#include "api/handles.h"
#include "api/options.h"

namespace ofg::api {

// `to_runtime(const In&)` gives an input's interpreter value; `make_output(const ValueInfo&,
// const exec::RValue&)` gives the handle (std::unique_ptr<Out>) of a graph output.
template <class In, class Out, class ToRuntime, class MakeOutput>
void run_model(const char* fn, const ofg_model* model, const ofg_options* options, size_t n_inputs,
               const char* const* names, const In* const* inputs, size_t* n_outputs, Out*** outputs,
               ToRuntime&& to_runtime, MakeOutput&& make_output) {
  require(model, fn, "model");
  require(n_outputs, fn, "n_outputs");
  require(outputs, fn, "outputs");
  exec::TensorBudgetScope budget(tensor_budget(options));
  if (n_inputs) {
    require(names, fn, "names");
    require(inputs, fn, "inputs");
  }
  std::vector<std::pair<std::string, exec::RValue>> in;
  for (size_t i = 0; i < n_inputs; ++i) {
    require(names[i], fn, "names[i]");
    require(inputs[i], fn, "inputs[i]");
    in.emplace_back(names[i], to_runtime(*inputs[i]));
  }
  if (!model->exec_cache) model->exec_cache = std::make_unique<exec::ExecCache>();
  if (!model->interp) model->interp = std::make_unique<exec::Interpreter>(*model->model, model->exec_cache.get());
  std::vector<exec::RValue> outs = model->interp->run(in);
  std::vector<std::unique_ptr<Out>> made;
  for (size_t i = 0; i < outs.size(); ++i) made.push_back(make_output(model->model->graph->outputs[i], outs[i]));
  auto** arr = new Out*[made.size() ? made.size() : 1];
  for (size_t i = 0; i < made.size(); ++i) arr[i] = made[i].release();
  *n_outputs = made.size();
  *outputs = arr;
}

}  // namespace ofg::api
