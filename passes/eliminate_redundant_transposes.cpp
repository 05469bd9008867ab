// eliminate_redundant_transposes: Transpose(Transpose(x, p1), p2) is Transpose(x, p1 then p2);
// when that is the identity both go (2 -> 0), otherwise one Transpose remains (a chain of 3 -> 1).
// A Transpose of a constant read by nobody else becomes a pre-transposed constant. Exact.
// The first Transpose is only absorbed when the second is its single reader (otherwise it stays
// for its other readers and nothing is gained).
#include "passes/rule.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {

bool get_perm(const RuleCtx& rc, Node* t, std::vector<int64_t>& perm) {
  if (attr_ints(rc.m, t, "perm", perm)) return true;
  // No perm: reverse the dimensions, which needs the rank.
  int r = rc.rank(t->inputs[0]);
  if (r < 0) return false;
  perm.resize(r);
  for (int i = 0; i < r; ++i) perm[i] = r - 1 - i;
  return true;
}

bool is_identity(const std::vector<int64_t>& p) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != static_cast<int64_t>(i)) return false;
  return true;
}

// What both rules check first; null when n qualifies, else why not.
const char* common(const RuleCtx& rc, Node* n, std::vector<int64_t>& p2) {
  if (n->inputs.size != 1 || !n->inputs[0] || !n->outputs[0]) return "Transpose without its input or output";
  if (read_by_custom(rc.m, n->outputs[0])) return "a custom-domain node reads the output";
  if (!get_perm(rc, n, p2)) return "no perm and unknown rank";
  return nullptr;
}

RuleMatch match_pair(const RuleCtx& rc, Graph* g, Node* n) {
  std::vector<int64_t> p2;
  if (const char* why = common(rc, n, p2)) return RuleMatch::decline(why);
  Value* in = n->inputs[0];
  Node* first = producer_if(rc.m, in, "Transpose", g);
  if (!first) return RuleMatch::decline("the input is not a Transpose");
  std::vector<int64_t> p1;
  if (!single_use(in) || !first->inputs[0] || !get_perm(rc, first, p1) || p1.size() != p2.size() ||
      !valid_perm(p1, p1.size()) || !valid_perm(p2, p2.size()))
    return RuleMatch::decline("the first Transpose has other readers or the perms do not compose");
  // out[i] = mid[p2[i]] = x[p1[p2[i]]]
  std::vector<int64_t> composed(p2.size());
  for (size_t i = 0; i < p2.size(); ++i) composed[i] = p1[p2[i]];
  Value* x = first->inputs[0];
  if (is_identity(composed)) {
    Value* out = n->outputs[0];
    if (out->is_graph_output()) return RuleMatch::decline("the pair cancels but its output is a graph output");
    return RuleMatch::rewrite("inverse Transpose pair removed", [n, first, out, x](PassContext& ctx) -> int64_t {
      replace_all_uses(out, x);
      drop(ctx, n);
      drop(ctx, first);
      return 1;
    });
  }
  return RuleMatch::rewrite("Transpose chain merged", [n, first, x, composed](PassContext& ctx) -> int64_t {
    set_input(n, 0, x);
    set_attr_ints(ctx.m, n, "perm", composed);
    drop(ctx, first);
    return 1;
  });
}

// Transpose of a constant that nobody else reads: store it transposed.
RuleMatch match_constant(const RuleCtx& rc, Graph* g, Node* n) {
  std::vector<int64_t> p2;
  if (const char* why = common(rc, n, p2)) return RuleMatch::decline(why);
  Value* in = n->inputs[0];
  if (producer_if(rc.m, in, "Transpose", g)) return RuleMatch::decline("the input is a Transpose (transpose_pair's case)");
  const Tensor* c = const_tensor(rc.m, in);
  if (!c || in->uses.size != 1 || in->is_graph_output() || n->outputs[0]->is_graph_output())
    return RuleMatch::decline("the input is not a constant read only here");
  return RuleMatch::rewrite("constant stored transposed", [g, n, in, c, p2](PassContext& ctx) -> int64_t {
    Model& m = ctx.m;
    Tensor* t = transpose_tensor(m, c, p2);
    if (!t) return 0;
    Value* folded = add_initializer(g, std::string(m.str(in->name)) + "_transposed", t);
    replace_all_uses(n->outputs[0], folded);
    drop(ctx, n);
    return 1;
  });
}

}  // namespace

OFG_RULE_GROUP(eliminate_redundant_transposes_rules,
  {"transpose_pair", {"Transpose"}, "", 1, kNoOpsetLimit, match_pair},
  {"transpose_of_constant", {"Transpose"}, "", 1, kNoOpsetLimit, match_constant});

}  // namespace ofg::passes
