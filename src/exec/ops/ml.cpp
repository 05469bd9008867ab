// ai.onnx.ml ops on numeric tensors: Binarizer, ArrayFeatureExtractor and TreeEnsemble (opset
// 5, the form that replaces TreeEnsembleRegressor/Classifier). Trees are walked node by node in
// double; a walk longer than the node count means the attributes describe a cycle and fails.
#include <limits>

#include "exec/infer_rules.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

constexpr std::string_view kMl = "ai.onnx.ml";

void op_binarizer(OpCtx& c) {
  const RTensor& x = c.t(0);
  double th = c.attr_f("threshold", 0.f);
  RTensor y = RTensor::alloc(x.dtype, x.shape);
  for (int64_t i = 0; i < x.numel(); ++i) set_f64(y, i, get_f64(x, i) > th ? 1.0 : 0.0);
  c.set(0, std::move(y));
}

// Z[..., j] = X[..., Y[j]] over the flattened indices; a vector X is read as one row.
void op_array_feature_extractor(OpCtx& c) {
  c.require_inputs(2);
  const RTensor& x = c.t_rank(0, 1, 64);
  std::vector<int64_t> idx = to_i64_vec(c.t(1));
  int64_t last = x.shape.back(), n = static_cast<int64_t>(idx.size());
  for (int64_t i : idx)
    c.require(i >= 0 && i < last, "index " + std::to_string(i) + " is out of range [0, " + std::to_string(last) + ")");
  Shape out = x.rank() == 1 ? Shape{1, n} : x.shape;
  out.back() = n;
  RTensor z = RTensor::alloc(x.dtype, out);
  int64_t rows = last == 0 ? 0 : x.numel() / last;  // no column: no index passed the check
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) copy_elem(x, r * last + idx[static_cast<size_t>(j)], z, r * n + j);
  c.set(0, std::move(z));
}

bool rule_array_feature_extractor(InferCtx& c) {
  const IType* x = c.t(0);
  const IType* y = c.t(1);
  if (!x || !x->ranked || x->dims.empty()) return false;
  IDim n;
  if (y && y->ranked) {
    n = rules::st(1);
    for (const IDim& d : y->dims) n = n.is_static() && d.is_static() ? rules::st_mul(n.value, d.value) : IDim{};
  }
  std::vector<IDim> dims = x->dims.size() == 1 ? std::vector<IDim>{rules::st(1), n} : x->dims;
  dims.back() = n;
  c.out[0] = rules::ranked(x->elem, dims);
  return true;
}

// ------------------------------------------------------------------ TreeEnsemble

enum class Branch { kLeq, kLt, kGte, kGt, kEq, kNeq, kMember };

struct TreeNodes {
  std::vector<int64_t> feature, true_id, false_id, true_leaf, false_leaf, nan_true;
  std::vector<Branch> mode;
  std::vector<double> split;
  std::vector<std::vector<double>> members;  // per node, BRANCH_MEMBER only
  std::vector<int64_t> leaf_target;
  std::vector<double> leaf_weight;
  std::vector<int64_t> roots;
  int64_t targets = 0;
};

std::vector<double> tensor_attr(const OpCtx& c, const char* name, bool required) {
  const Attribute* a = c.attr(name);
  if (!a || !a->t) {
    c.require(!required, std::string("attribute ") + name + " (a tensor) is required");
    return {};
  }
  return f64_of(from_ir(*a->t));
}

