// fuse_matmul_add: MatMul(A, B) + C -> Gemm(A, B, C) when A and B are 2-D (Gemm is 2-D only),
// C is a constant that broadcasts to [M, N] without changing it ([N], [1, N] or one element),
// and the MatMul output has no other reader. Float-rounding bounded.
// N-D MatMul (transformer activations [batch, seq, d]) keeps MatMul + Add: that pair is already
// what converters and runtimes fuse, while Reshape-Gemm-Reshape would add two nodes and tie the
// model to static shapes.
// Opset >= 7 (the table's range): unidirectional broadcast of C needs Gemm-7.
#include "passes/rule.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {

RuleMatch match_matmul_add(const RuleCtx& rc, Graph* g, Node* add) {
  const Model& m = rc.m;
  if (add->inputs.size != 2 || !add->outputs[0]) return RuleMatch::decline("not a two-input Add with an output");
  if (read_by_custom(m, add->outputs[0])) return RuleMatch::decline("a custom-domain node reads the sum");
  const char* why = "no input is made by a MatMul of this graph";
  for (int k = 0; k < 2; ++k) {
    Value* y = add->inputs[k];
    Node* mm = producer_if(m, y, "MatMul", g);
    if (!mm || mm->inputs.size != 2) continue;
    const Tensor* c = const_tensor(m, add->inputs[1 - k]);
    if (!c) {
      why = "the bias (the Add's other input) is not constant";
      continue;
    }
    if (!single_use(y)) {
      why = "the MatMul output has a second consumer";
      continue;
    }
    if (rc.rank(mm->inputs[0]) != 2 || rc.rank(mm->inputs[1]) != 2) {
      why = "the MatMul is not 2-D by 2-D";
      continue;
    }
    const Tensor* bt = const_tensor(m, mm->inputs[1]);
    int64_t n = -1;
    if (bt) n = bt->dims[1];
    else if (mm->inputs[1]->type && mm->inputs[1]->type->dims.size == 2 && mm->inputs[1]->type->dims[1].has_value)
      n = mm->inputs[1]->type->dims[1].value;
    if (!is_float_type(c->data_type) && c->data_type != kInt32 && c->data_type != kInt64) {
      why = "the bias type is not float, int32 or int64";
      continue;
    }
    bool ok = c->numel() == 1 && c->dims.size <= 2;
    if (!ok && n > 0) ok = (c->dims.size == 1 && c->dims[0] == n) || (c->dims.size == 2 && c->dims[0] == 1 && c->dims[1] == n);
    if (!ok) {
      why = "the bias does not broadcast to [M, N] unchanged";
      continue;
    }
    return RuleMatch::rewrite("MatMul + Add -> Gemm", [g, add, mm, k](PassContext& ctx) -> int64_t {
      Model& m = ctx.m;
      Node* gemm = new_node(g, m.intern("Gemm"), kNoStr, 3, 1);
      gemm->name = node_name(m, mm, "_gemm");
      insert_before(add, gemm);
      ++ctx.added;
      set_input(gemm, 0, mm->inputs[0]);
      set_input(gemm, 1, mm->inputs[1]);
      set_input(gemm, 2, add->inputs[1 - k]);
      Value* out = add->outputs[0];
      drop(ctx, add);
      drop(ctx, mm);
      take_output(gemm, 0, out);
      return 1;
    });
  }
  return RuleMatch::decline(why);
}

}  // namespace

OFG_RULE_GROUP(fuse_matmul_add_rules,
  {"matmul_add_to_gemm", {"Add"}, "", 7, kNoOpsetLimit, match_matmul_add, "Gemm with a broadcast bias"});

}  // namespace ofg::passes
