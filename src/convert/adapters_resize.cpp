// Upsample and Resize: Upsample's scales attribute became an input (9), Upsample became Resize
// (10), Resize gained roi, sizes and coordinate modes (11; its default half_pixel differs from the
// older asymmetric behaviour), optional roi (13), antialias/axes/keep_aspect_ratio_policy (18)
// and half_pixel_symmetric (19).
#include <string>
#include <vector>

#include "convert/adapter.h"
#include "ir/attributes.h"
#include "ir/graph_ops.h"

namespace ofg::convert {
namespace {

const char* upsample_up9(AdaptCtx& c) {
  std::vector<float> scales;
  if (!attr_floats(c.m, c.n, "scales", scales)) return "Upsample without scales";
  std::vector<double> d(scales.begin(), scales.end());
  remove_attribute(c.n, c.m.intern("scales"));
  put_input(c.n, 1, float_const(c.m, c.n, "scales", kFloat, d, false));
  c.what = "scales attribute -> input 1";
  return nullptr;
}
const char* upsample_down9(AdaptCtx& c) {
  std::vector<double> d;
  if (!const_doubles(c.m, c.n->inputs[1], d)) return "scales input is not a constant";
  StrId name = c.m.intern("scales");
  remove_attribute(c.n, name);
  Attribute* a = add_attribute(c.n, name, Attribute::kFloats);
  float* f = c.m.arena.make_array<float>(d.size());
  for (size_t i = 0; i < d.size(); ++i) f[i] = static_cast<float>(d[i]);
  a->floats.data = f;
  a->floats.size = static_cast<uint32_t>(d.size());
  truncate_inputs(c.n, 1);
  c.what = "scales input -> attribute";
  return nullptr;
}

const char* upsample_to_resize(AdaptCtx& c) { return rename_op(c, "Resize", "Upsample -> Resize"); }
const char* resize_to_upsample(AdaptCtx& c) { return rename_op(c, "Upsample", "Resize -> Upsample"); }

// Resize 10 (and Upsample) sample at x_out / scale (asymmetric) and take the floor for nearest.
const char* resize_up11(AdaptCtx& c) {
  Value* scales = has_input(c.n, 1) ? c.n->inputs[1] : nullptr;
  put_input(c.n, 2, scales);
  put_input(c.n, 1, float_const(c.m, c.n, "roi", kFloat, {}, false));
  set_attr_string(c.m, c.n, "coordinate_transformation_mode", "asymmetric");
  if (attr_string(c.m, c.n, "mode", "nearest") == "nearest") set_attr_string(c.m, c.n, "nearest_mode", "floor");
  c.what = "roi input added, coordinate_transformation_mode=asymmetric";
  return nullptr;
}
const char* resize_down11(AdaptCtx& c) {
  std::string mode = attr_string(c.m, c.n, "mode", "nearest");
  std::string ctm = attr_string(c.m, c.n, "coordinate_transformation_mode", "half_pixel");
  if (mode != "nearest" && mode != "linear") return "cubic mode has no form before opset 11";
  bool one_to_one = false;
  std::vector<double> scales;
  if (has_input(c.n, 2) && const_doubles(c.m, c.n->inputs[2], scales) && !scales.empty()) {
    one_to_one = true;
    for (double s : scales) one_to_one &= s == 1.0;
  }
  if (ctm != "asymmetric" && !one_to_one)
    return "coordinate_transformation_mode other than asymmetric has no form before opset 11";
  if (mode == "nearest" && attr_string(c.m, c.n, "nearest_mode", "round_prefer_floor") != "floor" && !one_to_one)
    return "nearest_mode other than floor has no form before opset 11";
  if (scales.empty()) {
    // sizes: scales from a static input shape.
    std::vector<int64_t> sizes;
    const Value* x = c.n->inputs[0];
    if (!has_input(c.n, 3) || !const_ints(c.m, c.n->inputs[3], sizes) || !x->type || !x->type->shape_known() ||
        x->type->rank() != static_cast<int>(sizes.size()))
      return "scales are not a constant (sizes need a static input shape)";
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (!x->type->dims[i].is_static() || x->type->dims[i].value == 0) return "input shape is not static";
      scales.push_back(static_cast<double>(sizes[i]) / static_cast<double>(x->type->dims[i].value));
    }
  }
  Value* s = float_const(c.m, c.n, "scales", kFloat, scales, false);
  truncate_inputs(c.n, 1);
  put_input(c.n, 1, s);
  for (const char* a : {"coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a", "exclude_outside",
                        "extrapolation_value"})
    remove_attribute(c.n, c.m.intern(a));
  c.what = "roi/sizes inputs removed, scales constant";
  return nullptr;
}

// Resize 11 needs roi and scales present (empty tensors when unused); 13 made them optional.
const char* resize_down13(AdaptCtx& c) {
  if (!has_input(c.n, 1)) put_input(c.n, 1, float_const(c.m, c.n, "roi", kFloat, {}, false));
  if (!has_input(c.n, 2)) put_input(c.n, 2, float_const(c.m, c.n, "scales", kFloat, {}, false));
  c.what = "empty roi/scales inputs made explicit";
  return nullptr;
}

const char* resize_down18(AdaptCtx& c) {
  if (attr_int(c.m, c.n, "antialias", 0) != 0) return "antialias=1 has no form before opset 18";
  if (attr(c.m, c.n, "axes")) return "axes attribute has no form before opset 18";
  if (attr_string(c.m, c.n, "keep_aspect_ratio_policy", "stretch") != "stretch")
    return "keep_aspect_ratio_policy has no form before opset 18";
  for (const char* a : {"antialias", "keep_aspect_ratio_policy"}) remove_attribute(c.n, c.m.intern(a));
  return nullptr;
}

const char* resize_down19(AdaptCtx& c) {
  if (attr_string(c.m, c.n, "coordinate_transformation_mode", "") == "half_pixel_symmetric")
    return "coordinate_transformation_mode half_pixel_symmetric has no form before opset 19";
  return nullptr;
}

}  // namespace

void add_resize_adapters(std::vector<Adapter>& out) {
  out.push_back({"Upsample", 9, upsample_up9, upsample_down9, "scales attribute became input 1"});
  out.push_back({"Upsample", 10, upsample_to_resize, nullptr, "Upsample deprecated for Resize"});
  out.push_back({"Resize", 10, nullptr, resize_to_upsample, "Resize introduced (Upsample before)"});
  out.push_back({"Resize", 11, resize_up11, resize_down11, "roi/sizes inputs, coordinate modes (default half_pixel)"});
  out.push_back({"Resize", 13, nullptr, resize_down13, "roi and scales optional"});
  out.push_back({"Resize", 18, nullptr, resize_down18, "antialias, axes, keep_aspect_ratio_policy"});
  out.push_back({"Resize", 19, nullptr, resize_down19, "half_pixel_symmetric mode"});
}

}  // namespace ofg::convert
