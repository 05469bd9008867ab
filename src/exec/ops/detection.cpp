// Detection: NonMaxSuppression and RoiAlign.
#include "exec/infer_rules.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

// ------------------------------------------------------------------ detection

void op_nms(OpCtx& c) {
  const RTensor& boxes = c.t_rank(0, 3);
  const RTensor& scores = c.t_rank(1, 3);
  int64_t max_out = c.has(2) ? get_i64(c.t_numel(2, 1), 0) : 0;
  double iou_th = c.has(3) ? get_f64(c.t_numel(3, 1), 0) : 0.0;
  bool has_st = c.has(4);
  double score_th = has_st ? get_f64(c.t_numel(4, 1), 0) : 0.0;
  bool center = c.attr_i("center_point_box", 0) != 0;
  int64_t B = scores.shape[0], C = scores.shape[1], S = scores.shape[2];
  c.t_dims(0, {B, S, 4});
  std::vector<int64_t> sel;
  auto corners = [&](int64_t b, int64_t i, double* o) {
    double v[4];
    for (int k = 0; k < 4; ++k) v[k] = get_f64(boxes, (b * S + i) * 4 + k);
    if (center) {
      // [x_center, y_center, width, height] -> y1, x1, y2, x2
      o[0] = v[1] - v[3] / 2; o[1] = v[0] - v[2] / 2; o[2] = v[1] + v[3] / 2; o[3] = v[0] + v[2] / 2;
    } else {
      // Corners may come in either order.
      o[0] = std::min(v[0], v[2]); o[1] = std::min(v[1], v[3]); o[2] = std::max(v[0], v[2]); o[3] = std::max(v[1], v[3]);
    }
  };
  for (int64_t b = 0; b < B; ++b)
    for (int64_t cl = 0; cl < C; ++cl) {
      if (max_out <= 0) continue;
      std::vector<int64_t> cand;
      for (int64_t i = 0; i < S; ++i)
        if (!has_st || get_f64(scores, (b * C + cl) * S + i) > score_th) cand.push_back(i);
      std::stable_sort(cand.begin(), cand.end(), [&](int64_t x, int64_t y) {
        return get_f64(scores, (b * C + cl) * S + x) > get_f64(scores, (b * C + cl) * S + y);
      });
      std::vector<int64_t> kept;
      for (int64_t i : cand) {
        if (static_cast<int64_t>(kept.size()) >= max_out) break;
        double bi[4];
        corners(b, i, bi);
        bool drop = false;
        for (int64_t k : kept) {
          double bk[4];
          corners(b, k, bk);
          double ih = std::max(0.0, std::min(bi[2], bk[2]) - std::max(bi[0], bk[0]));
          double iw = std::max(0.0, std::min(bi[3], bk[3]) - std::max(bi[1], bk[1]));
          double inter = ih * iw;
          double uni = (bi[2] - bi[0]) * (bi[3] - bi[1]) + (bk[2] - bk[0]) * (bk[3] - bk[1]) - inter;
          if (inter > 0 && uni > 0 && inter / uni > iou_th) { drop = true; break; }
        }
        if (!drop) kept.push_back(i);
      }
      for (int64_t k : kept) {
        sel.push_back(b);
        sel.push_back(cl);
        sel.push_back(k);
      }
    }
  c.set(0, make_i64(sel, {static_cast<int64_t>(sel.size() / 3), 3}));
}

