// Integer quantization: QuantizeLinear / DequantizeLinear (per tensor, per axis, blocked; the
// 8/16/32-bit integer types), DynamicQuantizeLinear, MatMulInteger, ConvInteger, QLinearMatMul,
// QLinearConv, and BitCast. float8 / int4 types stay unsupported (excluded from the targets).
#include <limits>

#include "exec/ops/int_gemm.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

bool int_range(int32_t dt, double& lo, double& hi) {
  switch (dt) {
    case kInt8: lo = -128; hi = 127; return true;
    case kUint8: lo = 0; hi = 255; return true;
    case kInt16: lo = -32768; hi = 32767; return true;
    case kUint16: lo = 0; hi = 65535; return true;
    case kInt32: lo = -2147483648.0; hi = 2147483647.0; return true;
    case kUint32: lo = 0; hi = 4294967295.0; return true;
    default: return false;
  }
}

// Index into scale / zero point for element i of x: per tensor, per axis or blocked.
struct QuantIndex {
  int mode = 0;  // 0 tensor, 1 axis, 2 blocked
  int64_t axis = 0, block = 0;
  std::vector<int64_t> xst, sst;
  Shape xs, ss;
  int64_t operator()(int64_t i) const {
    if (mode == 0) return 0;
    if (mode == 1) return (i / xst[static_cast<size_t>(axis)]) % xs[static_cast<size_t>(axis)];
    int64_t o = 0;
    for (size_t a = 0; a < xs.size(); ++a) {
      int64_t k = (i / xst[a]) % xs[a];
      if (static_cast<int64_t>(a) == axis) k /= block;
      o += k * sst[a];
    }
    return o;
  }
};

QuantIndex quant_index(const OpCtx& c, const RTensor& x, const RTensor& scale) {
  QuantIndex q;
  if (scale.numel() == 1 && scale.rank() <= 1 && c.attr_i("block_size", 0) == 0) return q;
  if (c.attr_i("block_size", 0) < 0) c.error("block_size must not be negative");
  q.axis = norm_axis(c, c.attr_i("axis", 1), x.rank());
  q.block = c.attr_i("block_size", 0);
  q.xs = x.shape;
  q.xst = strides_of(x.shape);
  if (q.block > 0) {
    q.mode = 2;
    if (scale.rank() != x.rank()) c.error("blocked quantization needs a scale of the input's rank");
    // Each input element reads scale element (k / block) on the axis, k elsewhere.
    for (int a = 0; a < x.rank(); ++a) {
      int64_t need = a == q.axis ? (x.shape[a] + q.block - 1) / q.block : x.shape[a];
      if (scale.shape[a] != need) c.error("scale " + shape_str(scale.shape) + " does not match blocks of " + std::to_string(q.block) + " over " + shape_str(x.shape));
    }
    q.ss = scale.shape;
    q.sst = strides_of(scale.shape);
  } else {
    q.mode = 1;
    if (scale.numel() != x.shape[static_cast<size_t>(q.axis)]) c.error("per-axis scale length does not match the axis");
  }
  return q;
}

// Calls f(first element, run length, scale/zero index) over x in runs that share one scale and
// zero point: the whole tensor per tensor, runs of the axis' inner size per axis. False for
// blocked quantization (the per-element path handles it).
template <class F>
bool for_each_quant_run(const QuantIndex& qi, const RTensor& x, F&& f) {
  if (qi.mode == 0) {
    f(int64_t{0}, x.numel(), int64_t{0});
    return true;
  }
  if (qi.mode != 1) return false;
  const int64_t len = qi.xs[static_cast<size_t>(qi.axis)], inner = qi.xst[static_cast<size_t>(qi.axis)];
  const int64_t outer = len * inner == 0 ? 0 : x.numel() / (len * inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < len; ++k) f((o * len + k) * inner, inner, k);
  return true;
}

bool is_8bit(int32_t dt) { return dt == kUint8 || dt == kInt8; }

