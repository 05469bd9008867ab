// Attention (opset 23/24) on float32 Q, K, V as two sgemm calls per (batch, head) around a
// float softmax: the scores Q K^T (K read transposed in place), the mask, causal and padding
// biases added to them row by row, then P V. The double-precision walk in attention.cpp stays for
// what this does not cover (other element types, a mask of another type, the qk_matmul_output
// output) and is the reference the tests compare with.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "exec/ops/attention_f32.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

// One of Q, K, V (or a present key/value) as rows of one head: head h's row s starts at
// base + (b * batch_stride) + h * head_stride + s * row_stride.
struct HeadRows {
  const float* base = nullptr;
  int64_t B = 0, H = 0, S = 0, D = 0;
  int64_t batch_stride = 0, head_stride = 0, row_stride = 0;
  const float* head(int64_t b, int64_t h) const { return base + b * batch_stride + h * head_stride; }
};

// (B, H, S, D) or (B, S, H*D) with H given: no copy, strides only.
bool head_rows(const RTensor& t, int64_t heads, HeadRows& r) {
  if (t.dtype != kFloat) return false;
  r.base = t.data<float>();
  if (t.rank() == 4) {
    r.B = t.shape[0], r.H = t.shape[1], r.S = t.shape[2], r.D = t.shape[3];
    r.row_stride = r.D, r.head_stride = r.S * r.D, r.batch_stride = r.H * r.S * r.D;
    return true;
  }
  if (t.rank() != 3 || heads <= 0 || t.shape[2] % heads != 0) return false;
  r.B = t.shape[0], r.S = t.shape[1], r.H = heads, r.D = t.shape[2] / heads;
  r.row_stride = r.H * r.D, r.head_stride = r.D, r.batch_stride = r.S * r.H * r.D;
  return true;
}

// The cache (B, H, P, D) followed by the current rows along the sequence: the present key or value.
RTensor concat_past(const RTensor& past, const HeadRows& cur) {
  const int64_t P = past.shape[2], T = P + cur.S;
  RTensor y = RTensor::alloc_uninit(kFloat, {cur.B, cur.H, T, cur.D});
  float* dst = y.data<float>();
  const float* pv = past.data<float>();
  const size_t row_bytes = static_cast<size_t>(cur.D) * sizeof(float);
  for (int64_t b = 0; b < cur.B; ++b)
    for (int64_t h = 0; h < cur.H; ++h) {
      float* d = dst + ((b * cur.H + h) * T) * cur.D;
      if (P) std::memcpy(d, pv + ((b * cur.H + h) * P) * cur.D, static_cast<size_t>(P) * row_bytes);
      const float* src = cur.head(b, h);
      for (int64_t s = 0; s < cur.S; ++s) std::memcpy(d + (P + s) * cur.D, src + s * cur.row_stride, row_bytes);
    }
  return y;
}

// The current rows alone as a (B, H, S, D) tensor (a present output without a past).
RTensor as_bhsd(const RTensor& t, const HeadRows& r) {
  if (t.rank() == 4) return t;
  RTensor empty = RTensor::alloc(kFloat, {r.B, r.H, 0, r.D});
  return concat_past(empty, r);
}

}  // namespace

bool mask_layout(const Shape& mask, int64_t B, int64_t H, int64_t Sq, int64_t dim[4], int64_t stride[4]) {
  const int r = static_cast<int>(mask.size());
  if (r > 4) return false;
  const auto st = strides_of(mask);
  for (int i = 0; i < 4; ++i) dim[i] = 1, stride[i] = 0;
  for (int i = 0; i < r; ++i) {
    dim[4 - r + i] = mask[i];
    stride[4 - r + i] = mask[i] == 1 ? 0 : st[i];
  }
  const int64_t target[3] = {B, H, Sq};
  for (int i = 0; i < 3; ++i)
    if (dim[i] != 1 && dim[i] != target[i]) return false;
  return true;
}

