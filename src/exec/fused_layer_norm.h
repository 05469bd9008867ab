// The fused run of a layer norm written out node by node (exec/fusion.h, FusedChain::layer_norm).
#pragma once
#include <functional>

#include "exec/fusion.h"
#include "exec/tensor.h"

namespace ofg::exec {

// Computes chain c into out (the shape of its input) with the bits its nodes give one by one;
// value(v) is the value a node reads for v. False, with nothing computed, when the values are not
// what the fused run takes (an input other than float32 or empty, a mean over another axis than
// the last, a constant of another size than one element, or D for gamma and beta): the nodes then
// run one by one.
bool run_layer_norm_chain(const Model& m, const FusedChain& c, const std::function<const RValue*(const Value*)>& value,
                          RTensor& out);

}  // namespace ofg::exec