void op_quantize(OpCtx& c) {
  const RTensor& x = c.t(0);
  const RTensor& scale = c.t(1);
  int32_t odt = kUint8;
  if (c.has(2)) odt = c.t(2).dtype;
  else if (c.attr_i("output_dtype", 0) != 0) odt = static_cast<int32_t>(c.attr_i("output_dtype", 0));
  double lo, hi;
  if (!int_range(odt, lo, hi)) fail(Status::kUnsupported, c.where() + ": quantization to " + dtype_name(odt) + " is not supported");
  QuantIndex qi = quant_index(c, x, scale);
  RTensor y = RTensor::alloc(odt, x.shape);
  bool zp = c.has(2);
  if (zp && c.t(2).shape != scale.shape) c.error("the zero point must have the shape of the scale");
  const kernels::KernelTable& kt = kernels::active_table();
  if (x.dtype == kFloat && scale.dtype == kFloat && is_8bit(odt) &&
      for_each_quant_run(qi, x, [&](int64_t i0, int64_t n, int64_t k) {
        const float z = zp ? static_cast<float>(get_f64(c.t(2), k)) : 0.f;
        kt.quantize_u8(x.data<float>() + i0, static_cast<size_t>(n), scale.data<float>()[k], z, odt == kInt8,
                       y.data<uint8_t>() + i0);
      })) {
    c.set(0, y);
    return;
  }
  for (int64_t i = 0, n = x.numel(); i < n; ++i) {
    int64_t k = qi(i);
    // The division is done in float32 like the reference so ties round identically.
    double v = static_cast<float>(static_cast<float>(get_f64(x, i)) / static_cast<float>(get_f64(scale, k)));
    v = std::nearbyint(v) + (zp ? get_f64(c.t(2), k) : 0.0);
    set_f64(y, i, std::min(std::max(v, lo), hi));
  }
  c.set(0, y);
}

// Per-axis dequantization along the last axis (weights [K, N] with a scale per column): a run of
// one element per scale would be one kernel call per element, so each row is converted whole
// (dequantize_u8 with scale 1, zero 0: exact) and then x - zero and * scale run as vector ops
// against the rows of zeros and scales: (x - z) is exact in float, so the one rounding of the
// product is the per-element formula's. False when this is not that case.
bool last_axis_rows(OpCtx& c, const QuantIndex& qi, const RTensor& x, const RTensor& scale, RTensor& y, bool zp) {
  if (qi.mode != 1 || !is_8bit(x.dtype) || scale.dtype != kFloat || y.dtype != kFloat) return false;
  const int64_t len = qi.xs[static_cast<size_t>(qi.axis)], inner = qi.xst[static_cast<size_t>(qi.axis)];
  if (inner != 1 || len < 2 || x.numel() == 0) return false;
  const kernels::KernelTable& kt = kernels::active_table();
  std::vector<float> zeros(static_cast<size_t>(len), 0.f);
  if (zp)
    for (int64_t k = 0; k < len; ++k) zeros[static_cast<size_t>(k)] = static_cast<float>(get_f64(c.t(2), k));
  const size_t n = static_cast<size_t>(len);
  for (int64_t o = 0, rows = x.numel() / len; o < rows; ++o) {
    float* row = y.data<float>() + o * len;
    kt.dequantize_u8(x.data<uint8_t>() + o * len, n, x.dtype == kInt8, 0, 1.f, row);
    if (zp) kt.binary_vv(kernels::BinaryOp::Sub, row, zeros.data(), row, n);
    kt.binary_vv(kernels::BinaryOp::Mul, row, scale.data<float>(), row, n);
  }
  return true;
}

