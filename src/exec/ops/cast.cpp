// Element type conversions: Cast and CastLike (the value conversions themselves are
// exec/tensor's cast_tensor).
#include "exec/infer_rules.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

void op_cast(OpCtx& c) {
  int32_t to = static_cast<int32_t>(c.attr_i("to", 0));
  if (!is_supported_type(to)) fail(Status::kUnsupported, c.where() + ": cast to " + dtype_name(to) + " is not supported");
  c.set(0, cast_tensor(c.t(0), to));
}

void op_cast_like(OpCtx& c) { c.set(0, cast_tensor(c.t(0), c.t(1).dtype)); }

}  // namespace

namespace rules {

bool cast_to(InferCtx& c, int32_t to) {
  same_type(c);
  c.out[0].elem = to;
  if (c.data(0) && (to == kInt64 || to == kInt32)) c.out_contents[0] = *c.data(0);
  return true;
}

bool rule_cast(InferCtx& c) { return cast_to(c, static_cast<int32_t>(c.attr_i("to", 0))); }
bool rule_cast_like(InferCtx& c) { return cast_to(c, elem0(c, 1)); }

}  // namespace rules

void register_cast_ops(Registry& r) {
  r.add("Cast", op_cast, 1, 1 << 30, false).infer(rules::rule_cast).passes_input(0);
  r.add("CastLike", op_cast_like, 1, 1 << 30, false).infer(rules::rule_cast_like);
}

}  // namespace ofg::exec
