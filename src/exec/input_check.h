// Given graph inputs against what the model declares for them, checked at the door: every run of
// a main graph (Interpreter::run, so ofg_run, ofg_run_values, ofg_verify and verify_each_pass)
// goes through check_inputs before any node runs. A tensor whose element type or rank
// contradicts the declared input, or whose size contradicts a fixed declared dim, is the
// caller's mistake (Status::kInvalidArgument naming the input, the declared and the given
// type), not an invalid model blamed on the first node that trips over it.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "exec/tensor.h"
#include "ir/ir.h"

namespace ofg::exec {

// "float32[1,3,224,224]", "int64[batch,seq]", "float32[?]" (a dim without value or name),
// "float32 (any shape)", "sequence of float32[N]", "optional of ...".
std::string declared_type_text(const Model& m, const Type* t);
// "float32[1,3,5]", "sequence of 2 float32[..]", "an empty optional".
std::string given_value_text(const RValue& v);
// "x, y, mask": the names of the model's graph inputs that are not initializers (the ones a
// caller gives), for messages about an unknown input name.
std::string input_names_text(const Model& m);

// Throws kInvalidArgument "input 'x': given float32[1,3,5] but the model declares
// float32[1,3,224,224]" when `v` contradicts graph input `index` of `m`: another element type,
// another rank, another size where the declared dim is fixed, or another kind (a sequence given
// for a tensor). Symbolic and unknown dims accept any size. Inputs without a declared type (or
// with an element type or shape left out) are not checked on what is left out.
void check_input(const Model& m, size_t index, const RValue& v);

// check_input for each given (graph input index, value), then one more rule across inputs: a
// symbolic dim named twice (N in x[N,3] and y[N]) takes one size in all of them.
void check_inputs(const Model& m, const std::vector<std::pair<size_t, const RValue*>>& given);

}  // namespace ofg::exec
