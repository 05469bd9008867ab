// Permutations of axes: Transpose, DepthToSpace and SpaceToDepth (all through kernels::transpose).
#include "exec/infer_rules.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

RTensor transpose(const RTensor& x, const std::vector<size_t>& perm) {
  Shape s(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) s[i] = x.shape[perm[i]];
  // The kernel writes every element: no zero fill (folding transposes whole weight matrices).
  RTensor y = RTensor::alloc_uninit(x.dtype, s);
  if (x.numel()) kernels::transpose(x.ptr, y.ptr, x.elem_size(), x.shape.data(), perm.data(), perm.size());
  return y;
}

// A Transpose of an initializer (weights stored [N, K] and turned to [K, N] before a MatMul, as
// exporters often leave them) gives the same bytes on every run: it is done once per model and
// kept in the interpreter's cache; the output views the cached bytes.
RTensor transpose_maybe_cached(OpCtx& c, const RTensor& x, const std::vector<size_t>& perm) {
  const Value* xv = c.node.inputs.size > 0 ? c.node.inputs[0] : nullptr;
  ExecCache* cache = c.interp.cache();
  if (!cache || !xv || !xv->is_constant() || x.numel() == 0) return transpose(x, perm);
  uint64_t tag = 0x54524E5350ull;  // "TRNSP": apart from the other users of the cache
  for (size_t p : perm) tag = tag * 0x100000001B3ull ^ p;
  Shape s(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) s[i] = x.shape[perm[i]];
  std::shared_ptr<uint8_t> bytes = cache->hold(xv->initializer->bytes().data, tag, x.nbytes(), [&](uint8_t* dst) {
    kernels::transpose(x.ptr, dst, x.elem_size(), x.shape.data(), perm.data(), perm.size());
  });
  return RTensor::view(x.dtype, s, bytes.get(), bytes);
}

void op_transpose(OpCtx& c) {
  const RTensor& x = c.t(0);
  std::vector<int64_t> p = c.attr_ints("perm");
  std::vector<size_t> perm(x.rank());
  if (p.empty()) {
    for (int i = 0; i < x.rank(); ++i) perm[i] = x.rank() - 1 - i;
  } else {
    if (static_cast<int>(p.size()) != x.rank()) c.error("perm has the wrong length");
    std::vector<bool> seen(x.rank(), false);
    for (int i = 0; i < x.rank(); ++i) {
      perm[i] = static_cast<size_t>(norm_axis(c, p[i], x.rank()));
      if (seen[perm[i]]) c.error("perm repeats axis " + std::to_string(p[i]));
      seen[perm[i]] = true;
    }
  }
  c.set(0, transpose_maybe_cached(c, x, perm));
}

template <bool to_space>  // DepthToSpace, else SpaceToDepth
void op_depth_space(OpCtx& c) {
  const RTensor& x = c.t(0);
  int64_t b = c.attr_i("blocksize", 1);
  if (x.rank() != 4) c.error("input must have rank 4, got shape " + shape_str(x.shape));
  if (b < 1 || b > (1 << 20)) c.error("blocksize must be positive, got " + std::to_string(b));
  int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  if (to_space ? C % (b * b) != 0 : (H % b != 0 || W % b != 0))
    c.error("blocksize " + std::to_string(b) + " does not divide the dims of " + shape_str(x.shape));
  RTensor y;
  if (to_space) {
    bool crd = c.attr_s("mode", "DCR") == "CRD";
    int64_t Co = C / (b * b);
    RTensor v = crd ? x.reshaped({N, Co, b, b, H, W}) : x.reshaped({N, b, b, Co, H, W});
    std::vector<size_t> perm = crd ? std::vector<size_t>{0, 1, 4, 2, 5, 3} : std::vector<size_t>{0, 3, 4, 1, 5, 2};
    Shape s(6);
    for (int i = 0; i < 6; ++i) s[i] = v.shape[perm[i]];
    y = RTensor::alloc(x.dtype, s);
    kernels::transpose(v.ptr, y.ptr, x.elem_size(), v.shape.data(), perm.data(), 6);
    c.set(0, y.reshaped({N, Co, H * b, W * b}));
  } else {
    RTensor v = x.reshaped({N, C, H / b, b, W / b, b});
    std::vector<size_t> perm{0, 3, 5, 1, 2, 4};
    Shape s(6);
    for (int i = 0; i < 6; ++i) s[i] = v.shape[perm[i]];
    y = RTensor::alloc(x.dtype, s);
    kernels::transpose(v.ptr, y.ptr, x.elem_size(), v.shape.data(), perm.data(), 6);
    c.set(0, y.reshaped({N, C * b * b, H / b, W / b}));
  }
}

}  // namespace

RTensor transpose_tensor(const RTensor& x, const std::vector<size_t>& perm) { return transpose(x, perm); }

namespace rules {

bool rule_transpose(InferCtx& c) {
  const IType* x = c.t(0);
  if (!x || !x->ranked) return unknown_output(c);
  std::vector<int64_t> perm;
  size_t r = x->dims.size();
  if (!c.attr_ints("perm", perm)) for (size_t i = 0; i < r; ++i) perm.push_back(static_cast<int64_t>(r - 1 - i));
  if (perm.size() != r) return false;
  std::vector<IDim> dims;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(r)) return false;
    dims.push_back(x->dims[p]);
  }
  c.out[0] = ranked(x->elem, dims);
  return true;
}

}  // namespace rules

void register_transpose_ops(Registry& r) {
  r.add("Transpose", op_transpose, 1, 1 << 30, false).infer(rules::rule_transpose);
  r.add("DepthToSpace", op_depth_space<true>, 1, 1 << 30, false).no_rule();
  r.add("SpaceToDepth", op_depth_space<false>, 1, 1 << 30, false).no_rule();
}

}  // namespace ofg::exec