TreeNodes read_trees(const OpCtx& c) {
  TreeNodes t;
  t.feature = c.attr_ints("nodes_featureids");
  t.true_id = c.attr_ints("nodes_truenodeids");
  t.false_id = c.attr_ints("nodes_falsenodeids");
  t.true_leaf = c.attr_ints("nodes_trueleafs");
  t.false_leaf = c.attr_ints("nodes_falseleafs");
  t.nan_true = c.attr_ints("nodes_missing_value_tracks_true");
  t.split = tensor_attr(c, "nodes_splits", true);
  std::vector<double> modes = tensor_attr(c, "nodes_modes", true);
  size_t n = t.feature.size();
  c.require(t.true_id.size() == n && t.false_id.size() == n && t.true_leaf.size() == n && t.false_leaf.size() == n &&
                t.split.size() == n && modes.size() == n && (t.nan_true.empty() || t.nan_true.size() == n),
            "the nodes_* attributes must all have " + std::to_string(n) + " entries");
  if (t.nan_true.empty()) t.nan_true.assign(n, 0);
  t.leaf_target = c.attr_ints("leaf_targetids");
  t.leaf_weight = tensor_attr(c, "leaf_weights", true);
  c.require(t.leaf_target.size() == t.leaf_weight.size(), "leaf_targetids and leaf_weights must have the same length");
  t.targets = c.attr_i("n_targets", 0);
  c.require(t.targets >= 1 && t.targets <= (int64_t{1} << 31), "n_targets must be in [1, 2^31], got " + std::to_string(t.targets));
  for (int64_t id : t.leaf_target)
    c.require(id >= 0 && id < t.targets, "leaf target " + std::to_string(id) + " is out of range [0, n_targets)");
  // The members of each BRANCH_MEMBER node, in node order, each set ended by a NaN.
  std::vector<double> members = tensor_attr(c, "membership_values", false);
  size_t next = 0;
  t.members.resize(n);
  for (size_t i = 0; i < n; ++i) {
    double m = modes[i];
    c.require(m >= 0 && m <= 6, "node mode " + std::to_string(m) + " is not in [0, 6]");
    t.mode.push_back(static_cast<Branch>(static_cast<int>(m)));
    int64_t lim[2] = {t.true_leaf[i] ? static_cast<int64_t>(t.leaf_weight.size()) : static_cast<int64_t>(n),
                      t.false_leaf[i] ? static_cast<int64_t>(t.leaf_weight.size()) : static_cast<int64_t>(n)};
    c.require(t.true_id[i] >= 0 && t.true_id[i] < lim[0] && t.false_id[i] >= 0 && t.false_id[i] < lim[1],
              "node " + std::to_string(i) + " branches outside the nodes or leaves");
    if (t.mode[i] != Branch::kMember) continue;
    c.require(next < members.size(), "membership_values has no set for node " + std::to_string(i));
    while (next < members.size() && !std::isnan(members[next])) t.members[i].push_back(members[next++]);
    ++next;  // the NaN
  }
  t.roots = c.attr_ints("tree_roots");
  for (int64_t r : t.roots)
    c.require(r >= 0 && r < static_cast<int64_t>(n), "tree root " + std::to_string(r) + " is not a node");
  return t;
}

bool goes_true(const TreeNodes& t, size_t i, double x) {
  if (std::isnan(x) && t.nan_true[i]) return true;
  double s = t.split[i];
  switch (t.mode[i]) {
    case Branch::kLeq: return x <= s;
    case Branch::kLt: return x < s;
    case Branch::kGte: return x >= s;
    case Branch::kGt: return x > s;
    case Branch::kEq: return x == s;
    case Branch::kNeq: return x != s;
    case Branch::kMember:
      for (double m : t.members[i])
        if (x == m) return true;
      return false;
  }
  return false;
}

// The inverse of the standard normal CDF at p (PROBIT): sqrt(2) erfinv(2p - 1), by Newton steps
// on erf from a logistic-based start.
double probit(double p) {
  if (!(p > 0 && p < 1)) return p == 0 ? -INFINITY : p == 1 ? INFINITY : NAN;
  double y = 2 * p - 1, z = std::log((1 + y) / (1 - y)) * std::sqrt(kPi) / 4;  // erfinv start
  for (int k = 0; k < 40; ++k) {
    double step = (std::erf(z) - y) / (2 / std::sqrt(kPi) * std::exp(-z * z));
    z -= step;
    if (std::fabs(step) < 1e-15 * std::max(1.0, std::fabs(z))) break;
  }
  return std::sqrt(2.0) * z;
}

