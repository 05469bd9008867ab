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
#include <utility>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace ofg::verify {

// sum(coef[i].second * coef[i].first) + constant == 0 over symbolic dim names.
struct DimRelation {
  std::vector<std::pair<std::string, int64_t>> coef;
  int64_t constant = 0;
};

std::vector<DimRelation> derive_dim_relations(Model& m);

// Sizes of symbolic dims that the relations determine from the others. Which names are
// determined: never one in `keep_free` (sizes the caller gave), first names no input declares
// (not in `inputs`), then in each relation the name whose coefficient's sign is alone (the sum
// side of a Concat: total in total - past - seq). Relations that repeat or contradict earlier
// ones are dropped. Names are numbered in names(); sizes are passed by that number.
class DimSolver {
 public:
  DimSolver(const std::vector<DimRelation>& relations, const std::vector<std::string>& keep_free,
            const std::vector<std::string>& inputs);
  const std::vector<std::string>& names() const { return names_; }
  // The number of `name` in names(), or -1.
  int index(const std::string& name) const;
  // Whether names()[i] is determined by the others.
  bool determined(size_t i) const { return pivot_row_[i] >= 0; }
  // Sets values[i] of the determined names from the others (values[i] < 0: unknown; a determined
  // name whose relation needs an unknown one is left alone); false when a determined size comes
  // out negative or not an integer (the caller then tries other sizes).
  bool solve(std::vector<int64_t>& values) const;
  // "total = past + seq, mask_len = seq" ("" when nothing is determined).
  std::string describe() const;

 private:
  // Reduced rows: names_[pivot] = -(sum(coef[j] * names_[j]) + constant), coef[pivot] == 0.
  struct Row {
    size_t pivot = 0;
    std::vector<double> coef;
    double constant = 0;
  };
  std::vector<std::string> names_;
  std::vector<Row> rows_;
  std::vector<int> pivot_row_;  // per name: its row, or -1
};

}  // namespace ofg::verify
