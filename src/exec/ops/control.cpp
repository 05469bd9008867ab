// Control flow (If, Loop, Scan) and the sequence / optional ops their bodies use.
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

void op_if(OpCtx& c) {
  bool cond = get_f64(c.t_numel(0, 1), 0) != 0;
  Graph* g = c.attr_g(cond ? "then_branch" : "else_branch");
  std::vector<RValue> outs = c.interp.run_graph(g, {}, c.frame);
  for (size_t i = 0; i < c.n_out() && i < outs.size(); ++i) c.out[i] = std::move(outs[i]);
}

// Output i of a body run as a tensor (bodies are graphs of the model: anything may come out).
const RTensor& body_tensor(const OpCtx& c, const std::vector<RValue>& outs, size_t i) {
  if (i >= outs.size() || outs[i].kind != RValue::kTensor) c.error("body output " + std::to_string(i) + " is missing or not a tensor");
  return outs[i].t;
}

RTensor stack(const OpCtx& c, const std::vector<RTensor>& parts, int64_t axis, const Shape& elem, int32_t dt) {
  // Every part is copied with the geometry of `elem`: they must all have it.
  for (const RTensor& p : parts)
    if (p.shape != elem || p.dtype != dt)
      c.error("the parts to stack differ in shape or type: " + shape_str(elem) + " and " + shape_str(p.shape));
  Shape s = elem;
  s.insert(s.begin() + axis, static_cast<int64_t>(parts.size()));
  RTensor y = RTensor::alloc(dt, s);
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= elem[i];
  for (size_t i = axis; i < elem.size(); ++i) inner *= elem[i];
  size_t es = dtype_size(dt), n = parts.size();
  for (size_t p = 0; p < n; ++p)
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(y.ptr + ((o * n + p) * inner) * es, parts[p].ptr + o * inner * es, inner * es);
  return y;
}

void op_loop(OpCtx& c) {
  Graph* body = c.attr_g("body");
  int64_t max_trip = c.has(0) ? get_i64(c.t_numel(0, 1), 0) : std::numeric_limits<int64_t>::max();
  bool cond = c.has(1) ? get_f64(c.t_numel(1, 1), 0) != 0 : true;
  if (c.n_in() < 2) c.error("needs the inputs M and cond (possibly empty)");
  size_t n_state = c.n_in() - 2;
  if (body->outputs.size < 1 + n_state || body->inputs.size != 2 + n_state)
    c.error("the body must take " + std::to_string(2 + n_state) + " inputs and return at least " + std::to_string(1 + n_state) + " outputs");
  std::vector<RValue> state;
  for (size_t i = 0; i < n_state; ++i) state.push_back(c.in[2 + i] ? *c.in[2 + i] : RValue{});
  size_t n_scan = body->outputs.size - 1 - n_state;
  std::vector<std::vector<RTensor>> scans(n_scan);
  for (int64_t it = 0; it < max_trip && cond; ++it) {
    std::vector<RValue> args;
    args.push_back(RValue::tensor(make_i64({it}, {})));
    RTensor cv = RTensor::alloc(kBool, {});
    cv.data<bool>()[0] = cond;
    args.push_back(RValue::tensor(cv));
    for (auto& s : state) args.push_back(s);
    std::vector<RValue> outs = c.interp.run_graph(body, args, c.frame);
    if (outs.size() < 1 + n_state + n_scan) c.error("the body returned too few outputs");
    const RTensor& cout = body_tensor(c, outs, 0);
    if (cout.numel() < 1) c.error("the body's condition output is empty");
    cond = get_f64(cout, 0) != 0;
    for (size_t i = 0; i < n_state; ++i) state[i] = outs[1 + i];
    for (size_t i = 0; i < n_scan; ++i) scans[i].push_back(body_tensor(c, outs, 1 + n_state + i));
  }
  for (size_t i = 0; i < n_state && i < c.n_out(); ++i) c.out[i] = state[i];
  for (size_t i = 0; i < n_scan; ++i) {
    if (n_state + i >= c.n_out()) break;
    if (scans[i].empty()) {
      c.set(n_state + i, RTensor::alloc(kFloat, {0}));
      continue;
    }
    c.set(n_state + i, stack(c, scans[i], 0, scans[i][0].shape, scans[i][0].dtype));
  }
}

