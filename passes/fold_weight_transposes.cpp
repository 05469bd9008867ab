// fold_weight_transposes: a 2-D Transpose feeding input A or B of Gemm is dropped and Gemm's
// transA/transB flipped instead (the Transpose of a constant weight feeding MatMul is stored
// pre-transposed by eliminate_redundant_transposes). Exact.
#include "passes/util.h"

namespace ofg::passes {

void run_fold_weight_transposes(PassContext& ctx) {
  Model& m = ctx.m;
  for_each_op(m, "Gemm", [&](Graph* g, Node* n) {
    if (n->inputs.size < 2) return;
    for (int k = 0; k < 2; ++k) {
      Value* in = n->inputs[k];
      Node* t = producer_if(m, in, "Transpose", g);
      if (!t || !single_use(in) || !t->inputs[0]) continue;
      std::vector<int64_t> perm;
      // Gemm inputs are 2-D, so a Transpose without perm is [1, 0] too.
      if (attr_ints(m, t, "perm", perm) && !(perm.size() == 2 && perm[0] == 1 && perm[1] == 0)) continue;
      const char* flag = k == 0 ? "transA" : "transB";
      set_attr_int(m, n, flag, attr_int(m, n, flag, 0) ? 0 : 1);
      set_input(n, k, t->inputs[0]);
      drop(ctx, t);
      ++ctx.changes;
    }
  });
}

}  // namespace ofg::passes
