// The fused run of an elementwise chain (exec/fusion.h, FusedChain::source set).
#pragma once
#include <functional>

#include "exec/fusion.h"
#include "exec/tensor.h"

namespace ofg::exec {

// The most nodes an elementwise chain holds (fusion.cpp stops there): one block buffer each.
constexpr size_t kMaxElementwiseNodes = 16;

// Computes chain c into out (the shape of the source) with the bits its nodes give one by one;
// value(v) is the value a node reads for v. False, with nothing computed, when the values are not
// what the fused run takes (a tensor other than float32, a constant other than one element or one
// row of the source's last dim): the nodes then run one by one. in_place: out is the source
// tensor, overwritten (the caller owns it alone: the output of the chain's MatMul).
bool run_elementwise_chain(const Model& m, const FusedChain& c, const std::function<const RValue*(const Value*)>& value,
                           RTensor& out, bool in_place = false);

}  // namespace ofg::exec
