// Inputs a model can take, for verification when the caller gave no data.
//
// Every dim an input's declaration leaves open is a variable: one per symbolic name (shared by
// all inputs that use the name), one per unnamed dim. Candidates for those variables are the
// sizes the graph itself suggests (weight and constant dims, Reshape targets and other small
// integer constants), then powers of two; integer inputs that are compared with constants (an
// `Equal(sr, 16000)` feeding an If) take those constants, inputs that index a Gather table stay
// below its size. The planner lists candidate input sets in order, simplest first; the caller
// runs the model on each until one is accepted.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "verify/verify.h"

namespace ofg::verify {

class InputPlanner {
 public:
  InputPlanner(Model& m, const Options& o);
  // Candidate input sets (always at least one).
  size_t count() const { return tries_.size(); }
  // Candidate k drawn with `seed`: float inputs N(0,1), bools fair coin flips, integers as above.
  NamedValues make(size_t k, uint64_t seed) const;
  // "batch=2, sequence=512, sr=16000" for candidate k ("" when nothing was free to choose).
  std::string describe(size_t k) const;
  // True when candidate sets differ in more than their random contents.
  bool has_choices() const { return count() > 1; }

 private:
  struct DimSlot {
    int64_t value = -1;  // fixed size, or -1 when `var` decides it
    int var = -1;
  };
  struct Input {
    std::string name;
    int32_t elem_type = 0;
    std::vector<DimSlot> dims;
    std::vector<int64_t> compared_with;  // integer inputs: constants they are compared with
    int64_t index_bound = 0;             // integer inputs: size of the table they index (0: none)
  };
  struct Var {
    std::string label;  // the symbolic name, or "INPUT[axis]" for an unnamed dim
    bool batch_like = false;
    int64_t fixed = -1;  // given by the caller
  };
  struct Try {
    std::vector<int64_t> var_values;
    size_t constant_choice = 0;  // which compared-with constant integer inputs take
  };
  void plan_tries(const std::vector<int64_t>& sizes);
  std::vector<int64_t> shape_of(const Input& in, const Try& t) const;

  const Options& o_;
  std::vector<Input> inputs_;
  std::vector<Var> vars_;
  std::vector<Try> tries_;
};

}  // namespace ofg::verify
