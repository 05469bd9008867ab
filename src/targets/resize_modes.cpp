// Resize coordinate-mode rewrites (resize_modes.h).
#include "targets/resize_modes.h"

#include <cmath>
#include <vector>

#include "exec/infer_types.h"
#include "ir/attributes.h"
#include "ir/ir.h"
#include "passes/util.h"

namespace ofg::targets {
namespace {

// Per-axis input size, output size and scale, all static; false when any is unknown.
struct Axis {
  int64_t in = 0, out = 0;
  double scale = 1.0;
};

bool static_dims(const exec::TypeInference* types, const Value* v, std::vector<int64_t>& dims) {
  const exec::IType* t = types ? types->type_of(v) : nullptr;
  if (!t || t->rank() < 0) return false;
  dims.clear();
  for (const exec::IDim& d : t->dims) {
    if (!d.is_static()) return false;
    dims.push_back(d.value);
  }
  return true;
}

// The scales a Resize runs with: its constant `scales` input, or output / input when it was
// given `sizes` (the stretch policy). Opset 10 takes scales as input 1, later opsets as input 2.
const char* axes_of(const convert::AdaptCtx& c, std::vector<Axis>& axes) {
  const Node* n = c.n;
  if (n->attribute(c.m, "axes")) return "the axes attribute is not handled";
  if (attr_string(c.m, n, "keep_aspect_ratio_policy", "stretch") != "stretch") return "keep_aspect_ratio_policy is not stretch";
  std::vector<int64_t> in, out;
  if (!n->inputs.size || !n->outputs.size || !static_dims(c.types, n->inputs[0], in) ||
      !static_dims(c.types, n->outputs[0], out) || in.size() != out.size())
    return "the input and output shapes are not static";
  uint32_t scales_at = c.target < 11 ? 1 : 2;
  std::vector<double> scales;
  const Tensor* st = scales_at < n->inputs.size && n->inputs[scales_at] ? passes::const_tensor(c.m, n->inputs[scales_at]) : nullptr;
  if (st && st->numel() > 0) {
    if (!passes::read_doubles(st, scales) || scales.size() != in.size()) return "the scales are not a constant of one per axis";
  } else {
    bool has_sizes = c.target >= 11 && n->inputs.size > 3 && n->inputs[3];
    if (!has_sizes) return "neither constant scales nor sizes";
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i] == 0) return "an input axis has no elements";
      scales.push_back(static_cast<double>(out[i]) / static_cast<double>(in[i]));
    }
  }
  axes.clear();
  for (size_t i = 0; i < in.size(); ++i) axes.push_back({in[i], out[i], scales[i]});
  return nullptr;
}

bool is_round(const std::string& nm) { return nm == "round_prefer_floor" || nm == "round_prefer_ceil"; }

// The (coordinate mode, nearest mode) pairs equivalent to the node's own, its own first.
std::vector<std::pair<std::string, std::string>> equivalents(const std::string& mode, const std::string& cm,
                                                             const std::string& nm, const std::vector<Axis>& axes) {
  bool pytorch_same = true, symmetric_same = true, integer_upscale = true;
  for (const Axis& a : axes) {
    if (a.out <= 1 && a.scale != 1.0) pytorch_same = false;
    float exact = static_cast<float>(a.scale) * static_cast<float>(a.in);  // the spec's float output size
    if (exact != static_cast<float>(a.out)) symmetric_same = false;
    if (a.scale < 1.0 || a.scale != std::floor(a.scale) || static_cast<double>(a.in) * a.scale != static_cast<double>(a.out))
      integer_upscale = false;
  }
  std::vector<std::pair<std::string, std::string>> out;
  auto same_class = [&](const std::string& m) {
    return m == "half_pixel" || (m == "pytorch_half_pixel" && pytorch_same) || (m == "half_pixel_symmetric" && symmetric_same);
  };
  if (same_class(cm))
    for (const char* m : {"half_pixel", "pytorch_half_pixel", "half_pixel_symmetric"})
      if (same_class(m)) out.push_back({m, nm});
  if (mode == "nearest" && integer_upscale) {
    bool in_class = (cm == "asymmetric" && nm == "floor") || (cm == "tf_half_pixel_for_nn" && nm == "floor") ||
                    (same_class(cm) && is_round(nm));
    if (in_class) {
      for (const char* m : {"half_pixel", "pytorch_half_pixel", "half_pixel_symmetric"})
        for (const char* r : {"round_prefer_floor", "round_prefer_ceil"}) out.push_back({m, r});
      out.push_back({"asymmetric", "floor"});
      out.push_back({"tf_half_pixel_for_nn", "floor"});
    }
  }
  return out;
}

}  // namespace

const char* resize_to_allowed_modes(convert::AdaptCtx& c, const ResizeModeAllowed& allowed) {
  std::string mode = attr_string(c.m, c.n, "mode", "nearest");
  std::string cm = attr_string(c.m, c.n, "coordinate_transformation_mode", "half_pixel");
  std::string nm = attr_string(c.m, c.n, "nearest_mode", "round_prefer_floor");
  if (allowed(cm, nm)) return nullptr;
  if (cm == "tf_crop_and_resize" || cm == "align_corners") return "no other coordinate mode gives this mode's coordinates";
  std::vector<Axis> axes;
  if (const char* why = axes_of(c, axes)) return why;
  for (const auto& [to_cm, to_nm] : equivalents(mode, cm, nm, axes)) {
    if (!allowed(to_cm, to_nm)) continue;
    set_attr_string(c.m, c.n, "coordinate_transformation_mode", to_cm);
    if (mode == "nearest" && to_nm != nm) set_attr_string(c.m, c.n, "nearest_mode", to_nm);
    c.what = "Resize coordinate mode -> an equivalent one the target takes (same input coordinates for these shapes)";
    return nullptr;
  }
  return "no coordinate mode the target takes gives the same coordinates for these shapes and scales";
}

}  // namespace ofg::targets
