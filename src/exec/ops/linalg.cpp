// Linear algebra beyond MatMul/Gemm: Einsum and Det in double precision (they appear rarely and
// on small tensors; exactness against the reference matters more than speed), and Trilu.
#include <map>

#include "exec/infer_rules.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

// ------------------------------------------------------------------ Einsum

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
  Shape oshape;
  for (int l : out) oshape.push_back(size[l]);
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
