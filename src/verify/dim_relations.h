// Relations a graph fixes between its symbolic dims, for choosing verification inputs that agree
// with each other: a Concat along an axis makes the result's dim the sum of its inputs' (a KV
// cache: total = past + seq when past and new keys are concatenated and an output or a mask is
// declared with `total`), broadcasting two dims that are not 1 makes them equal (a mask added to
// the scores it masks), a MatMul's inner dims are equal.
//
// How: one walk over the main graph in order, with the shapes type inference gives
// (exec/infer_types.h: symbolic dims by name, shape arithmetic) and, for the ops that carry dims
// through (broadcasting ops, Concat, MatMul, Transpose, Unsqueeze, Expand, Reshape, unary ops),
// each dim as a linear expression of the symbolic names (so a Concat's sum reaches the ops
// downstream). Every place two expressions must agree is one relation; declared output shapes
// agree with what the graph computes. They are heuristics for the input planner: a wrong one
// costs a rejected input set, never a wrong verdict.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace ofg::verify {

// sum(coef[name] * name) + constant == 0.
struct DimRelation {
  std::map<std::string, int64_t> coef;
  int64_t constant = 0;
};

std::vector<DimRelation> derive_dim_relations(Model& m);

// Sizes of symbolic dims that the relations determine from the others. Which names are
// determined: never one in `keep_free` (sizes the caller gave), first names no input declares
// (not in `inputs`), then in each relation the name whose coefficient's sign is alone (the sum
// side of a Concat: total in total - past - seq). Relations that repeat or contradict earlier
// ones are dropped.
class DimSolver {
 public:
  DimSolver(const std::vector<DimRelation>& relations, const std::vector<std::string>& keep_free,
            const std::vector<std::string>& inputs);
  // The names the relations determine.
  const std::vector<std::string>& determined() const { return pivots_; }
  // Sets the determined names in `values` from the other names there (a determined name whose
  // relation names one that `values` lacks is left alone); false when a determined size comes
  // out negative or not an integer (the caller then tries other sizes).
  bool solve(std::map<std::string, int64_t>& values) const;
  // "total = past + seq, mask_len = seq" ("" when nothing is determined).
  std::string describe() const;

 private:
  // Reduced rows: pivot name = -(sum(coef * other) + constant) / pivot coefficient.
  struct Row {
    std::string pivot;
    std::map<std::string, double> coef;  // without the pivot (its coefficient normalised to 1)
    double constant = 0;
  };
  std::vector<Row> rows_;
  std::vector<std::string> pivots_;
};

}  // namespace ofg::verify