void op_dequantize(OpCtx& c) {
  const RTensor& x = c.t(0);
  const RTensor& scale = c.t(1);
  int32_t odt = scale.dtype;
  if (c.attr_i("output_dtype", 0) != 0) odt = static_cast<int32_t>(c.attr_i("output_dtype", 0));
  double lo, hi;
  if (!int_range(x.dtype, lo, hi)) fail(Status::kUnsupported, c.where() + ": dequantization of " + dtype_name(x.dtype) + " is not supported");
  QuantIndex qi = quant_index(c, x, scale);
  bool zp = c.has(2);
  if (zp && c.t(2).shape != scale.shape) c.error("the zero point must have the shape of the scale");
  RTensor y = RTensor::alloc(odt == kFloat16 || odt == kBfloat16 ? kFloat : odt, x.shape);
  const kernels::KernelTable& kt = kernels::active_table();
  if (last_axis_rows(c, qi, x, scale, y, zp)) {
    if (y.dtype != odt) y = cast_tensor(y, odt);
    c.set(0, y);
    return;
  }
  const bool fast = is_8bit(x.dtype) && scale.dtype == kFloat && y.dtype == kFloat &&
                    for_each_quant_run(qi, x, [&](int64_t i0, int64_t n, int64_t k) {
                      const int32_t z = zp ? static_cast<int32_t>(get_f64(c.t(2), k)) : 0;
                      kt.dequantize_u8(x.data<uint8_t>() + i0, static_cast<size_t>(n), x.dtype == kInt8, z,
                                       scale.data<float>()[k], y.data<float>() + i0);
                    });
  for (int64_t i = 0, n = fast ? 0 : x.numel(); i < n; ++i) {
    int64_t k = qi(i);
    float d = static_cast<float>(get_f64(x, i) - (zp ? get_f64(c.t(2), k) : 0.0));
    set_f64(y, i, static_cast<float>(d * static_cast<float>(get_f64(scale, k))));
  }
  if (y.dtype != odt) y = cast_tensor(y, odt);
  c.set(0, y);
}

void op_dynamic_quantize(OpCtx& c) {
  const RTensor& x = c.t(0);
  const int64_t n = x.numel();
  const kernels::KernelTable& kt = kernels::active_table();
  // The range always includes 0; NaN inputs are skipped (the SIMD reduction propagates them, so
  // a NaN result falls back to the loop that skips them).
  float mn = 0, mx = 0, r[2] = {0, 0};
  if (x.dtype == kFloat && n > 0) {
    kt.reduce(kernels::ReduceOp::Min, x.data<float>(), r, 1, static_cast<size_t>(n), 1);
    kt.reduce(kernels::ReduceOp::Max, x.data<float>(), r + 1, 1, static_cast<size_t>(n), 1);
  }
  if (x.dtype == kFloat && !std::isnan(r[0]) && !std::isnan(r[1])) {
    mn = std::min(mn, r[0]);
    mx = std::max(mx, r[1]);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      float v = static_cast<float>(get_f64(x, i));
      mn = std::min(mn, v);
      mx = std::max(mx, v);
    }
  }
  float scale = (mx - mn) / 255.f;
  float zpf = scale == 0 ? 0.f : std::nearbyint(std::min(std::max(-mn / scale, 0.f), 255.f));
  RTensor y = RTensor::alloc(kUint8, x.shape);
  if (scale != 0 && x.dtype == kFloat) {
    // NaN quantizes to 0 here as in the loop below (where the float-to-integer conversion of x86
    // gives 0 for it).
    kt.quantize_u8(x.data<float>(), static_cast<size_t>(n), scale, zpf, false, y.data<uint8_t>());
  } else {
    for (int64_t i = 0; i < n; ++i) {
      float v = scale == 0 ? 0.f : std::nearbyint(static_cast<float>(get_f64(x, i)) / scale) + zpf;
      y.data<uint8_t>()[i] = std::isnan(v) ? 0 : static_cast<uint8_t>(std::min(std::max(v, 0.f), 255.f));
    }
  }
  RTensor s = RTensor::alloc(kFloat, {});
  s.data<float>()[0] = scale;
  RTensor z = RTensor::alloc(kUint8, {});
  z.data<uint8_t>()[0] = static_cast<uint8_t>(zpf);
  c.set(0, y);
  c.set(1, s);
  c.set(2, z);
}

// A zero point's values (one, or `n`) as int32, repeated to n; it must have its operand's type.
std::vector<int32_t> zero_points(const OpCtx& c, const RTensor* z, const RTensor& of, int64_t n) {
  std::vector<int32_t> v(static_cast<size_t>(n), 0);
  if (!z) return v;
  if (z->dtype != of.dtype) c.error("a zero point must have the type of its operand");
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<int32_t>(get_f64(*z, z->numel() == 1 ? 0 : i));
  return v;
}