void op_roi_align(OpCtx& c) {
  const RTensor& xt = c.t_rank(0, 4);
  const RTensor& rois = c.t_rank(1, 2);
  std::vector<int64_t> bidx = to_i64_vec(c.t_dims(2, {rois.shape[0]}));
  if (rois.shape[1] != 4) c.error("rois must have shape [R, 4], got " + shape_str(rois.shape));
  for (int64_t b : bidx)
    if (b < 0 || b >= xt.shape[0]) c.error("batch index " + std::to_string(b) + " is out of range [0, " + std::to_string(xt.shape[0]) + ")");
  std::string mode = c.attr_s("mode", "avg");
  int64_t oh = c.attr_i("output_height", 1), ow = c.attr_i("output_width", 1);
  int64_t ratio = c.attr_i("sampling_ratio", 0);
  double scale = c.attr_f("spatial_scale", 1.f);
  bool half = c.attr_s("coordinate_transformation_mode", c.opset >= 16 ? "half_pixel" : "output_half_pixel") == "half_pixel";
  int64_t C = xt.shape[1], H = xt.shape[2], W = xt.shape[3], R = rois.shape[0];
  c.size_value(oh, "output_height", 1 << 30);
  c.size_value(ow, "output_width", 1 << 30);
  c.size_value(ratio, "sampling_ratio", 1 << 16);
  std::vector<double> x = f64_of(xt);
  std::vector<double> y(scratch_elems(checked_mul(checked_mul(R, C), checked_mul(oh, ow))), 0.0);
  double off = half ? 0.5 : 0.0;
  for (int64_t n = 0; n < R; ++n) {
    double x1 = get_f64(rois, n * 4) * scale - off, y1 = get_f64(rois, n * 4 + 1) * scale - off;
    double x2 = get_f64(rois, n * 4 + 2) * scale - off, y2 = get_f64(rois, n * 4 + 3) * scale - off;
    double rw = x2 - x1, rh = y2 - y1;
    if (!half) { rw = std::max(rw, 1.0); rh = std::max(rh, 1.0); }
    double bh = rh / static_cast<double>(oh), bw = rw / static_cast<double>(ow);
    // A huge or NaN region would make the sample grid unbounded: capped like sampling_ratio.
    int64_t gh = ratio > 0 ? ratio : std::clamp<int64_t>(saturate_cast<int64_t>(std::ceil(rh / static_cast<double>(oh))), 0, 1 << 16);
    int64_t gw = ratio > 0 ? ratio : std::clamp<int64_t>(saturate_cast<int64_t>(std::ceil(rw / static_cast<double>(ow))), 0, 1 << 16);
    double count = static_cast<double>(std::max<int64_t>(gh * gw, 1));
    int64_t b = bidx[static_cast<size_t>(n)];
    for (int64_t ch = 0; ch < C; ++ch) {
      const double* img = x.data() + static_cast<size_t>((b * C + ch) * H * W);
      for (int64_t ph = 0; ph < oh; ++ph)
        for (int64_t pw = 0; pw < ow; ++pw) {
          double acc = 0;
          bool first = true;
          for (int64_t iy = 0; iy < gh; ++iy)
            for (int64_t ix = 0; ix < gw; ++ix) {
              double yy = y1 + ph * bh + (iy + 0.5) * bh / static_cast<double>(gh);
              double xx = x1 + pw * bw + (ix + 0.5) * bw / static_cast<double>(gw);
              double v = 0, w1 = 0, w2 = 0, w3 = 0, w4 = 0, v1 = 0, v2 = 0, v3 = 0, v4 = 0;
              if (H > 0 && W > 0 && !(yy < -1.0 || yy > H || xx < -1.0 || xx > W)) {
                yy = std::max(yy, 0.0);
                xx = std::max(xx, 0.0);
                int64_t yl = saturate_cast<int64_t>(yy), xl = saturate_cast<int64_t>(xx), yhi, xhi;
                if (yl >= H - 1) { yhi = yl = H - 1; yy = static_cast<double>(yl); } else { yhi = yl + 1; }
                if (xl >= W - 1) { xhi = xl = W - 1; xx = static_cast<double>(xl); } else { xhi = xl + 1; }
                double ly = yy - yl, lx = xx - xl, hy = 1 - ly, hx = 1 - lx;
                w1 = hy * hx; w2 = hy * lx; w3 = ly * hx; w4 = ly * lx;
                v1 = img[yl * W + xl]; v2 = img[yl * W + xhi]; v3 = img[yhi * W + xl]; v4 = img[yhi * W + xhi];
                v = w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4;
              }
              if (mode == "max") {
                // The max mode takes the largest weighted corner (the reference kernels' rule).
                double m = std::max(std::max(w1 * v1, w2 * v2), std::max(w3 * v3, w4 * v4));
                acc = first ? m : std::max(acc, m);
                first = false;
              } else {
                acc += v;
              }
            }
          y[static_cast<size_t>(((n * C + ch) * oh + ph) * ow + pw)] = mode == "max" ? acc : acc / count;
        }
    }
  }
  c.set(0, tensor_of(y, xt.dtype, {R, C, oh, ow}));
}

}  // namespace

void register_detection_ops(Registry& r) {
  r.add("NonMaxSuppression", op_nms, 10).no_rule();
  r.add("RoiAlign", op_roi_align, 10).no_rule();
}

}  // namespace ofg::exec
