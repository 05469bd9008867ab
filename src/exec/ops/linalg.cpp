// Linear algebra beyond MatMul/Gemm: Einsum and Det in double precision (they appear rarely and
// on small tensors; exactness against the reference matters more than speed), and Trilu. Einsum
// on two float32 operands that is a batched matrix product (attention scores written with einops,
// bilinear contractions) runs as one: transposes and sgemm.
#include <algorithm>
#include <map>

#include "exec/infer_rules.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

// ------------------------------------------------------------------ Einsum

// Positions in `from` of the labels of `groups`, in order: the permutation that brings an
// operand's axes to the order of the groups.
std::vector<size_t> axes_of(const std::vector<int>& from, std::initializer_list<const std::vector<int>*> groups) {
  std::vector<size_t> perm;
  for (const std::vector<int>* g : groups)
    for (int l : *g) perm.push_back(static_cast<size_t>(std::find(from.begin(), from.end(), l) - from.begin()));
  return perm;
}

bool is_identity(const std::vector<size_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != i) return false;
  return true;
}

// t with its axes in the order perm gives; t itself when perm keeps them.
RTensor permuted(const RTensor& t, const std::vector<size_t>& perm) {
  if (is_identity(perm)) return t;
  Shape s(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) s[i] = t.shape[perm[i]];
  RTensor y = RTensor::alloc_uninit(t.dtype, s);
  if (t.numel()) kernels::transpose(t.ptr, y.ptr, t.elem_size(), t.shape.data(), perm.data(), perm.size());
  return y;
}

int64_t size_product(const std::vector<int>& group, const std::map<int, int64_t>& size) {
  int64_t p = 1;
  for (int l : group) p = checked_mul(p, size.at(l));
  return p;
}

// Two float32 operands whose every label is either in both (a batch axis when the output keeps
// it, a contracted one when not) or in one and the output (a row or a column of the product),
// each label once per operand at its full size: A as [batch, M, K], B as [batch, K, N], one sgemm
// per batch, the result's axes put in the output's order. False (the double-precision walk runs)
// for the rest: diagonals, sums over one operand, broadcast size-1 axes, other types.
bool einsum_as_gemm(OpCtx& c, const std::vector<std::vector<int>>& labels, const std::map<int, int64_t>& size,
                    const std::vector<int>& out, const Shape& oshape) {
  if (labels.size() != 2 || c.t(0).dtype != kFloat || c.t(1).dtype != kFloat) return false;
  auto has = [](const std::vector<int>& v, int l) { return std::find(v.begin(), v.end(), l) != v.end(); };
  for (size_t k = 0; k < 2; ++k)
    for (size_t i = 0; i < labels[k].size(); ++i)
      if (std::count(labels[k].begin(), labels[k].end(), labels[k][i]) != 1 || c.t(k).shape[i] != size.at(labels[k][i]))
        return false;
  for (int l : out)
    if (std::count(out.begin(), out.end(), l) != 1) return false;
  std::vector<int> batch, rows, cols, inner;
  for (int l : labels[0]) {
    const bool in_b = has(labels[1], l), kept = has(out, l);
    if (in_b && kept) batch.push_back(l);
    else if (in_b) inner.push_back(l);
    else if (kept) rows.push_back(l);
    else return false;
  }
  for (int l : labels[1])
    if (!has(labels[0], l)) {
      if (!has(out, l)) return false;
      cols.push_back(l);
    }
  // An operand whose axes already run [batch, inner, rows] (or [batch, cols, inner]) is read
  // transposed by sgemm instead of being copied: K, Q in attention scores come as [b, h, seq, d].
  const bool trans_a = is_identity(axes_of(labels[0], {&batch, &inner, &rows})) &&
                       !is_identity(axes_of(labels[0], {&batch, &rows, &inner}));
  const bool trans_b = is_identity(axes_of(labels[1], {&batch, &cols, &inner})) &&
                       !is_identity(axes_of(labels[1], {&batch, &inner, &cols}));
  const RTensor a = trans_a ? c.t(0) : permuted(c.t(0), axes_of(labels[0], {&batch, &rows, &inner}));
  const RTensor b = trans_b ? c.t(1) : permuted(c.t(1), axes_of(labels[1], {&batch, &inner, &cols}));
  const int64_t nb = size_product(batch, size), M = size_product(rows, size), N = size_product(cols, size),
                K = size_product(inner, size);
  Shape ys;
  for (const std::vector<int>* g : {&batch, &rows, &cols})
    for (int l : *g) ys.push_back(size.at(l));
  RTensor y = RTensor::alloc(kFloat, ys);  // zeros: K == 0 leaves them
  if (K > 0 && M > 0 && N > 0) {
    auto one = [&](size_t i) {
      kernels::sgemm(trans_a, trans_b, static_cast<size_t>(M), static_cast<size_t>(N), static_cast<size_t>(K), 1.f,
                     a.data<float>() + i * M * K, static_cast<size_t>(trans_a ? M : K), b.data<float>() + i * K * N,
                     static_cast<size_t>(trans_b ? K : N), 0.f, y.data<float>() + i * M * N, static_cast<size_t>(N));
    };
    // As MatMul: enough batches for every thread, one product per task; else sgemm splits each.
    const size_t batches = static_cast<size_t>(nb);
    if (batches >= kernels::threads() && batches * static_cast<size_t>(M * N * K) >= kernels::parallel_work())
      kernels::parallel_for(batches, one);
    else
      for (size_t i = 0; i < batches; ++i) one(i);
  }
  std::vector<int> y_labels = batch;
  y_labels.insert(y_labels.end(), rows.begin(), rows.end());
  y_labels.insert(y_labels.end(), cols.begin(), cols.end());
  RTensor r = permuted(y, axes_of(y_labels, {&out}));
  r.shape = oshape;
  c.set(0, r);
  return true;
}