void post_transform(const OpCtx& c, int64_t kind, double* row, int64_t n) {
  switch (kind) {
    case 0: return;
    case 1:
    case 3: {  // SOFTMAX; SOFTMAX_ZERO leaves zeros at zero
      double mx = -INFINITY, sum = 0;
      for (int64_t j = 0; j < n; ++j)
        if (kind == 1 || row[j] != 0) mx = std::max(mx, row[j]);
      for (int64_t j = 0; j < n; ++j) {
        row[j] = (kind == 3 && row[j] == 0) ? 0 : std::exp(row[j] - mx);
        sum += row[j];
      }
      if (sum > 0)
        for (int64_t j = 0; j < n; ++j) row[j] /= sum;
      return;
    }
    case 2:
      for (int64_t j = 0; j < n; ++j) row[j] = 1 / (1 + std::exp(-row[j]));
      return;
    case 4:
      for (int64_t j = 0; j < n; ++j) row[j] = probit(row[j]);
      return;
    default: c.error("post_transform " + std::to_string(kind) + " is not in [0, 4]");
  }
}

void op_tree_ensemble(OpCtx& c) {
  TreeNodes t = read_trees(c);
  const RTensor& xt = c.t_rank(0, 2);
  int64_t N = xt.shape[0], F = xt.shape[1];
  int64_t agg = c.attr_i("aggregate_function", 1), post = c.attr_i("post_transform", 0);
  c.require(agg >= 0 && agg <= 3, "aggregate_function " + std::to_string(agg) + " is not in [0, 3]");
  c.require(post >= 0 && post <= 4, "post_transform " + std::to_string(post) + " is not in [0, 4]");
  for (size_t i = 0; i < t.feature.size(); ++i)
    c.require(t.feature[i] >= 0 && t.feature[i] < F, "node " + std::to_string(i) + " reads feature " +
                                                          std::to_string(t.feature[i]) + " of " + std::to_string(F));
  std::vector<double> x = f64_of(xt);
  // MIN and MAX start from the largest finite value of the output type, targets no leaf
  // reaches keep it.
  double big = xt.dtype == kDouble ? std::numeric_limits<double>::max()
               : xt.dtype == kFloat16 ? 65504.0
                                      : static_cast<double>(std::numeric_limits<float>::max());
  double init = agg == 2 ? big : agg == 3 ? -big : 0.0;
  std::vector<double> y(scratch_elems(checked_mul(N, t.targets)), init);
  size_t n_nodes = t.feature.size();
  for (int64_t b = 0; b < N; ++b) {
    const double* row = x.data() + b * F;
    double* out = y.data() + b * t.targets;
    for (int64_t root : t.roots) {
      size_t i = static_cast<size_t>(root);
      size_t leaf = 0;
      for (size_t steps = 0;; ++steps) {
        c.require(steps <= n_nodes, "the tree at root " + std::to_string(root) + " has a cycle");
        // A tree that is a single leaf: both branches name the same leaf.
        bool same = t.true_leaf[i] && t.false_leaf[i] && t.true_id[i] == t.false_id[i];
        bool right = same || goes_true(t, i, row[t.feature[i]]);
        size_t next = static_cast<size_t>(right ? t.true_id[i] : t.false_id[i]);
        if (right ? t.true_leaf[i] : t.false_leaf[i]) {
          leaf = next;
          break;
        }
        i = next;
      }
      double w = t.leaf_weight[leaf];
      double& o = out[t.leaf_target[leaf]];
      if (agg == 0) o += w / static_cast<double>(t.roots.size());
      else if (agg == 1) o += w;
      else if (agg == 2) o = std::min(o, w);
      else o = std::max(o, w);
    }
    post_transform(c, post, out, t.targets);
  }
  c.set(0, tensor_of(y, xt.dtype, {N, t.targets}));
}

bool rule_tree_ensemble(InferCtx& c) {
  const IType* x = c.t(0);
  int64_t n = c.attr_i("n_targets", 0);
  IDim batch = x && x->ranked && x->dims.size() == 2 ? x->dims[0] : IDim{};
  c.out[0] = rules::ranked(rules::elem0(c), {batch, n >= 1 ? rules::st(n) : IDim{}});
  return true;
}

}  // namespace

void register_ml_ops(Registry& r) {
  r.add("Binarizer", op_binarizer, 1, 1 << 30, true, kMl).infer(rules::same_type);
  r.add("ArrayFeatureExtractor", op_array_feature_extractor, 1, 1 << 30, false, kMl).infer(rule_array_feature_extractor);
  r.add("TreeEnsemble", op_tree_ensemble, 5, 1 << 30, false, kMl).infer(rule_tree_ensemble).traits(kMayGrow);
}

}  // namespace ofg::exec
