// The pieces of Conv, BatchNormalization and the activation ops that the interpreter's plan-time
// fusions (exec/fusion.h) run for a chain of those nodes, so that a fused chain computes with the
// very code the separate ops use.
#pragma once
#include <functional>
#include <vector>

#include "exec/interp.h"
#include "kernels/kernels.h"

namespace ofg::exec {

// Conv on the node of c (its checks, errors and kernels). make_post(C_out) is called once the
// inputs are validated, just before the kernel runs; the ConvPost it returns (or null) is done by
// the kernel after the bias.
void run_conv(OpCtx& c, const std::function<const kernels::ConvPost*(int64_t)>& make_post);

// BatchNormalization's per-channel factors for C channels from the node of c (inputs 1..4:
// scale, B, mean, var; epsilon): y = x * a[ch] + b[ch] with two roundings. Validates the inputs as
// the op does (errors name c's node).
void batchnorm_factors(const OpCtx& c, int64_t C, std::vector<float>& a, std::vector<float>& b);

// The unary kernel and its float parameters that the activation node of c computes for a float
// input (Relu, LeakyRelu, Clip of any opset, Sigmoid, HardSigmoid, HardSwish, Tanh); false for
// any other op. Reads Clip's bounds from inputs 1 and 2 (input 0 is not needed).
bool activation_kernel(const OpCtx& c, kernels::UnaryOp& op, float& alpha, float& beta);

// The sums of `rows` contiguous rows of `count` floats (of their squares with `squares`), each in
// element order in double, added to acc[row]: ReduceSum / ReduceMean over trailing axes, and the
// fused layer norm that must reproduce them.
void row_sums_f64(const float* x, int64_t rows, int64_t count, bool squares, double* acc);

}  // namespace ofg::exec