bool attention_f32(OpCtx& c) {
  const float kNegInf = -std::numeric_limits<float>::infinity();
  if (c.wants(3) || !c.has(0) || !c.has(1) || !c.has(2)) return false;
  const RTensor &qt = c.t(0), &kt = c.t(1), &vt = c.t(2);
  const int64_t qh_attr = c.attr_i("q_num_heads", 0), kvh_attr = c.attr_i("kv_num_heads", 0);
  HeadRows Q, K, V;
  if (!head_rows(qt, qh_attr, Q) || !head_rows(kt, kvh_attr, K) || !head_rows(vt, kvh_attr, V)) return false;
  const bool has_mask = c.has(3);
  if (has_mask && c.t(3).dtype != kFloat && c.t(3).dtype != kBool) return false;
  const bool has_past = c.has(4) || c.has(5);
  if (has_past && !(c.has(4) && c.has(5))) return false;
  RTensor present_k, present_v;
  int64_t P = 0;
  if (has_past) {
    const RTensor &pk = c.t(4), &pv = c.t(5);
    if (pk.dtype != kFloat || pv.dtype != kFloat || pk.rank() != 4 || pv.rank() != 4) return false;
    if (pk.shape[0] != K.B || pk.shape[1] != K.H || pk.shape[3] != K.D || pv.shape[0] != V.B || pv.shape[1] != V.H ||
        pv.shape[3] != V.D || pv.shape[2] != pk.shape[2])
      return false;  // the walk reports the mismatch
    P = pk.shape[2];
    present_k = concat_past(pk, K);
    present_v = concat_past(pv, V);
    head_rows(present_k, 0, K);
    head_rows(present_v, 0, V);
  }
  const int64_t B = Q.B, H = Q.H, Sq = Q.S, T = K.S, Dq = Q.D, Dv = V.D;
  if (K.B != B || V.B != B || K.H != V.H || K.S != V.S || K.D != Dq || K.H == 0 || H % K.H != 0) return false;
  const int64_t rep = H / K.H;
  const float scale = c.has_attr("scale") ? c.attr_f("scale", 1.f) : static_cast<float>(1.0 / std::sqrt(static_cast<double>(Dq)));
  const float softcap = c.attr_f("softcap", 0.f);
  const bool causal = c.attr_i("is_causal", 0) != 0;

  // The mask broadcasts (numpy rules) to (B, H, Sq, T); columns past its last axis are masked.
  RTensor mask;
  int64_t mstride[4], mdim[4];
  if (has_mask) mask = c.t(3);
  if (!mask_layout(has_mask ? mask.shape : Shape{}, B, H, Sq, mdim, mstride)) return false;
  std::vector<int64_t> nonpad;
  if (c.has(6)) {
    if (c.t(6).numel() != B) return false;
    nonpad = to_i64_vec(c.t(6));
  }

  const bool three_d = qt.rank() == 3;
  RTensor y = three_d ? RTensor::alloc_uninit(kFloat, {B, Sq, H * Dv}) : RTensor::alloc_uninit(kFloat, {B, H, Sq, Dv});
  const int64_t y_row = three_d ? H * Dv : Dv;
  const kernels::KernelTable& kt_table = kernels::active_table();
  auto one_head = [&](size_t task) {
    const int64_t b = static_cast<int64_t>(task) / H, h = static_cast<int64_t>(task) % H, kh = h / rep;
    float* out = y.data<float>() + (three_d ? b * Sq * H * Dv + h * Dv : (b * H + h) * Sq * Dv);
    if (Sq == 0 || Dv == 0) return;
    std::vector<float> scores(static_cast<size_t>(Sq * T));
    if (T > 0 && Dq > 0)
      kernels::sgemm(false, true, static_cast<size_t>(Sq), static_cast<size_t>(T), static_cast<size_t>(Dq), scale, Q.head(b, h),
                     static_cast<size_t>(Q.row_stride), K.head(b, kh), static_cast<size_t>(K.row_stride), 0.f, scores.data(),
                     static_cast<size_t>(T));
    else
      std::fill(scores.begin(), scores.end(), 0.f);
    const int64_t offset = (!has_past && !nonpad.empty()) ? nonpad[static_cast<size_t>(b)] - Sq : P;
    const int64_t valid = nonpad.empty() ? T : nonpad[static_cast<size_t>(b)];
    for (int64_t i = 0; i < Sq; ++i) {
      float* row = scores.data() + i * T;
      // Columns from `limit` on are masked by causality or padding: they get probability 0.
      int64_t limit = std::min(T, valid);
      if (causal) limit = std::min(limit, std::max<int64_t>(i + offset + 1, 0));
      if (has_mask) limit = std::min(limit, mdim[3]);  // the mask's missing columns are masked
      // Soft-capping comes before the mask so that -inf stays -inf.
      if (softcap > 0)
        for (int64_t j = 0; j < limit; ++j) row[j] = softcap * std::tanh(row[j] / softcap);
      bool any = limit > 0;
      if (has_mask && limit > 0) {
        const int64_t base = (mdim[0] == 1 ? 0 : b) * mstride[0] + (mdim[1] == 1 ? 0 : h) * mstride[1] +
                             (mdim[2] == 1 ? 0 : i) * mstride[2];
        if (mask.dtype == kBool) {
          const bool* m = mask.data<bool>() + base;
          for (int64_t j = 0; j < limit; ++j)
            if (!m[j * mstride[3]]) row[j] = kNegInf;
        } else {
          const float* m = mask.data<float>() + base;
          for (int64_t j = 0; j < limit; ++j) row[j] += m[j * mstride[3]];
        }
        // Masked columns at the end of the row (a causal mask given as a tensor) leave the softmax
        // as causality does: they get probability 0 without an exp each.
        while (limit > 0 && row[limit - 1] == kNegInf) --limit;
        any = limit > 0;
      }
      // A fully masked row attends to nothing: zeros instead of the NaN of exp(-inf - -inf).
      if (!any) limit = 0;
      else kt_table.softmax(row, row, 1, static_cast<size_t>(limit), 1, false);
      std::fill(row + limit, row + T, 0.f);
    }
    if (T > 0)
      kernels::sgemm(false, false, static_cast<size_t>(Sq), static_cast<size_t>(Dv), static_cast<size_t>(T), 1.f, scores.data(),
                     static_cast<size_t>(T), V.head(b, kh), static_cast<size_t>(V.row_stride), 0.f, out, static_cast<size_t>(y_row));
    else
      for (int64_t i = 0; i < Sq; ++i) std::fill(out + i * y_row, out + i * y_row + Dv, 0.f);
  };
  const size_t heads = static_cast<size_t>(B * H);
  // Split as a GEMM of the same multiply-adds would be: below gemm_parallel_macs() handing heads to
  // a worker cost more than it saved (LLaMA-1024 prefill of 32 tokens, 2M multiply-adds: 1.4x
  // slower on 2 threads than on 1 on a busy 2-core machine).
  if (heads >= kernels::threads() && heads * static_cast<size_t>(Sq * T * (Dq + Dv)) >= kernels::gemm_parallel_macs())
    kernels::parallel_for(heads, one_head);
  else
    for (size_t i = 0; i < heads; ++i) one_head(i);
  c.set(0, y);
  if (c.wants(1)) c.set(1, has_past ? present_k : as_bhsd(kt, K));
  if (c.wants(2)) c.set(2, has_past ? present_v : as_bhsd(vt, V));
  return true;
}

}  // namespace ofg::exec
