// Running a plan-time chain (exec/fusion.h) as one call: a Conv whose kernel does the
// BatchNormalization and activation after its bias (kernels::ConvPost), one pass of those steps
// over a BatchNormalization's or activation's input, an elementwise chain in blocks
// (exec/fused_elementwise.cpp), after a MatMul in place over its output, or a layer norm written
// out (exec/fused_layer_norm.cpp). The ops' own code computes everything (their
// checks, factors and kernels), so results and error messages are those of the nodes run one by
// one.
#include <string>

#include "exec/fused_elementwise.h"
#include "exec/fused_layer_norm.h"
#include "exec/interp.h"
#include "exec/ops/fusable.h"

namespace ofg::exec {
namespace {

bool is_f32(const RValue* v) { return v && v->kind == RValue::kTensor && v->t.dtype == kFloat; }

// The inputs a fused run reads as float32 (Clip's bounds may be of any type): else the nodes run
// one by one, with the ops' promotion of other types. in(n, i): input i of node n, or null.
template <class In>
bool all_float(const FusedChain& c, In&& in) {
  const Node* head = c.head();
  if (!is_f32(in(head, 0))) return false;
  if (c.conv && (!is_f32(in(c.conv, 1)) || (c.conv->inputs.size > 2 && c.conv->inputs[2] && !is_f32(in(c.conv, 2)))))
    return false;
  if (c.bn)
    for (uint32_t i = 1; i < 5; ++i)
      if (!is_f32(in(c.bn, i))) return false;
  return true;
}

}  // namespace

void Interpreter::run_chain(const FusedChain& c, Frame& f) {
  auto in = [&](const Node* n, uint32_t i) { return i < n->inputs.size && n->inputs[i] ? value_of(n->inputs[i], f) : nullptr; };
  // The context of a node of the chain: its values that exist (the chain's inner values do not).
  auto ctx = [&](Node* n) {
    OpCtx x{*this, m_, *n, m_.opset_version(m_.str(n->domain)), {}, {}, &f};
    for (uint32_t i = 0; i < n->inputs.size; ++i) x.in.push_back(in(n, i));
    x.out.resize(n->outputs.size);
    return x;
  };
  // Called in a handler, as exec_node: errors from below the ops' checks get the name of the
  // chain's first node; those of a node's own checks already name it.
  auto rethrow = [&](const Error& err) {
    for (Node* n : c.nodes) {
      const std::string at = ctx(n).where();
      if (std::string_view(err.what()).substr(0, at.size()) == at) throw;
    }
    fail(err.status(), ctx(c.head()).where() + ": " + err.what());
  };
  auto finish = [&](RValue out) {
    store(c.nodes.back()->outputs[0], std::move(out), f);
    stats_.peak_live_bytes = std::max(stats_.peak_live_bytes, live_bytes_);
    stats_.nodes_run += c.nodes.size();
    ++stats_.fused_chains;
  };
  RTensor computed;  // the result of an elementwise or layer norm chain
  auto value = [&](const Value* v) { return value_of(v, f); };
  bool fused = false;
  try {
    // A MatMul's chain is checked once the MatMul ran (its output is the source).
    fused = c.matmul       ? is_f32(in(c.matmul, 0)) && is_f32(in(c.matmul, 1))
            : c.source     ? run_elementwise_chain(m_, c, value, computed)
            : c.layer_norm ? run_layer_norm_chain(m_, c, value, computed)
                           : all_float(c, in);
  } catch (const Error& err) {
    rethrow(err);
  }
  if (!fused) {
    for (Node* n : c.nodes) exec_node(n, f);
    return;
  }
  if (!c.matmul && (c.source || c.layer_norm)) return finish(RValue::tensor(std::move(computed)));
  kernels::ConvPost post;
  post.table = &kernels::active_table();  // the separate ops' table
  std::vector<float> scale, shift;
  // The BatchNormalization factors for C channels and the activation, read through their nodes.
  auto make_post = [&](int64_t C) -> const kernels::ConvPost* {
    if (c.bn) {
      batchnorm_factors(ctx(c.bn), C, scale, shift);
      post.scale = scale.data();
      post.shift = shift.data();
    }
    if (c.act) {
      post.act = activation_kernel(ctx(c.act), post.op, post.alpha, post.beta);
      if (!post.act) ctx(c.act).error("is not an activation the interpreter fuses");
      post.gate = !c.gate ? kernels::ConvPost::Gate::None
                  : c.act_first ? kernels::ConvPost::Gate::ActTimesX
                                : kernels::ConvPost::Gate::XTimesAct;
    }
    return &post;
  };
  OpCtx head = ctx(c.head());
  head.place_as = c.nodes.back()->outputs[0];  // the conv's output is the chain's result
  RValue out;
  try {
    if (c.matmul) {
      // The MatMul as its op computes it, then the chain in place over its output; when the
      // chain's constants do not fit, its nodes one by one over the stored output.
      int64_t opset = 0;
      const OpEntry* e = op_entry(c.matmul, opset);
      if (!e) head.error("has no kernel");
      e->fn(head);
      RValue y = std::move(head.out[0]);
      ++stats_.nodes_run;
      if (y.kind != RValue::kTensor || y.t.dtype != kFloat ||
          !run_elementwise_chain(m_, c, [&](const Value* v) { return v == c.source ? &y : value_of(v, f); }, computed, true)) {
        store(c.matmul->outputs[0], std::move(y), f);
        for (size_t k = 1; k < c.nodes.size(); ++k) exec_node(c.nodes[k], f);
        return;
      }
      --stats_.nodes_run;  // counted with the chain's below
      out = RValue::tensor(std::move(computed));
    } else if (c.conv) {
      run_conv(head, make_post);
      out = std::move(head.out[0]);
    } else {
      // BatchNormalization's or the activation's input, in planes of one channel each.
      const RTensor& x = head.t(0);
      int64_t N = 1, C = 1;  // an activation's input is one plane
      if (c.bn) {
        head.require(x.rank() >= 1, "X must have rank >= 1");
        N = x.shape[0];
        C = x.rank() > 1 ? x.shape[1] : 1;
      }
      make_post(C);
      RTensor y = RTensor::alloc_uninit(kFloat, x.shape);  // every element is written below
      const int64_t plane = (N != 0 && C != 0) ? x.numel() / (N * C) : 0;
      const kernels::KernelTable& kt = kernels::active_table();
      // Planes are split between threads (DenseNet's pre-activation BatchNormalization + Relu
      // over each Concat); each plane is computed as on one thread.
      if (plane > 0)
        kernels::parallel_ranges(static_cast<size_t>(N * C), 1, kernels::plane_grain(static_cast<size_t>(plane)),
                                 [&](size_t lo, size_t hi) {
                                   for (size_t i = lo; i < hi; ++i)
                                     kernels::apply_conv_post(kt, post, i % static_cast<size_t>(C),
                                                              x.data<float>() + i * plane, y.data<float>() + i * plane,
                                                              static_cast<size_t>(plane));
                                 });
      out = RValue::tensor(std::move(y));
    }
  } catch (const Error& err) {
    rethrow(err);
  }
  finish(std::move(out));
}

}  // namespace ofg::exec