void op_scan(OpCtx& c) {
  Graph* body = c.attr_g("body");
  int64_t n_scan_in = c.attr_i("num_scan_inputs", 0);
  bool v8 = c.opset < 9;
  size_t first = v8 ? 1 : 0;  // Scan-8 has a sequence_lens input first and a batch axis
  if (n_scan_in < 1 || static_cast<size_t>(n_scan_in) > c.n_in() - std::min(c.n_in(), first))
    c.error("num_scan_inputs " + std::to_string(n_scan_in) + " does not fit the " + std::to_string(c.n_in()) + " inputs");
  size_t n_state = c.n_in() - first - n_scan_in;
  std::vector<int64_t> in_axes = c.attr_ints("scan_input_axes"), out_axes = c.attr_ints("scan_output_axes");
  std::vector<int64_t> in_dirs = c.attr_ints(v8 ? "directions" : "scan_input_directions"), out_dirs = c.attr_ints("scan_output_directions");
  if (body->outputs.size < n_state || body->inputs.size != n_state + n_scan_in)
    c.error("the body does not take the state and scan inputs or return the state");
  size_t n_scan_out = body->outputs.size - n_state;
  if ((!in_axes.empty() && in_axes.size() != static_cast<size_t>(n_scan_in)) ||
      (!in_dirs.empty() && in_dirs.size() != static_cast<size_t>(n_scan_in)) ||
      (!out_axes.empty() && out_axes.size() != n_scan_out) || (!out_dirs.empty() && out_dirs.size() != n_scan_out))
    c.error("scan axes / directions attributes do not match the scan inputs and outputs");
  // Scan-8 runs each batch element separately: every state and scan input leads with the batch.
  int64_t batch = v8 ? c.t_rank(first, 1, 64).shape[0] : 1;
  for (size_t i = first; v8 && i < c.n_in(); ++i)
    if (c.t_rank(i, 1, 64).shape[0] != batch) c.error("inputs differ in their batch dim");
  if (batch < 1) c.error("the batch is empty");
  std::vector<std::vector<RTensor>> final_state(n_state), final_scan(n_scan_out);
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<RValue> state;
    for (size_t i = 0; i < n_state; ++i) {
      RTensor s = c.t(first + i);
      if (v8) {
        Shape es(s.shape.begin() + 1, s.shape.end());
        RTensor e = RTensor::alloc(s.dtype, es);
        std::memcpy(e.ptr, s.ptr + b * e.nbytes(), e.nbytes());
        s = e;
      }
      state.push_back(RValue::tensor(s));
    }
    std::vector<RTensor> xs;
    std::vector<int64_t> axes;
    int64_t T = 0;
    for (int64_t j = 0; j < n_scan_in; ++j) {
      RTensor x = c.t(first + n_state + j);
      if (v8) {
        Shape es(x.shape.begin() + 1, x.shape.end());
        RTensor e = RTensor::alloc(x.dtype, es);
        std::memcpy(e.ptr, x.ptr + b * e.nbytes(), e.nbytes());
        x = e;
      }
      if (x.rank() < 1) c.error("scan input " + std::to_string(j) + " is a scalar");
      int64_t ax = in_axes.empty() || v8 ? 0 : norm_axis(c, in_axes[j], x.rank());
      // Move the scan axis first so each step is a contiguous slab.
      if (ax != 0) {
        std::vector<size_t> perm;
        perm.push_back(ax);
        for (int i = 0; i < x.rank(); ++i) if (i != ax) perm.push_back(i);
        Shape s;
        for (auto p : perm) s.push_back(x.shape[p]);
        RTensor t = RTensor::alloc(x.dtype, s);
        kernels::transpose(x.ptr, t.ptr, x.elem_size(), x.shape.data(), perm.data(), perm.size());
        x = t;
      }
      if (j > 0 && x.shape[0] != T) c.error("scan inputs differ in their sequence length");
      T = x.shape[0];
      xs.push_back(x);
    }
    std::vector<std::vector<RTensor>> scans(n_scan_out);
    for (int64_t t = 0; t < T; ++t) {
      std::vector<RValue> args = state;
      for (int64_t j = 0; j < n_scan_in; ++j) {
        bool rev = !in_dirs.empty() && in_dirs[j] == 1;
        int64_t step = rev ? T - 1 - t : t;
        Shape es(xs[j].shape.begin() + 1, xs[j].shape.end());
        RTensor e = RTensor::alloc(xs[j].dtype, es);
        std::memcpy(e.ptr, xs[j].ptr + step * e.nbytes(), e.nbytes());
        args.push_back(RValue::tensor(e));
      }
      std::vector<RValue> outs = c.interp.run_graph(body, args, c.frame);
      for (size_t i = 0; i < n_state; ++i) state[i] = RValue::tensor(body_tensor(c, outs, i));
      for (size_t i = 0; i < n_scan_out; ++i) scans[i].push_back(body_tensor(c, outs, n_state + i));
    }
    for (size_t i = 0; i < n_state; ++i) final_state[i].push_back(state[i].t);
    for (size_t i = 0; i < n_scan_out; ++i) {
      bool rev = !out_dirs.empty() && out_dirs[i] == 1;
      if (rev) std::reverse(scans[i].begin(), scans[i].end());
      Shape es = scans[i].empty() ? Shape{} : scans[i][0].shape;
      int32_t dt = scans[i].empty() ? kFloat : scans[i][0].dtype;
      int64_t ax = out_axes.empty() || v8 ? 0 : norm_axis(c, out_axes[i], static_cast<int64_t>(es.size()) + 1);
      final_scan[i].push_back(stack(c, scans[i], ax, es, dt));
    }
  }
  for (size_t i = 0; i < n_state; ++i)
    c.set(i, v8 ? stack(c, final_state[i], 0, final_state[i][0].shape, final_state[i][0].dtype) : final_state[i][0]);
  for (size_t i = 0; i < n_scan_out; ++i)
    c.set(n_state + i, v8 ? stack(c, final_scan[i], 0, final_scan[i][0].shape, final_scan[i][0].dtype) : final_scan[i][0]);
}

