// Plan-time fusion of the interpreter: chains of nodes that run as one kernel call with results
// bit-identical to running the nodes one by one. The model is not changed; the values inside a
// chain are simply never stored. A chain is
//   Conv -> [BatchNormalization] -> [activation | x * activation(x)]   (at least two nodes; the
//   activations are the ops with a fusable-activation fact)
//   BatchNormalization -> activation | x * activation(x)
//   activation -> Mul(x, activation(x)) (x * Sigmoid(x) = SiLU, x * HardSigmoid(x) = HardSwish)
//   elementwise nodes (the registry's chainable elementwise facts, ops/facts.h: Add, Sub, Mul, Div,
//   Pow and the unary ops whose float path is a vector kernel) whose
//   inputs are one source value, constants and the outputs of earlier nodes of the chain (GELU
//   written out as Mul, Add, Tanh or Div, Erf; a bias Add before it)
//   MatMul -> such an elementwise chain over its output (the bias Add, GELU after it)
//   layer norm written out: ReduceMean(x) -> Sub(x, mean) -> Pow(d, c) -> ReduceMean -> Add eps
//   -> Sqrt -> Div(d, sd) [-> Mul gamma [-> Add beta]], both means over one axis with keepdims,
//   c, eps, gamma and beta constants (exec/fused_layer_norm.cpp)
// where every value inside has only the chain's next node as consumer (the gate's x: the
// activation and the Mul), is not a graph output and is not read by a subgraph; the
// BatchNormalization is in inference mode with constant scale, B, mean and var; Clip's bounds are
// constant (initializers or Constant nodes). Whether the tensors are float32 is checked when the chain runs (else its nodes run one
// by one).
#pragma once
#include <vector>

#include "ir/ir.h"

namespace ofg::exec {

struct FusedChain {
  Node* conv = nullptr;  // the first node when set
  Node* bn = nullptr;    // the first node when conv is null
  Node* act = nullptr;   // the first node when conv and bn are null
  Node* gate = nullptr;  // the Mul of x * act(x)
  bool act_first = false;  // the gate is Mul(act(x), x)
  // An elementwise chain when set: the one input of its nodes that is neither a constant nor a
  // value of the chain (exec/fused_elementwise.cpp).
  const Value* source = nullptr;
  Node* matmul = nullptr;  // the first node of an elementwise chain over its output, when set
  bool layer_norm = false;  // nodes are the 7 to 9 of the layer norm pattern, in its order
  std::vector<Node*> nodes;  // in graph order; the last one's output is the chain's result
  Node* head() const { return nodes.front(); }
};

// The chains of g, a node in at most one; order is g's nodes in execution order.
std::vector<FusedChain> find_chains(const Model& m, Graph* g, const std::vector<Node*>& order);

}  // namespace ofg::exec