void op_einsum(OpCtx& c) {
  std::string eq;
  for (char ch : c.attr_s("equation", "")) if (ch != ' ') eq.push_back(ch);
  std::string lhs = eq, rhs;
  bool explicit_out = false;
  size_t arrow = eq.find("->");
  if (arrow != std::string::npos) {
    lhs = eq.substr(0, arrow);
    rhs = eq.substr(arrow + 2);
    explicit_out = true;
  }
  std::vector<std::string> terms;
  {
    size_t p = 0;
    for (;;) {
      size_t q = lhs.find(',', p);
      terms.push_back(lhs.substr(p, q == std::string::npos ? std::string::npos : q - p));
      if (q == std::string::npos) break;
      p = q + 1;
    }
  }
  if (terms.size() != c.n_in()) c.error("equation has " + std::to_string(terms.size()) + " operands, node has " + std::to_string(c.n_in()));
  // Labels: letters keep their code; ellipsis axes become codes 200+k (k counted from the left
  // of the broadcast ellipsis block).
  size_t ell_rank = 0;
  std::vector<std::vector<int>> labels(terms.size());
  for (size_t k = 0; k < terms.size(); ++k) {
    const std::string& t = terms[k];
    size_t letters = 0;
    for (char ch : t) letters += std::isalpha(static_cast<unsigned char>(ch)) ? 1 : 0;
    if (static_cast<size_t>(c.t(k).rank()) < letters) c.error("operand " + std::to_string(k) + " has fewer axes than '" + t + "'");
    for (size_t i = 0; i < t.size(); ++i)
      if (!std::isalpha(static_cast<unsigned char>(t[i])) && t.compare(i, 3, "...") != 0) c.error("bad term '" + t + "'");
      else if (t[i] == '.') i += 2;
    if (t.find("...") != std::string::npos) ell_rank = std::max(ell_rank, static_cast<size_t>(c.t(k).rank()) - letters);
  }
  for (size_t k = 0; k < terms.size(); ++k) {
    const std::string& t = terms[k];
    size_t letters = 0;
    for (char ch : t) letters += std::isalpha(static_cast<unsigned char>(ch)) ? 1 : 0;
    size_t here = static_cast<size_t>(c.t(k).rank()) - letters;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i] == '.') {
        for (size_t e = 0; e < here; ++e) labels[k].push_back(200 + static_cast<int>(ell_rank - here + e));
        i += 2;
      } else {
        labels[k].push_back(t[i]);
      }
    }
    if (labels[k].size() != static_cast<size_t>(c.t(k).rank())) c.error("operand " + std::to_string(k) + " rank does not match '" + t + "'");
  }
  std::map<int, int64_t> size;
  std::map<int, int> count;
  for (size_t k = 0; k < terms.size(); ++k)
    for (size_t i = 0; i < labels[k].size(); ++i) {
      int l = labels[k][i];
      int64_t d = c.t(k).shape[i];
      ++count[l];
      auto it = size.find(l);
      if (it == size.end() || it->second == 1) size[l] = d;
      else if (d != 1 && d != it->second) c.error("dimension mismatch for an einsum label");
    }
  std::vector<int> out;
  if (explicit_out) {
    for (size_t i = 0; i < rhs.size(); ++i) {
      if (!std::isalpha(static_cast<unsigned char>(rhs[i])) && rhs.compare(i, 3, "...") != 0) c.error("bad output '" + rhs + "'");
      if (rhs[i] != '.' && !size.count(rhs[i])) c.error("output label not in any operand: '" + rhs + "'");
      if (rhs[i] == '.') {
        for (size_t e = 0; e < ell_rank; ++e) out.push_back(200 + static_cast<int>(e));
        i += 2;
      } else {
        out.push_back(rhs[i]);
      }
    }
  } else {
    for (size_t e = 0; e < ell_rank; ++e) out.push_back(200 + static_cast<int>(e));
    for (auto& kv : count)
      if (kv.first < 200 && kv.second == 1) out.push_back(kv.first);
  }
  Shape oshape;
  for (int l : out) oshape.push_back(size[l]);
  if (einsum_as_gemm(c, labels, size, out, oshape)) return;
  std::vector<int> all = out;
  for (auto& kv : size)
    if (std::find(all.begin(), all.end(), kv.first) == all.end()) all.push_back(kv.first);
  std::map<int, size_t> pos;
  for (size_t i = 0; i < all.size(); ++i) pos[all[i]] = i;
  std::vector<int64_t> dims(all.size());
  for (size_t i = 0; i < all.size(); ++i) dims[i] = size[all[i]];
  // Per operand, stride of each loop variable (0 when absent or broadcast).
  std::vector<std::vector<int64_t>> st(terms.size(), std::vector<int64_t>(all.size(), 0));
  std::vector<std::vector<double>> vals(terms.size());
  for (size_t k = 0; k < terms.size(); ++k) {
    const RTensor& t = c.t(k);
    vals[k] = f64_of(t);
    auto s = strides_of(t.shape);
    for (size_t i = 0; i < labels[k].size(); ++i)
      if (t.shape[i] != 1) st[k][pos[labels[k][i]]] += s[i];
  }
  int64_t onum = shape_numel(oshape), inner = 1;
  for (size_t i = out.size(); i < all.size(); ++i) inner = checked_mul(inner, dims[i]);
  std::vector<double> res(scratch_elems(onum), 0.0);
  std::vector<int64_t> idx(all.size(), 0);
  int64_t total = checked_mul(onum, inner);
  std::vector<int64_t> off(terms.size(), 0);
  for (int64_t n = 0; n < total; ++n) {
    double p = 1;
    for (size_t k = 0; k < terms.size(); ++k) p *= vals[k][static_cast<size_t>(off[k])];
    res[static_cast<size_t>(n / inner)] += p;
    for (size_t d = all.size(); d-- > 0;) {
      if (++idx[d] < dims[d]) {
        for (size_t k = 0; k < terms.size(); ++k) off[k] += st[k][d];
        break;
      }
      for (size_t k = 0; k < terms.size(); ++k) off[k] -= st[k][d] * (dims[d] - 1);
      idx[d] = 0;
    }
  }
  c.set(0, tensor_of(res, c.t(0).dtype, oshape));
}


