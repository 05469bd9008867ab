// Inputs a model can take, for verification when the caller gave no data.
//
// Every dim an input's declaration leaves open is a variable: one per symbolic name (shared by
// all inputs that use the name), one per unnamed dim. Candidates for those variables are the
// sizes the graph itself suggests (weight and constant dims, Reshape targets and other small
// integer constants), then powers of two. Relations the graph fixes between symbolic dims (a
// Concat's sum, broadcast equalities: dim_relations.h) are followed first, with the free dims at
// distinct sizes above 1 (batch 2, the others 3, 4, ...); then the same sizes for every dim as
// before, with and without the relations. Integer inputs that are compared with constants (an
// `Equal(sr, 16000)` feeding an If) take those constants, inputs that index a Gather table stay
// below its size. The planner lists candidate input sets in order, simplest first; the caller
// runs the model on each until one is accepted.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "verify/dim_relations.h"
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
  // The relations between symbolic dims the graph fixes that the first candidates follow
  // (dim_relations.h), e.g. "total = past + seq"; "" when none.
  std::string relations() const { return solver_ ? solver_->describe() : std::string(); }

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
    bool unnamed = false;  // a dim without a symbolic name (label "INPUT[axis]")
    int64_t fixed = -1;  // given by the caller
  };
  struct Try {
    std::vector<int64_t> var_values;
    size_t constant_choice = 0;  // which compared-with constant integer inputs take
    bool related = false;        // the dims the graph relates were solved (apply_relations)
  };
  void plan_tries(const std::vector<int64_t>& sizes);
  // Sets the vars the relations determine from the others in t (false: they come out invalid).
  bool apply_relations(Try& t) const;
  std::vector<int64_t> shape_of(const Input& in, const Try& t) const;

  const Options& o_;
  std::vector<Input> inputs_;
  std::vector<Var> vars_;
  std::vector<Try> tries_;
  std::unique_ptr<DimSolver> solver_;  // null when the graph relates no input dims
};

}  // namespace ofg::verify
