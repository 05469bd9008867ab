// fold_weight_transposes: a 2-D Transpose feeding input A or B of Gemm is dropped and Gemm's
// transA/transB flipped instead (the Transpose of a constant weight feeding MatMul is stored
// pre-transposed by eliminate_redundant_transposes). Exact.
#include "passes/rule.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {

// The Transpose feeding input k of Gemm n when it can be folded into transA/transB, else null.
Node* foldable(const Model& m, Graph* g, Node* n, int k) {
  Value* in = n->inputs[k];
  Node* t = producer_if(m, in, "Transpose", g);
  if (!t || !single_use(in) || !t->inputs[0]) return nullptr;
  std::vector<int64_t> perm;
  // Gemm inputs are 2-D, so a Transpose without perm is [1, 0] too.
  if (attr_ints(m, t, "perm", perm) && !(perm.size() == 2 && perm[0] == 1 && perm[1] == 0)) return nullptr;
  return t;
}

// Both inputs in one rewrite (each flip counts as a change, as when the pass did them in turn).
RuleMatch match_gemm_transpose(const RuleCtx& rc, Graph* g, Node* n) {
  if (n->inputs.size < 2) return RuleMatch::decline("Gemm without two inputs");
  bool fold[2] = {foldable(rc.m, g, n, 0) != nullptr, foldable(rc.m, g, n, 1) != nullptr};
  if (!fold[0] && !fold[1]) return RuleMatch::decline("no single-use 2-D Transpose feeds A or B");
  std::string what = fold[0] && fold[1] ? "Transpose -> Gemm.transA and transB" : fold[0] ? "Transpose -> Gemm.transA" : "Transpose -> Gemm.transB";
  return RuleMatch::rewrite(std::move(what), [n, fold](PassContext& ctx) -> int64_t {
    Model& m = ctx.m;
    int64_t made = 0;
    for (int k = 0; k < 2; ++k) {
      if (!fold[k]) continue;
      Node* t = n->inputs[k]->producer;
      const char* flag = k == 0 ? "transA" : "transB";
      set_attr_int(m, n, flag, attr_int(m, n, flag, 0) ? 0 : 1);
      set_input(n, k, t->inputs[0]);
      drop(ctx, t);
      ++made;
    }
    return made;
  });
}

}  // namespace

OFG_RULE_GROUP(fold_weight_transposes_rules,
  {"transpose_into_gemm", {"Gemm"}, "", 1, kNoOpsetLimit, match_gemm_transpose});

}  // namespace ofg::passes