// int_gemm_threads for a 2-D B that keeps its bytes across runs (the weights of MatMulInteger and
// QLinearMatMul; input b_input): B is packed once per model and kept in the run's cache, as float
// MatMul's is, and the kernel splits the product over the threads along it. Exact, so the values
// are int_gemm's. False when this does not apply (no packed form in the table, K past one igemm
// call, B not constant).
bool int_gemm_shared_b(OpCtx& c, size_t b_input, size_t M, size_t N, size_t K, IntSpan A, const int32_t* za,
                       IntSpan B, const int32_t* zb, int32_t* C) {
  const kernels::KernelTable& kt = kernels::active_table();
  const size_t bytes = M > 1 && K <= kIntGemmMaxK ? kt.igemm_packed_b_size(K, N) : 0;
  const void* key = bytes ? c.constant_key(b_input) : nullptr;
  if (!key) return false;
  const uint64_t tag = ((0x49474D4D42ull * 0x100000001B3ull ^ static_cast<uint64_t>(K)) * 0x100000001B3ull ^
                        static_cast<uint64_t>(N)) * 0x100000001B3ull ^ (B.is_signed ? 1u : 0u);  // "IGMMB", K, N, sign
  const uint8_t* packed = c.interp.cache()->get(key, tag, bytes, [&](uint8_t* dst) {
    kt.igemm_pack_b(K, N, B.data, N, B.is_signed, dst);
  });
  kt.igemm_prepacked_b(M, N, K, A.data, K, A.is_signed, za, packed, B.is_signed, zb, C, N);
  return true;
}

// Broadcast batched matmul of (a - za) and (b - zb), exact in int32 (saturated beyond); zero
// points per tensor, per row of a (length M) or per column of b (length N). b is input b_input.
RTensor int_matmul(OpCtx& c, const RTensor& a, const RTensor* za, const RTensor& b, size_t b_input, const RTensor* zb,
                   Shape& out_shape) {
  if (a.rank() < 1 || b.rank() < 1) c.error("A and B must have rank >= 1");
  Shape as = a.shape, bs = b.shape;
  bool a1 = as.size() == 1, b1 = bs.size() == 1;
  if (a1) as.insert(as.begin(), 1);
  if (b1) bs.push_back(1);
  int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  if (bs[bs.size() - 2] != K) c.error("inner dimensions do not match");
  Shape abat(as.begin(), as.end() - 2), bbat(bs.begin(), bs.end() - 2);
  Shape bat = broadcast_shapes(c, {abat, bbat});
  out_shape = bat;
  if (!a1) out_shape.push_back(M);
  if (!b1) out_shape.push_back(N);
  int64_t nb = shape_numel(bat);
  if (za && za->numel() != 1 && za->numel() != M) c.error("a_zero_point must have 1 or M values");
  if (zb && zb->numel() != 1 && zb->numel() != N) c.error("b_zero_point must have 1 or N values");
  const IntSpan sa = int_span(a), sb = int_span(b);
  // Every element is written by int_gemm.
  RTensor out = RTensor::alloc_uninit(kInt32, out_shape);
  std::vector<int64_t> aoff, boff;
  broadcast_each(bat, {abat, bbat}, [&](int64_t, const int64_t* off) {
    aoff.push_back(off[0]);
    boff.push_back(off[1]);
  });
  if (nb == 1 && aoff.empty()) { aoff.push_back(0); boff.push_back(0); }
  const std::vector<int32_t> zav = zero_points(c, za, a, M), zbv = zero_points(c, zb, b, N);
  const bool shared_b = bbat.empty() && !b1;  // the same 2-D B for every product
  for (int64_t q = 0; q < nb; ++q) {
    const IntSpan aq{sa.data + aoff[q] * M * K, sa.is_signed};
    int32_t* cq = out.data<int32_t>() + q * M * N;
    if (shared_b && int_gemm_shared_b(c, b_input, M, N, K, aq, zav.data(), sb, zbv.data(), cq)) continue;
    int_gemm_threads(M, N, K, aq, K, zav.data(), {sb.data + boff[q] * K * N, sb.is_signed}, N, zbv.data(), cq, N);
  }
  return out;
}

