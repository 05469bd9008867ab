// Attributes that became inputs (and back): Squeeze/Unsqueeze/ReduceSum axes (13), the other
// Reduce* axes (18), Split's split (13) and num_outputs (18), Pad pads/value (11), Clip min/max
// (11), Slice starts/ends/axes (10), TopK k (10), Dropout ratio (12).
// Going up always works; going down needs the input to be a constant (an initializer or a
// Constant node), which real exports nearly always have.
#include <string>
#include <vector>

#include "convert/adapter.h"
#include "ir/attributes.h"
#include "ir/graph_ops.h"

namespace ofg::convert {
namespace {

// ints attribute `name` -> int64 input `index` (an absent attribute leaves the input empty).
const char* ints_up(AdaptCtx& c, const char* name, uint32_t index, bool scalar = false) {
  std::vector<int64_t> v;
  if (scalar) {
    // TopK: k is an int attribute, the input a 1-element tensor.
    const Attribute* a = attr(c.m, c.n, name);
    if (!a) return nullptr;
    v = {a->int_or(0)};
  } else if (!attr_ints(c.m, c.n, name, v)) {
    return nullptr;
  }
  remove_attribute(c.n, c.m.intern(name));
  put_input(c.n, index, int_const(c.m, c.n, name, v));
  c.what = "attribute -> input";
  return nullptr;
}

// Constant int64 input `index` -> ints attribute `name` (absent input: no attribute).
const char* ints_down(AdaptCtx& c, const char* name, uint32_t index, bool scalar = false) {
  if (!has_input(c.n, index)) return nullptr;
  std::vector<int64_t> v;
  if (!const_ints(c.m, c.n->inputs[index], v))
    return "the input is not a constant, so it cannot become an attribute";
  if (scalar) {
    if (v.size() != 1) return "the input must hold one value";
    set_attr_int(c.m, c.n, name, v[0]);
  } else {
    set_attr_ints(c.m, c.n, name, v);
  }
  truncate_inputs(c.n, index);
  c.what = "input -> attribute";
  return nullptr;
}

const char* axes_up(AdaptCtx& c) { return ints_up(c, "axes", 1); }
const char* axes_down(AdaptCtx& c) { return ints_down(c, "axes", 1); }

// Reduce*: the newer signature adds noop_with_empty_axes; without axes the older ops reduce all.
const char* reduce_down(AdaptCtx& c) {
  bool noop = attr_int(c.m, c.n, "noop_with_empty_axes", 0) != 0;
  std::vector<int64_t> axes;
  if (noop && (!has_input(c.n, 1) || (const_ints(c.m, c.n->inputs[1], axes) && axes.empty())))
    return "noop_with_empty_axes=1 with empty axes has no older form";
  const char* r = axes_down(c);
  if (!r) remove_attribute(c.n, c.m.intern("noop_with_empty_axes"));
  return r;
}

const char* split_up13(AdaptCtx& c) { return ints_up(c, "split", 1); }
const char* split_down13(AdaptCtx& c) { return ints_down(c, "split", 1); }

// Split 18: without a split input the number of outputs must be given as num_outputs.
const char* split_up18(AdaptCtx& c) {
  if (has_input(c.n, 1)) return nullptr;
  set_attr_int(c.m, c.n, "num_outputs", c.n->outputs.size);
  c.what = "num_outputs added";
  return nullptr;
}
// num_outputs allows a shorter last part; the older Split needs equal parts, or explicit sizes.
const char* split_down18(AdaptCtx& c) {
  const Attribute* a = attr(c.m, c.n, "num_outputs");
  if (!a) return nullptr;
  int64_t parts = a->int_or(0);
  int64_t axis = attr_int(c.m, c.n, "axis", 0);
  const Value* x = c.n->inputs[0];
  if (x && x->type && x->type->shape_known()) {
    int r = x->type->rank();
    int64_t ax = axis < 0 ? axis + r : axis;
    if (ax >= 0 && ax < r && x->type->dims[ax].is_static() && parts > 0) {
      int64_t d = x->type->dims[ax].value, chunk = (d + parts - 1) / parts;
      if (d % parts != 0) {
        std::vector<int64_t> sizes;
        for (int64_t left = d; left > 0; left -= chunk) sizes.push_back(left < chunk ? left : chunk);
        put_input(c.n, 1, int_const(c.m, c.n, "split", sizes));
        remove_attribute(c.n, c.m.intern("num_outputs"));
        c.what = "num_outputs -> split sizes";
        return nullptr;
      }
    }
  }
  // Equal parts (or an unknown size: verification checks the result).
  remove_attribute(c.n, c.m.intern("num_outputs"));
  c.what = "num_outputs removed (equal parts)";
  return nullptr;
}

// Pad 11: pads and value become inputs 1 and 2; mode stays an attribute.
const char* pad_up(AdaptCtx& c) {
  std::vector<int64_t> pads;
  if (!attr_ints(c.m, c.n, "pads", pads)) return "Pad without pads";
  float value = attr_float(c.m, c.n, "value", 0.0f);
  int32_t dt = c.elem(c.n->inputs[0]);
  if (!dt) dt = kFloat;  // Pad before 11 takes float types only
  remove_attribute(c.n, c.m.intern("pads"));
  remove_attribute(c.n, c.m.intern("value"));
  put_input(c.n, 1, int_const(c.m, c.n, "pads", pads));
  if (value != 0.0f) put_input(c.n, 2, float_const(c.m, c.n, "pad_value", dt, {value}, true));
  c.what = "pads/value attributes -> inputs 1, 2";
  return nullptr;
}
const char* pad_down(AdaptCtx& c) {
  std::vector<int64_t> pads;
  std::vector<double> value;
  if (has_input(c.n, 3)) return "axes input (Pad 18) has no older form";
  if (!const_ints(c.m, c.n->inputs[1], pads)) return "pads input is not a constant";
  if (has_input(c.n, 2) && (!const_doubles(c.m, c.n->inputs[2], value) || value.size() != 1))
    return "constant_value input is not a constant scalar";
  int32_t dt = c.elem(c.n->inputs[0]);
  if (dt && dt != kFloat && dt != kDouble && dt != kFloat16) return "older Pad takes float types only";
  set_attr_ints(c.m, c.n, "pads", pads);
  if (!value.empty() && value[0] != 0.0) set_attr_float(c.m, c.n, "value", static_cast<float>(value[0]));
  truncate_inputs(c.n, 1);
  c.what = "pads/value inputs -> attributes";
  return nullptr;
}

// Clip 11: min and max become inputs 1 and 2.
const char* clip_up(AdaptCtx& c) {
  const Attribute* lo = attr(c.m, c.n, "min");
  const Attribute* hi = attr(c.m, c.n, "max");
  int32_t dt = c.elem(c.n->inputs[0]);
  if (!dt) dt = kFloat;
  Value* vlo = lo ? float_const(c.m, c.n, "clip_min", dt, {lo->float_or(0)}, true) : nullptr;
  Value* vhi = hi ? float_const(c.m, c.n, "clip_max", dt, {hi->float_or(0)}, true) : nullptr;
  remove_attribute(c.n, c.m.intern("min"));
  remove_attribute(c.n, c.m.intern("max"));
  if (vlo) put_input(c.n, 1, vlo);
  if (vhi) put_input(c.n, 2, vhi);
  c.what = "min/max attributes -> inputs 1, 2";
  return nullptr;
}
const char* clip_down(AdaptCtx& c) {
  std::vector<double> lo, hi;
  if (has_input(c.n, 1) && (!const_doubles(c.m, c.n->inputs[1], lo) || lo.size() != 1)) return "min input is not a constant scalar";
  if (has_input(c.n, 2) && (!const_doubles(c.m, c.n->inputs[2], hi) || hi.size() != 1)) return "max input is not a constant scalar";
  int32_t dt = c.elem(c.n->inputs[0]);
  if (dt && dt != kFloat && dt != kDouble && dt != kFloat16) return "older Clip takes float types only";
  if (!lo.empty()) set_attr_float(c.m, c.n, "min", static_cast<float>(lo[0]));
  if (!hi.empty()) set_attr_float(c.m, c.n, "max", static_cast<float>(hi[0]));
  truncate_inputs(c.n, 1);
  c.what = "min/max inputs -> attributes";
  return nullptr;
}

// Slice 10: starts, ends, axes become inputs 1..3; input 4 (steps) is new.
const char* slice_up(AdaptCtx& c) {
  std::vector<int64_t> starts, ends, axes;
  if (!attr_ints(c.m, c.n, "starts", starts) || !attr_ints(c.m, c.n, "ends", ends)) return "Slice without starts/ends";
  bool has_axes = attr_ints(c.m, c.n, "axes", axes);
  for (const char* a : {"starts", "ends", "axes"}) remove_attribute(c.n, c.m.intern(a));
  put_input(c.n, 1, int_const(c.m, c.n, "starts", starts));
  put_input(c.n, 2, int_const(c.m, c.n, "ends", ends));
  if (has_axes) put_input(c.n, 3, int_const(c.m, c.n, "axes", axes));
  c.what = "starts/ends/axes attributes -> inputs 1..3";
  return nullptr;
}
const char* slice_down(AdaptCtx& c) {
  std::vector<int64_t> starts, ends, axes, steps;
  if (!const_ints(c.m, c.n->inputs[1], starts) || !const_ints(c.m, c.n->inputs[2], ends))
    return "starts/ends inputs are not constants";
  if (has_input(c.n, 3) && !const_ints(c.m, c.n->inputs[3], axes)) return "axes input is not a constant";
  if (has_input(c.n, 4)) {
    if (!const_ints(c.m, c.n->inputs[4], steps)) return "steps input is not a constant";
    for (int64_t s : steps)
      if (s != 1) return "steps other than 1 have no older form";
  }
  set_attr_ints(c.m, c.n, "starts", starts);
  set_attr_ints(c.m, c.n, "ends", ends);
  if (has_input(c.n, 3)) set_attr_ints(c.m, c.n, "axes", axes);
  truncate_inputs(c.n, 1);
  c.what = "starts/ends/axes inputs -> attributes";
  return nullptr;
}

const char* topk_up(AdaptCtx& c) { return ints_up(c, "k", 1, true); }
const char* topk_down(AdaptCtx& c) { return ints_down(c, "k", 1, true); }

// Dropout 12: ratio becomes input 1 (and training_mode input 2 is new). At inference both are
// identity; the ratio is kept for fidelity.
const char* dropout_up(AdaptCtx& c) {
  const Attribute* a = attr(c.m, c.n, "ratio");
  if (!a) return nullptr;
  int32_t dt = c.elem(c.n->inputs[0]);
  Value* r = float_const(c.m, c.n, "ratio", dt == kDouble ? kDouble : kFloat, {a->float_or(0.5f)}, true);
  remove_attribute(c.n, c.m.intern("ratio"));
  put_input(c.n, 1, r);
  c.what = "ratio attribute -> input 1";
  return nullptr;
}
const char* dropout_down(AdaptCtx& c) {
  std::vector<int64_t> training;
  std::vector<double> ratio;
  if (has_input(c.n, 2) && (!const_ints(c.m, c.n->inputs[2], training) || training.size() != 1 || training[0] != 0))
    return "training_mode input is not a constant false";
  if (has_input(c.n, 1) && (!const_doubles(c.m, c.n->inputs[1], ratio) || ratio.size() != 1))
    return "ratio input is not a constant scalar";
  if (!ratio.empty()) set_attr_float(c.m, c.n, "ratio", static_cast<float>(ratio[0]));
  truncate_inputs(c.n, 1);
  c.what = "ratio input -> attribute";
  return nullptr;
}

}  // namespace

void add_axes_adapters(std::vector<Adapter>& out) {
  const char* axes_change = "axes attribute became input 1";
  out.push_back({"Squeeze", 13, axes_up, axes_down, axes_change});
  out.push_back({"Unsqueeze", 13, axes_up, axes_down, axes_change});
  out.push_back({"ReduceSum", 13, axes_up, reduce_down, axes_change});
  for (const char* op : {"ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
                         "ReduceLogSumExp", "ReduceSumSquare"})
    out.push_back({op, 18, axes_up, reduce_down, axes_change});
  out.push_back({"Split", 13, split_up13, split_down13, "split attribute became input 1"});
  out.push_back({"Split", 18, split_up18, split_down18, "num_outputs attribute added (uneven last part)"});
  out.push_back({"Pad", 11, pad_up, pad_down, "pads/value attributes became inputs 1, 2"});
  out.push_back({"Clip", 11, clip_up, clip_down, "min/max attributes became inputs 1, 2"});
  out.push_back({"Slice", 10, slice_up, slice_down, "starts/ends/axes attributes became inputs, steps added"});
  out.push_back({"TopK", 10, topk_up, topk_down, "k attribute became input 1"});
  out.push_back({"Dropout", 12, dropout_up, dropout_down, "ratio attribute became input 1, training_mode added"});
}

}  // namespace ofg::convert
