// repeat_kv, the grouped-query step that gives each of the Hq query heads its kv head
// (kv head h serves query heads h*r .. h*r + r - 1, r = Hq / Hk), as exports write it:
//   Reshape(Expand(Unsqueeze(kv, axes=[2]), [B,Hk,r,T,D]), [B,Hk*r,T,D])
// and as `cleanup_attention` rewrites it: Gather(kv, [0,..0, 1,..1, ...], axis=1), one node and
// the same copy. fuse_attention reads K and V through either form.
#pragma once
#include <cstdint>

#include "exec/infer_types.h"
#include "passes/rule.h"

namespace ofg::passes {

// Two dims inference knows to be equal: the same static size or the same symbolic name.
bool same_dim(const exec::IDim& a, const exec::IDim& b);

// The Unsqueeze/Expand/Reshape form producing `rep` in g: the kv it repeats and r, or null.
// Matched on structure and inferred shapes, not on how the shape inputs are computed.
Value* expanded_repeat_source(const RuleCtx& rc, Graph* g, Value* rep, int64_t& r);

// Either form producing `rep` in g: the kv it repeats and r, or null.
Value* repeat_kv_source(const RuleCtx& rc, Graph* g, Value* rep, int64_t& r);

}  // namespace ofg::passes
