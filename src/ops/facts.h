// What the rest of the library may know about an op without running it: the typed facts an op
// family sets on its registration line (ops/registry.h), next to the op's kernel and type rule.
// Fusion, the fused elementwise run, verify's input tracing, the shape memo and the passes read
// these instead of keeping their own lists of op names.
#pragma once
#include <cstdint>

namespace ofg {
class Model;
struct Node;
}  // namespace ofg

namespace ofg::kernels {
// The kernels' op ids (kernels/kernels.h), declared here so that asking what an op is needs no
// kernel header.
enum class UnaryOp;
enum class BinaryOp;
}  // namespace ofg::kernels

namespace ofg::ops {

// What passes may assume about an op (bits of OpFacts::traits).
enum OpTrait : uint32_t {
  kRandom = 1u << 0,             // draws random numbers: never folded, never merged
  kRandomInTraining = 1u << 1,   // random only in training mode (Dropout): never merged
  kMayGrow = 1u << 2,            // its output may be much larger than its inputs
  kCommutative = 1u << 3,        // a two-input op whose inputs may be swapped
  kShapeOnly = 1u << 4,          // its output depends on its input's shape only (Shape, Size)
  kNoRule = 1u << 5,             // declared without a type/shape rule (tests check every other has one)
};

// How an op computes each output element from the input elements at the same place.
enum class Elementwise : uint8_t {
  None,
  Unary,       // y = f(x, alpha, beta) with a unary kernel on float32
  Binary,      // y = f(a, b) broadcast, with a binary kernel on float32
  Comparison,  // bool y = a <cmp> b broadcast
};

// The double reference of an elementwise op: what its float32 kernel approximates.
using UnaryRef = double (*)(double x, double alpha, double beta);
using BinaryRef = double (*)(double a, double b);
// The kernel parameters of a unary op read from a node's attributes (the chain's fused run and the
// op's kernel call take the same); false when the node's values decide them (Clip's inputs).
using UnaryParams = bool (*)(const Model& m, const Node& n, float& alpha, float& beta);

// How an activation may join a Conv / BatchNormalization chain of the interpreter (exec/fusion.h).
enum class FusableAct : uint8_t {
  No,
  Plain,           // one input
  ConstantBounds,  // Clip: its optional bound inputs must be constants
};

struct OpFacts {
  uint32_t traits = 0;  // OpTrait bits
  Elementwise elementwise = Elementwise::None;
  // Unary / Binary: the float32 kernel (valid when has_kernel) and the double reference.
  bool has_kernel = false;
  // Unary ops only: the node's float32 kernel call is the kernel with these parameters, so the op
  // may run inside an elementwise chain (exec/fused_elementwise.cpp). Null params: alpha = beta = 0.
  bool chainable = false;
  kernels::UnaryOp unary_kernel{};
  kernels::BinaryOp binary_kernel{};
  UnaryRef unary_ref = nullptr;
  BinaryRef binary_ref = nullptr;
  UnaryParams unary_params = nullptr;
  FusableAct fusable_act = FusableAct::No;
  // The input whose values output 0 holds unchanged (possibly reshaped or in another element
  // type): verify follows a graph input through it. -1: none.
  int8_t passes_input = -1;
};

}  // namespace ofg::ops