void op_qlinear_matmul(OpCtx& c) {
  const RTensor& a = c.t(0);
  const RTensor& b = c.t(3);
  for (size_t i : {1, 2, 4, 5, 6, 7}) c.t_numel(i, 1);
  Shape os;
  const RTensor v = int_matmul(c, a, &c.t(2), b, 3, &c.t(5), os);
  int32_t odt = c.t(7).dtype;
  double lo, hi;
  if (!int_range(odt, lo, hi)) fail(Status::kUnsupported, c.where() + ": output type not supported");
  double mult = static_cast<float>(get_f64(c.t(1), 0) * get_f64(c.t(4), 0) / get_f64(c.t(6), 0));
  RTensor y = RTensor::alloc_uninit(odt, os);  // every element is written by requantize
  requantize(v.data<int32_t>(), static_cast<size_t>(v.numel()), 0, mult, static_cast<int32_t>(get_f64(c.t(7), 0)), y, 0);
  c.set(0, y);
}

// The geometry and zero points of an integer convolution of (x - xz) with (w - wz[oc]); os gets
// the output shape.
struct IntConvArgs {
  IntConvGeom geom;
  int32_t xz = 0;
  std::vector<int32_t> wz;
};
IntConvArgs int_conv_args(OpCtx& c, const RTensor& x, const RTensor* xz, const RTensor& w, const RTensor* wz, Shape& os) {
  if (x.rank() < 3 || w.rank() != x.rank()) c.error("X and W must have the same rank >= 3: " + shape_str(x.shape) + ", " + shape_str(w.shape));
  int r = x.rank() - 2;
  std::vector<int64_t> k(w.shape.begin() + 2, w.shape.end());
  std::vector<int64_t> s = axis_attr(c, "strides", r, 1, 1, 1 << 30), d = axis_attr(c, "dilations", r, 1, 1, 1 << 30);
  std::vector<int64_t> pads = axis_attr(c, "pads", 2 * r, 0, 0, 1 << 30);
  int64_t group = c.attr_i("group", 1);
  if (group < 1 || x.shape[1] % group != 0 || w.shape[0] % group != 0 || w.shape[1] != x.shape[1] / group)
    c.error("W " + shape_str(w.shape) + " does not match X " + shape_str(x.shape) + " with group " + std::to_string(group));
  for (int64_t v : k) c.require(v >= 1, "W has an empty kernel dim");
  if (xz && xz->numel() < 1) c.error("x_zero_point is empty");
  if (wz && wz->numel() != 1 && wz->numel() != w.shape[0]) c.error("w_zero_point must have 1 or one per output channel values");
  Shape in(x.shape.begin() + 2, x.shape.end());
  Shape out = spatial_out_dims(c, in, k, s, d, pads, false);
  int64_t N = x.shape[0], C = x.shape[1], OC = w.shape[0];
  os = {N, OC};
  for (int64_t v : out) os.push_back(v);
  return {IntConvGeom{N, C, OC, group, in, out, k, s, d, std::vector<int64_t>(pads.begin(), pads.begin() + r)},
          xz ? zero_points(c, xz, x, 1)[0] : 0, zero_points(c, wz, w, OC)};
}

// MatMulInteger / ConvInteger: inputs (a, b, a_zero_point, b_zero_point), output the int32 sums.
const RTensor* optional_input(const OpCtx& c, size_t i) { return c.has(i) ? &c.t(i) : nullptr; }
void op_matmul_integer(OpCtx& c) {
  Shape os;
  c.set(0, int_matmul(c, c.t(0), optional_input(c, 2), c.t(1), 1, optional_input(c, 3), os));
}
void op_conv_integer(OpCtx& c) {
  Shape os;
  const IntConvArgs a = int_conv_args(c, c.t(0), optional_input(c, 2), c.t(1), optional_input(c, 3), os);
  RTensor y = RTensor::alloc_uninit(kInt32, os);  // every element is written by int_conv_compute
  int_conv_compute(a.geom, int_span(c.t(0)), a.xz, int_span(c.t(1)), a.wz, y.data<int32_t>());
  c.set(0, y);
}