// ---------------------------------------------------------------- sequences and optionals

RValue seq_of(std::vector<RTensor> ts, int32_t dt) {
  RValue v;
  v.kind = RValue::kSequence;
  v.seq = std::move(ts);
  v.seq_elem_type = dt;
  return v;
}
const RValue& seq_in(OpCtx& c, size_t i) {
  if (i >= c.n_in() || !c.in[i] || c.in[i]->kind != RValue::kSequence) c.error("input " + std::to_string(i) + " is not a sequence");
  return *c.in[i];
}

void op_seq_construct(OpCtx& c) {
  std::vector<RTensor> ts;
  for (size_t i = 0; i < c.n_in(); ++i) ts.push_back(c.t(i));
  c.out[0] = seq_of(ts, ts.empty() ? kFloat : ts[0].dtype);
}
void op_seq_empty(OpCtx& c) { c.out[0] = seq_of({}, static_cast<int32_t>(c.attr_i("dtype", kFloat))); }
int64_t seq_pos(OpCtx& c, size_t input, int64_t n, bool insert) {
  int64_t p = get_i64(c.t_numel(input, 1), 0);
  if (p < 0) p += n;
  if (p < 0 || p > n || (!insert && p == n)) c.error("sequence position out of range");
  return p;
}
void op_seq_at(OpCtx& c) {
  const RValue& s = seq_in(c, 0);
  c.set(0, s.seq[seq_pos(c, 1, static_cast<int64_t>(s.seq.size()), false)]);
}
void op_seq_insert(OpCtx& c) {
  RValue s = seq_in(c, 0);
  int64_t p = c.has(2) ? seq_pos(c, 2, static_cast<int64_t>(s.seq.size()), true) : static_cast<int64_t>(s.seq.size());
  s.seq.insert(s.seq.begin() + p, c.t(1));
  c.out[0] = s;
}
void op_seq_erase(OpCtx& c) {
  RValue s = seq_in(c, 0);
  int64_t p = c.has(1) ? seq_pos(c, 1, static_cast<int64_t>(s.seq.size()), false) : static_cast<int64_t>(s.seq.size()) - 1;
  s.seq.erase(s.seq.begin() + p);
  c.out[0] = s;
}
void op_seq_length(OpCtx& c) { c.set(0, make_i64({static_cast<int64_t>(seq_in(c, 0).seq.size())}, {})); }