// ------------------------------------------------------------------ math

void op_det(OpCtx& c) {
  const RTensor& xt = c.t(0);
  int r = xt.rank();
  if (r < 2 || xt.shape[r - 1] != xt.shape[r - 2]) c.error("input must be (..., M, M)");
  int64_t M = xt.shape[r - 1], batch = xt.numel() / std::max<int64_t>(1, M * M);
  std::vector<double> x = f64_of(xt), y(static_cast<size_t>(batch));
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<double> a(x.begin() + b * M * M, x.begin() + (b + 1) * M * M);
    double det = 1;
    // Gaussian elimination with partial pivoting.
    for (int64_t k = 0; k < M; ++k) {
      int64_t piv = k;
      for (int64_t i = k + 1; i < M; ++i)
        if (std::fabs(a[i * M + k]) > std::fabs(a[piv * M + k])) piv = i;
      if (a[piv * M + k] == 0) { det = 0; break; }
      if (piv != k) {
        for (int64_t j = 0; j < M; ++j) std::swap(a[k * M + j], a[piv * M + j]);
        det = -det;
      }
      det *= a[k * M + k];
      for (int64_t i = k + 1; i < M; ++i) {
        double f = a[i * M + k] / a[k * M + k];
        for (int64_t j = k; j < M; ++j) a[i * M + j] -= f * a[k * M + j];
      }
    }
    y[static_cast<size_t>(b)] = det;
  }
  c.set(0, tensor_of(y, xt.dtype, Shape(xt.shape.begin(), xt.shape.end() - 2)));
}

// ------------------------------------------------------------------ Trilu

void op_trilu(OpCtx& c) {
  const RTensor& x = c.t(0);
  int64_t k = c.has(1) ? get_i64(c.t_numel(1, 1), 0) : 0;
  bool upper = c.attr_i("upper", 1) != 0;
  if (x.rank() < 2) c.error("input must have rank >= 2, got shape " + shape_str(x.shape));
  RTensor y = x.clone();
  int64_t R = x.shape[x.rank() - 2], C = x.shape[x.rank() - 1];
  int64_t mats = (R != 0 && C != 0) ? x.numel() / (R * C) : 0;
  size_t es = x.elem_size();
  for (int64_t m = 0; m < mats; ++m)
    for (int64_t i = 0; i < R; ++i)
      for (int64_t j = 0; j < C; ++j) {
        bool keep = upper ? (j - i >= k) : (j - i <= k);
        if (!keep) std::memset(y.ptr + ((m * R + i) * C + j) * es, 0, es);
      }
  c.set(0, y);
}

}  // namespace

void register_linalg_ops(Registry& r) {
  r.add("Einsum", op_einsum, 12).traits(kMayGrow).no_rule();
  r.add("Det", op_det, 11).no_rule();
  r.add("Trilu", op_trilu, 1, 1 << 30, false).infer(rules::same_type);
}

}  // namespace ofg::exec
