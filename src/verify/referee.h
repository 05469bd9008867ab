// The float64 referee of a verification: the reference model evaluated in double precision, to
// tell a candidate that differs from the reference because it is MORE exact (a fused LayerNorm
// in float16 rounds once where the decomposed one rounds at every step) from one that is wrong.
//
// The reference is copied and every float32/float16/bfloat16 in it becomes float64: initializers,
// Constant and ConstantOfShape tensors, Cast/EyeLike/Random* target types, declared types of
// inputs, outputs and values. The copy runs on the same inputs (float ones cast to double). When
// it cannot run (an op without a double kernel, a type rule it breaks) or an output it gives is
// not double, the referee is unavailable and says why.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "verify/verify.h"

namespace ofg::verify {

class Float64Referee {
 public:
  explicit Float64Referee(const Model& reference);
  ~Float64Referee();
  // Outputs of the float64 copy on `inputs` in reference-output order, or empty (with why())
  // when the referee cannot evaluate the model.
  std::vector<exec::RValue> run(const NamedValues& inputs);
  const std::string& why() const { return why_; }

 private:
  std::unique_ptr<Model> m64_;
  std::unique_ptr<exec::Interpreter> interp_;
  std::string why_;  // "" while available
};

// Re-judges `d` (candidate vs reference, elements outside tolerance) against `exact`, the float64
// evaluation of the reference: accepted when the candidate is at least as close to the exact
// answer as the reference by both its largest error and its count of elements outside tolerance
// (referee.cpp says why). Fills the referee fields of d; accepted clears d.mismatches.
void referee_judge(OutputDiff& d, const exec::RTensor& cand, const exec::RTensor& ref, const exec::RTensor& exact,
                   double atol, double rtol);

}  // namespace ofg::verify