void op_concat_from_seq(OpCtx& c) {
  const RValue& s = seq_in(c, 0);
  int64_t axis = c.attr_i("axis", 0);
  bool new_axis = c.attr_i("new_axis", 0) != 0;
  if (s.seq.empty()) c.error("the sequence is empty");
  const Shape& e = s.seq.at(0).shape;
  int64_t r = static_cast<int64_t>(e.size()) + (new_axis ? 1 : 0);
  axis = norm_axis(c, axis, r);
  if (new_axis) {
    c.set(0, stack(c, s.seq, axis, e, s.seq[0].dtype));
    return;
  }
  Shape out = e;
  out[axis] = 0;
  for (auto& t : s.seq) {
    bool same = t.rank() == static_cast<int>(e.size()) && t.dtype == s.seq[0].dtype;
    for (int64_t i = 0; same && i < r; ++i) same = i == axis || t.shape[i] == e[i];
    if (!same) c.error("the elements differ in a dim other than the axis or in type");
    out[axis] = checked_add(out[axis], t.shape[axis]);
  }
  RTensor y = RTensor::alloc(s.seq[0].dtype, out);
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= out[i];
  size_t es = y.elem_size(), orow = outer ? y.nbytes() / outer : 0, off = 0;
  for (auto& t : s.seq) {
    size_t row = outer ? t.nbytes() / outer : 0;
    for (int64_t o = 0; o < outer; ++o) std::memcpy(y.ptr + o * orow + off, t.ptr + o * row, row);
    off += row;
  }
  (void)es;
  c.set(0, y);
}

void op_split_to_seq(OpCtx& c) {
  const RTensor& x = c.t(0);
  int64_t axis = norm_axis(c, c.attr_i("axis", 0), x.rank());
  bool keep = c.attr_i("keepdims", 1) != 0;
  std::vector<int64_t> sizes;
  int64_t dim = x.shape[axis];
  bool scalar_split = false;
  if (c.has(1)) {
    const RTensor& sp = c.t(1);
    if (sp.rank() == 0) {
      int64_t k = get_i64(sp, 0);
      if (k < 1) c.error("split must be positive, got " + std::to_string(k));
      for (int64_t s = 0; s < dim; s += std::min(k, dim - s)) sizes.push_back(std::min(k, dim - s));
    } else {
      sizes = to_i64_vec(sp);
      int64_t total = 0;
      for (int64_t v : sizes) total = checked_add(total, c.size_value(v, "a split size"));
      if (total != dim) c.error("split sizes add up to " + std::to_string(total) + ", the axis has " + std::to_string(dim));
    }
  } else {
    sizes.assign(dim, 1);
    scalar_split = true;
  }
  std::vector<RTensor> parts;
  int64_t start = 0, outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= x.shape[i];
  for (int64_t i = axis + 1; i < x.rank(); ++i) inner *= x.shape[i];
  size_t es = x.elem_size();
  for (int64_t len : sizes) {
    Shape s = x.shape;
    s[axis] = len;
    RTensor y = RTensor::alloc(x.dtype, s);
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(y.ptr + o * len * inner * es, x.ptr + (o * dim + start) * inner * es, len * inner * es);
    if (scalar_split && !keep) {
      s.erase(s.begin() + axis);
      y = y.reshaped(s);
    }
    parts.push_back(y);
    start += len;
  }
  c.out[0] = seq_of(parts, x.dtype);
}

