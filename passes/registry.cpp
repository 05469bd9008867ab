// The list of passes. Explicit (no static self-registration) so that linking the static archive
// never drops a pass, and the order here is the default pipeline's order.
#include <chrono>

#include "ir/provenance.h"
#include "passes/pass.h"
#include "passes/rule.h"
#include "exec/infer_types.h"
#include "ir/graph_ops.h"

namespace ofg::passes {

void run_constants_to_initializers(PassContext&);
extern const RuleGroup eliminate_identity_ops_rules;
void run_simplify_shape_chains(PassContext&);
void run_fold_constants(PassContext&);
extern const RuleGroup inline_constant_if_rules;
void run_eliminate_dead_nodes(PassContext&);
void run_eliminate_unused_initializers(PassContext&);
void run_eliminate_duplicate_constants(PassContext&);
void run_eliminate_common_subexpressions(PassContext&);
extern const RuleGroup eliminate_redundant_transposes_rules;
extern const RuleGroup collapse_reshape_chains_rules;
extern const RuleGroup fold_reciprocal_mul_rules;
extern const RuleGroup fold_weight_transposes_rules;
extern const RuleGroup fuse_pad_into_conv_rules;
extern const RuleGroup fuse_conv_batchnorm_rules;
extern const RuleGroup fuse_conv_add_mul_rules;
extern const RuleGroup fuse_matmul_add_rules;
extern const RuleGroup fuse_rotary_embedding_rules;
extern const RuleGroup fuse_layer_norm_rules;
extern const RuleGroup fuse_gelu_rules;
extern const RuleGroup fuse_swish_rules;
extern const RuleGroup cleanup_attention_rules;
extern const RuleGroup fuse_attention_rules;
extern const RuleGroup fuse_conv_relu_rules;
extern const RuleGroup fold_scales_into_matmul_rules;
extern const RuleGroup merge_parallel_matmuls_rules;

const std::vector<PassInfo>& registry() {
  static const std::vector<PassInfo> passes = {
    {"constants_to_initializers", "turns Constant nodes holding a tensor into initializers", kExact, true,
     run_constants_to_initializers},
    {"simplify_shape_chains", "replaces Shape arithmetic by constants where inference proves the dims, keeps symbolic dims dynamic",
     kVerified, true, run_simplify_shape_chains},
    {"fold_constants", "evaluates deterministic nodes whose inputs are all constant, within a size budget", kFloatBounded,
     true, run_fold_constants},
    {"inline_constant_if", "replaces an If whose condition is constant by the nodes of the branch it takes", kExact, true,
     nullptr, &inline_constant_if_rules},
    {"eliminate_identity_ops", "removes Identity, inference Dropout, same-type Cast, identity Transpose, zero Pad, x*1, x+0, x-0, x/1",
     kExact, true, nullptr, &eliminate_identity_ops_rules},
    {"eliminate_dead_nodes", "removes nodes whose outputs nobody reads", kExact, true, run_eliminate_dead_nodes},
    {"eliminate_duplicate_constants", "merges initializers and Constant nodes with equal type, shape and bytes",
     kExact, true, run_eliminate_duplicate_constants},
    {"eliminate_common_subexpressions", "merges deterministic nodes with the same op, inputs and attributes",
     kExact, true, run_eliminate_common_subexpressions},
    {"eliminate_redundant_transposes", "cancels inverse Transpose pairs, merges chains, pre-transposes constants",
     kExact, true, nullptr, &eliminate_redundant_transposes_rules},
    {"collapse_reshape_chains", "turns Reshape/Flatten/Squeeze/Unsqueeze chains ending in a Reshape into one Reshape, merges Squeeze and Unsqueeze chains, moves a Squeeze of a sliced constant onto the constant",
     kExact, true, nullptr, &collapse_reshape_chains_rules},
    {"fold_reciprocal_mul", "turns x * (1 / y) into x / y (float tensors)", kFloatBounded, true, nullptr,
     &fold_reciprocal_mul_rules},
    {"fold_weight_transposes", "moves a Transpose feeding Gemm into transA/transB", kExact, true,
     nullptr, &fold_weight_transposes_rules},
    {"fuse_pad_into_conv", "folds a zero constant Pad into the pads of the Conv it feeds", kExact, true,
     nullptr, &fuse_pad_into_conv_rules},
    {"fuse_conv_batchnorm", "folds inference BatchNormalization into the weights and bias of Conv/ConvTranspose",
     kFloatBounded, true, nullptr, &fuse_conv_batchnorm_rules},
    {"fuse_conv_add_mul", "folds a per-channel constant Add/Mul after Conv into its bias and weights",
     kFloatBounded, true, nullptr, &fuse_conv_add_mul_rules},
    {"fuse_matmul_add", "turns MatMul with a 2-D input plus a broadcastable constant bias into Gemm", kFloatBounded,
     true, nullptr, &fuse_matmul_add_rules},
    {"fuse_rotary_embedding", "turns rotary embeddings (rotate_half or rotate_every_two, cos/sin gathered by position ids) into RotaryEmbedding (opset >= 23); below 23, rotate_half(x) * sin into Gather(x) * (sin * sign)",
     kVerified, true, nullptr, &fuse_rotary_embedding_rules},
    {"fuse_layer_norm", "turns the decomposed layer norm into LayerNormalization (opset >= 17), the RMS norm into RMSNormalization (>= 23)",
     kVerified, true, nullptr, &fuse_layer_norm_rules},
    {"fuse_gelu", "turns the erf form of GELU into Gelu (opset >= 20)", kVerified, true, nullptr, &fuse_gelu_rules},
    {"fuse_swish", "turns x * Sigmoid(x) (SiLU) into Swish (opset >= 24)", kVerified, true, nullptr, &fuse_swish_rules},
    {"cleanup_attention", "removes Reshape/Expand steps that inference proves keep the shape (attention head plumbing), turns repeat_kv (Unsqueeze/Expand/Reshape) into one Gather",
     kVerified, true, nullptr, &cleanup_attention_rules},
    {"fuse_attention", "turns MatMul/scale/mask/Softmax/MatMul attention (grouped-query, KV cache) into Attention (opset >= 23)",
     kVerified, true, nullptr, &fuse_attention_rules},
    {"fold_scales_into_matmul", "moves a constant scale of the last axis before MatMuls into their weights (a norm's weight), and a scalar Mul/Div after values linear in constants (attention's 1/sqrt(d)) into those constants",
     kFloatBounded, true, nullptr, &fold_scales_into_matmul_rules},
    {"merge_parallel_matmuls", "joins MatMuls of one input with constant weights (Q/K/V, gate/up), and their constant biases, into one MatMul (+ Add) + Split",
     kFloatBounded, true, nullptr, &merge_parallel_matmuls_rules},
    {"eliminate_unused_initializers", "removes initializers nobody reads", kExact, true,
     run_eliminate_unused_initializers},
    {"fuse_conv_relu", "opt-in: Conv -> Relu becomes ai.onnxforge.FusedConv(activation=Relu), run by our interpreter",
     kVerified, false, nullptr, &fuse_conv_relu_rules},
  };
  return passes;
}

const PassInfo* find_pass(std::string_view name) {
  for (const PassInfo& p : registry())
    if (name == p.name) return &p;
  return nullptr;
}

int64_t count_nodes(Model& m) {
  int64_t n = 0;
  for_each_graph(m.graph, [&](Graph* g) { n += g->node_count; });
  return n;
}

uint64_t initializer_bytes(Model& m) {
  uint64_t b = 0;
  for_each_graph(m.graph, [&](Graph* g) {
    for (Value* v : g->initializers)
      if (v->initializer) b += v->initializer->data.size;
  });
  return b;
}

namespace {
// count_nodes and initializer_bytes in one walk: run_pass needs both before and after every pass,
// and each walk visits every attribute of every node looking for subgraphs.
void totals(Model& m, int64_t& nodes, uint64_t& bytes) {
  nodes = 0;
  bytes = 0;
  for_each_graph(m.graph, [&](Graph* g) {
    nodes += g->node_count;
    for (Value* v : g->initializers)
      if (v->initializer) bytes += v->initializer->data.size;
  });
}
}  // namespace

TypeCache::TypeCache() = default;
TypeCache::~TypeCache() = default;

const exec::TypeInference& TypeCache::get(Model& m) {
  if (!ti_) {
    ti_ = std::make_unique<exec::TypeInference>(m);
    ti_->run(false);
  }
  return *ti_;
}

void TypeCache::invalidate() { ti_.reset(); }

const exec::TypeInference& PassContext::inferred_types() { return (types ? *types : own_types_).get(m); }

PassStats run_pass(Model& m, const PassInfo& pass, const std::map<std::string, std::string>* options,
                   TypeCache* types, RuleIndex* index, RewriteBudget* budget, std::vector<Decline>* declines) {
  PassStats s;
  totals(m, s.nodes_before, s.bytes_before);
  // A whole-graph pass cannot stop between its edits: under a budget it runs only while some is
  // left and counts as one rewrite when it changes anything.
  if (budget && !pass.rules && budget->spent()) {
    s.nodes_after = s.nodes_before;
    s.bytes_after = s.bytes_before;
    return s;
  }
  auto t0 = std::chrono::steady_clock::now();
  seed_provenance(m);  // origins are counted from the model as the first pass finds it
  PassContext ctx(m);
  ctx.options = options;
  ctx.types = types;
  ctx.index = index;
  ctx.budget = budget;
  ctx.declines = declines;
  ctx.pass_name = pass.name;
  if (pass.rules) run_rules(ctx, *pass.rules);
  else pass.run(ctx);
  s.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  s.changes = ctx.changes;
  s.nodes_removed = ctx.removed;
  s.nodes_added = ctx.added;
  totals(m, s.nodes_after, s.bytes_after);
  // A pass that rewires a node inside an If/Loop/Scan body to read another outer value (bypass
  // of an Identity or Reshape whose output a branch reads) leaves Graph::captures naming the old
  // value; the interpreter's liveness plan and topological_sort read captures, so the new value
  // would be freed before the subgraph runs. Recompute them after any change.
  if (s.changes != 0 || s.nodes_after != s.nodes_before || s.bytes_after != s.bytes_before) recompute_captures(m.graph);
  // The node and byte counts also catch an edit a pass made without counting it as a change.
  bool changed = s.changes != 0 || s.nodes_after != s.nodes_before || s.bytes_after != s.bytes_before;
  if (types && changed) types->invalidate();
  if (index && changed) index->invalidate();
  if (budget && !pass.rules && changed) {
    ++budget->used;
    if (budget->log) budget->records.push_back({pass.name, "", "", "", std::to_string(s.changes) + " changes"});
  }
  return s;
}

}  // namespace ofg::passes