void op_qlinear_conv(OpCtx& c) {
  Shape os;
  for (size_t i : {1, 2, 4, 5, 6, 7}) c.t_numel(i, 1);
  const IntConvArgs a = int_conv_args(c, c.t(0), &c.t(2), c.t(3), &c.t(5), os);
  int32_t odt = c.t(7).dtype;
  double lo, hi;
  if (!int_range(odt, lo, hi)) fail(Status::kUnsupported, c.where() + ": output type not supported");
  int64_t OC = os[1], sp = shape_numel(os) / std::max<int64_t>(1, os[0] * OC);
  double xs = get_f64(c.t(1), 0), ys = get_f64(c.t(6), 0);
  const int32_t yzp = static_cast<int32_t>(get_f64(c.t(7), 0));
  const RTensor& ws = c.t(4);
  if (ws.numel() != 1 && ws.numel() != OC) c.error("w_scale must have 1 or one per output channel values");
  if (c.has(8) && c.t(8).numel() != OC) c.error("B must have one value per output channel");
  std::vector<int64_t> bias(static_cast<size_t>(OC));
  std::vector<double> mult(static_cast<size_t>(OC));
  for (int64_t oc = 0; oc < OC; ++oc) {
    bias[static_cast<size_t>(oc)] = c.has(8) ? static_cast<int64_t>(get_f64(c.t(8), oc)) : 0;
    mult[static_cast<size_t>(oc)] = static_cast<float>(xs * get_f64(ws, ws.numel() == 1 ? 0 : oc) / ys);
  }
  RTensor y = RTensor::alloc_uninit(odt, os);  // every element is written by the sink's requantization
  // Each piece of sums is requantized as the convolution finishes it (on the thread that computed
  // it), so no int32 copy of the output is written and read back.
  int_conv_compute(a.geom, int_span(c.t(0)), a.xz, int_span(c.t(3)), a.wz,
                   [&](int64_t plane, int64_t off, const int32_t* sums, size_t count) {
                     const size_t oc = static_cast<size_t>(plane % OC);
                     requantize(sums, count, bias[oc], mult[oc], yzp, y, plane * sp + off);
                   });
  c.set(0, y);
}

void op_bitcast(OpCtx& c) {
  const RTensor& x = c.t(0);
  int32_t to = static_cast<int32_t>(c.attr_i("to", 0));
  if (!is_supported_type(to)) fail(Status::kUnsupported, c.where() + ": BitCast to " + dtype_name(to));
  size_t fs = x.elem_size(), ts = dtype_size(to);
  Shape s = x.shape;
  if (fs != ts) {
    // A wider source splits into a new innermost axis; a narrower one folds the innermost axis.
    if (fs > ts) s.push_back(static_cast<int64_t>(fs / ts));
    else if (!s.empty() && s.back() == static_cast<int64_t>(ts / fs)) s.pop_back();
    else c.error("BitCast between these sizes needs a matching innermost axis");
  }
  RTensor y = RTensor::alloc(to, s);
  std::memcpy(y.ptr, x.ptr, x.nbytes());
  // Bits reinterpreted as bool must still be 0 or 1 (other byte values are undefined behaviour).
  if (to == kBool)
    for (size_t i = 0; i < y.nbytes(); ++i) y.ptr[i] = y.ptr[i] != 0;
  c.set(0, y);
}

}  // namespace

void register_quantize_ops(Registry& r) {
  r.add("QuantizeLinear", op_quantize, 10, 1 << 30, false).no_rule();
  r.add("DequantizeLinear", op_dequantize, 10, 1 << 30, false).no_rule();
  r.add("DynamicQuantizeLinear", op_dynamic_quantize, 11).no_rule();
  r.add("MatMulInteger", op_matmul_integer, 10).no_rule();
  r.add("ConvInteger", op_conv_integer, 10).no_rule();
  r.add("QLinearMatMul", op_qlinear_matmul, 10, 1 << 30, false).no_rule();
  r.add("QLinearConv", op_qlinear_conv, 10, 1 << 30, false).no_rule();
  r.add("BitCast", op_bitcast, 1, 1 << 30, false).no_rule();
}

}  // namespace ofg::exec
