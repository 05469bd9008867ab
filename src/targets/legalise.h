// Legalisation for a target profile: after the pass pipeline, rewrites a model so that it uses
// only what a target accepts (profile.h), where an exact rewrite exists, and says what is left.
// Rewrites, chosen by what the profile allows:
//  - the default-domain opset moved into the profile's range (the opset conversion of
//    convert/opset_convert.h, which lowers fused ops the older opset lacks, or raises);
//  - fused ops the target does not accept (LayerNormalization, Gelu, RMSNormalization, Attention,
//    RotaryEmbedding, GroupNormalization, Mish, HardSwish, Swish) decomposed node by node with the
//    conversion's own lowerings, also when the opset has them;
//  - Gemm -> Transpose/MatMul/Mul/Add when the target lacks Gemm; 2-D MatMul -> Gemm when it
//    lacks MatMul;
//  - Flatten (axis 0 or 1) -> Reshape [1, -1] / [0, -1] when it lacks Flatten; Neg -> Mul by -1
//    (float types) when it lacks Neg; Not -> Equal(x, false) when it lacks Not.
//  - the fusing direction: when nodes are still illegal and the profile goes above the model's
//    opset, the model raised to the profile's top opset and optimized again (so the fusions make
//    Gelu, LayerNormalization, ... that the target takes in place of primitives it lacks), kept
//    only when it leaves fewer illegal nodes.
// Each family of rewrites is kept only when it lowers the number of illegal nodes (a
// decomposition into ops the target also lacks is undone). Verification by execution is the
// caller's (the C ABI verifies the result against the model before legalisation).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "targets/check.h"

namespace ofg::targets {

struct LegalRewrite {
  std::string node, op, what;
};

struct LegaliseResult {
  std::string target;
  int64_t opset_before = 0, opset_after = 0;
  size_t illegal_before = 0, illegal_after = 0;  // nodes with a finding (model-level finding not counted)
  std::vector<LegalRewrite> rewrites;
  std::vector<std::string> notes;  // rewrites tried and undone, an opset conversion that failed
  CheckResult after;               // what is still not legal
};

// Legalises *m for `p`. *m may be replaced by another model (a rewrite undone goes back to a
// snapshot that keeps the replaced model alive). Never fails for a rewrite that cannot be done:
// the node stays and is named in `after`.
LegaliseResult legalise(std::unique_ptr<Model>& m, const Profile& p);

// {"target", "opset_before", "opset_after", "illegal_before", "illegal_after", "legal",
//  "verified" (the caller's text), "rewrites": [{"node", "op", "what"}], "notes": [...],
//  "findings": [{"node", "op", "graph", "rule", "message"}]}.
std::string legalise_json(const LegaliseResult& r, const std::string& verified);

}  // namespace ofg::targets
