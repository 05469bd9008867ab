// Helpers of the plan-time fusion tests (exec/fusion.h): deterministic data, a model run with
// and without fusion, and the comparison of their outputs byte for byte.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "exec/fusion.h"
#include "exec/interp.h"
#include "ir/error.h"

namespace ofg::test {

using exec::ExecCache;
using exec::FusedChain;
using exec::Interpreter;
using exec::RTensor;
using exec::RunStats;
using exec::RValue;

// Deterministic values in [lo, hi) (a small LCG: the tests must not depend on a library's RNG).
inline std::vector<float> ramp(size_t n, uint32_t seed, float lo, float hi) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 1;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = lo + (hi - lo) * static_cast<float>(s >> 8) / 16777216.f;
  }
  return v;
}

struct Runs {
  std::vector<RValue> fused, plain;
  RunStats fused_stats, plain_stats;
  size_t chains = 0;
};

// Runs the model with and without plan fusions (one interpreter each, with a weight cache as the
// CLI has).
inline Runs run_both(Model& m, const std::vector<std::pair<std::string, RValue>>& inputs) {
  Runs r;
  ExecCache c1, c2;
  Interpreter fused(m, &c1), plain(m, &c2);
  plain.set_plan_fusion(false);
  r.chains = fused.planned_chains(m.graph);
  r.fused = fused.run(inputs);
  r.fused_stats = fused.stats();
  r.plain = plain.run(inputs);
  r.plain_stats = plain.stats();
  EXPECT_EQ(plain.planned_chains(m.graph), 0u);
  return r;
}

// Output by output, the same shapes and the same bytes.
inline void expect_same_bytes(const Runs& r) {
  ASSERT_EQ(r.fused.size(), r.plain.size());
  for (size_t i = 0; i < r.fused.size(); ++i) {
    const RTensor& a = r.fused[i].t;
    const RTensor& b = r.plain[i].t;
    ASSERT_EQ(a.dtype, b.dtype) << "output " << i;
    ASSERT_EQ(a.shape, b.shape) << "output " << i;
    if (std::memcmp(a.ptr, b.ptr, a.nbytes()) == 0) continue;
    // The first element that differs, as bits, for the failure message.
    size_t e = 0;
    while (e + 4 <= a.nbytes() && std::memcmp(a.ptr + e, b.ptr + e, 4) == 0) e += 4;
    uint32_t fa = 0, fb = 0;
    std::memcpy(&fa, a.ptr + e, std::min<size_t>(4, a.nbytes() - e));
    std::memcpy(&fb, b.ptr + e, std::min<size_t>(4, b.nbytes() - e));
    ADD_FAILURE() << "output " << i << " differs at element " << e / 4 << ": fused bits " << std::hex << fa
                  << ", node by node " << fb;
  }
  EXPECT_EQ(r.fused_stats.nodes_run, r.plain_stats.nodes_run);
}

// The op types of each chain the planner finds in m's main graph.
inline std::vector<std::vector<std::string>> chain_types(Model& m) {
  std::vector<Node*> order;
  for (Node* n = m.graph->first; n; n = n->next) order.push_back(n);
  std::vector<std::vector<std::string>> out;
  for (const FusedChain& c : exec::find_chains(m, m.graph, order)) {
    out.emplace_back();
    for (Node* n : c.nodes) out.back().emplace_back(m.str(n->op_type));
  }
  return out;
}

// The message of the error a run of m throws, with plan fusion on or off ("" when none).
inline std::string run_error(Model& m, bool fuse, const std::vector<std::pair<std::string, RValue>>& inputs) {
  Interpreter in(m);
  in.set_plan_fusion(fuse);
  try {
    in.run(inputs);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// m fails the same way fused and node by node.
inline void expect_same_error(Model& m, const std::vector<std::pair<std::string, RValue>>& inputs) {
  const std::string fused = run_error(m, true, inputs);
  EXPECT_FALSE(fused.empty());
  EXPECT_EQ(fused, run_error(m, false, inputs));
}

}  // namespace ofg::test