// SequenceMap: the body runs once per element of the first sequence; other sequence inputs give
// their element of the same position, tensor inputs are passed whole every time.
void op_seq_map(OpCtx& c) {
  const size_t n = seq_in(c, 0).seq.size();
  for (size_t i = 1; i < c.n_in(); ++i)
    if (c.in[i] && c.in[i]->kind == RValue::kSequence && c.in[i]->seq.size() != n)
      c.error("sequence input " + std::to_string(i) + " has " + std::to_string(c.in[i]->seq.size()) +
              " elements, the first has " + std::to_string(n));
  Graph* body = c.attr_g("body");
  std::vector<std::vector<RTensor>> outs(c.n_out());
  for (size_t k = 0; k < n; ++k) {
    std::vector<RValue> args;
    for (size_t i = 0; i < c.n_in(); ++i) {
      if (!c.in[i]) args.emplace_back();
      else if (c.in[i]->kind == RValue::kSequence) args.push_back(RValue::tensor(c.in[i]->seq[k]));
      else args.push_back(*c.in[i]);
    }
    std::vector<RValue> res = c.interp.run_graph(body, args, c.frame);
    for (size_t j = 0; j < outs.size() && j < res.size(); ++j) {
      if (res[j].kind != RValue::kTensor) c.error("the body output " + std::to_string(j) + " is not a tensor");
      outs[j].push_back(res[j].t);
    }
  }
  for (size_t j = 0; j < outs.size(); ++j) {
    // An empty result still needs its element type: the body output declares it.
    int32_t dt = kFloat;
    if (!outs[j].empty()) dt = outs[j][0].dtype;
    else if (j < body->outputs.size) {
      const ValueInfo& vi = body->outputs[j];
      const Type* t = vi.type ? vi.type : vi.value->type;
      if (t && t->kind == Type::kTensor && t->has_elem_type) dt = t->elem_type;
    }
    c.out[j] = seq_of(std::move(outs[j]), dt);
  }
}

void op_optional(OpCtx& c) {
  if (c.has(0)) c.out[0] = *c.in[0];
  else c.out[0].kind = RValue::kOptionalNone;
}
void op_optional_has(OpCtx& c) {
  RTensor y = RTensor::alloc(kBool, {});
  y.data<bool>()[0] = c.has(0);
  c.set(0, y);
}
void op_optional_get(OpCtx& c) {
  if (!c.has(0)) c.error("optional has no element");
  c.out[0] = *c.in[0];
}

}  // namespace

void register_control_ops(Registry& r) {
  r.add("If", op_if, 1, 1 << 30, false).no_rule();
  r.add("Loop", op_loop, 1, 1 << 30, false).no_rule();
  r.add("Scan", op_scan, 8, 1 << 30, false).no_rule();
  r.add("SequenceConstruct", op_seq_construct, 1, 1 << 30, false).no_rule();
  r.add("SequenceEmpty", op_seq_empty, 1, 1 << 30, false).no_rule();
  r.add("SequenceAt", op_seq_at, 1, 1 << 30, false).no_rule();
  r.add("SequenceInsert", op_seq_insert, 1, 1 << 30, false).no_rule();
  r.add("SequenceErase", op_seq_erase, 1, 1 << 30, false).no_rule();
  r.add("SequenceLength", op_seq_length, 1, 1 << 30, false).no_rule();
  r.add("ConcatFromSequence", op_concat_from_seq, 1, 1 << 30, false).no_rule();
  r.add("SplitToSequence", op_split_to_seq, 1, 1 << 30, false).no_rule();
  r.add("SequenceMap", op_seq_map, 17, 1 << 30, false).no_rule();
  r.add("Optional", op_optional, 1, 1 << 30, false).no_rule();
  r.add("OptionalHasElement", op_optional_has, 1, 1 << 30, false).no_rule();
  r.add("OptionalGetElement", op_optional_get, 1, 1 << 30, false).no_rule();
}


}  // namespace ofg::exec
