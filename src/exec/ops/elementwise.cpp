// Broadcasting arithmetic, comparisons, logic, Where, and unary math / activations.
#include <cmath>
#include <limits>
#include <type_traits>

#include "exec/infer_rules.h"
#include "exec/ops/fusable.h"
#include "exec/ops/util.h"
#include "kernels/int_arith.h"

namespace ofg::exec {
namespace {

using kernels::BinaryOp;
using kernels::UnaryOp;

template <class T>
T apply_binary(BinaryOp op, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    switch (op) {
      case BinaryOp::Max: return a || b;
      case BinaryOp::Min: return a && b;
      default: return a;
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case BinaryOp::Add: return a + b;
      case BinaryOp::Sub: return a - b;
      case BinaryOp::Mul: return a * b;
      case BinaryOp::Div: return a / b;
      case BinaryOp::Max: return (std::isnan(a) || std::isnan(b)) ? std::numeric_limits<T>::quiet_NaN() : std::max(a, b);
      case BinaryOp::Min: return (std::isnan(a) || std::isnan(b)) ? std::numeric_limits<T>::quiet_NaN() : std::min(a, b);
      case BinaryOp::Pow: return std::pow(a, b);
    }
  } else {
    return kernels::int_binary(op, a, b);
  }
  return a;
}

// The broadcast walk is one function for every op and element type: each (op, type) pair
// compiles only its loop over one run of the innermost output dim (binary_run), called once per
// run through a pointer. The walk inlined per pair was most of this file's code (about 900 bytes
// of aarch64 code per op and element type); the elements and the function applied are the same.
struct BinaryArgs {
  const void* a;
  const void* b;
  void* y;
  const void* f;  // the element function, of the type binary_run was instantiated for
};
using BinaryRun = void (*)(const BinaryArgs&, int64_t n, const int64_t* o, int64_t len, const int64_t* st);

template <class T, class Out, class F>
void binary_run(const BinaryArgs& r, int64_t n, const int64_t* o, int64_t len, const int64_t* st) {
  const F& f = *static_cast<const F*>(r.f);
  const T* pa = static_cast<const T*>(r.a) + o[0];
  const T* pb = static_cast<const T*>(r.b) + o[1];
  Out* py = static_cast<Out*>(r.y) + n;
  const int64_t sa = st[0], sb = st[1];
  for (int64_t t = 0; t < len; ++t) py[t] = f(pa[t * sa], pb[t * sb]);
}

void walk_binary(const Shape& out, const Shape& as, const Shape& bs, BinaryRun run, const BinaryArgs& args) {
  broadcast_runs(out, {as, bs}, [&](int64_t n, const int64_t* o, int64_t len, const int64_t* st) { run(args, n, o, len, st); });
}

// y[i] = f(a[...], b[...]) over the broadcast of a and b, all of element type T, y of type Out.
template <class T, class Out, class F>
void walk_binary_typed(const Shape& out, const RTensor& a, const RTensor& b, RTensor& y, const F& f) {
  walk_binary(out, a.shape, b.shape, &binary_run<T, Out, F>, BinaryArgs{a.data<T>(), b.data<T>(), y.data<Out>(), &f});
}

RTensor binary(const OpCtx& c, BinaryOp op, const RTensor& a0, const RTensor& b0) {
  // b in a's type when Pow's exponent has another type (references otherwise: copying a tensor
  // costs its shape's allocation on every call).
  RTensor b_cast;
  if (a0.dtype != b0.dtype) {
    if (op == BinaryOp::Pow) {
      b_cast = cast_tensor(b0, a0.dtype);
    } else {
      c.error(std::string("input types differ: ") + dtype_name(a0.dtype) + " and " + dtype_name(b0.dtype));
    }
  }
  const RTensor& a = a0;
  const RTensor& b = a0.dtype != b0.dtype ? b_cast : b0;
  Shape out = broadcast_shapes(c, {a.shape, b.shape});
  const bool int_pow = op == BinaryOp::Pow && !is_float_type(a0.dtype) && is_float_type(b0.dtype);
  // The float broadcasting kernel writes every element: no zero fill first.
  const bool float_kernel = !int_pow && a.dtype == kFloat && out.size() <= kernels::kMaxBroadcastRank;
  RTensor y = float_kernel ? RTensor::alloc_uninit(a.dtype, std::move(out)) : RTensor::alloc(a.dtype, std::move(out));
  const Shape& ys = y.shape;
  if (int_pow) {
    // integer base with float exponent: compute in double, store in the base type.
    broadcast_each(ys, {a0.shape, b0.shape}, [&](int64_t i, const int64_t* o) {
      set_f64(y, i, std::pow(get_f64(a0, o[0]), get_f64(b0, o[1])));
    });
    return y;
  }
  // The broadcasting kernels take up to kMaxBroadcastRank dims; higher ranks (rare, but the model
  // decides) and the other element types take the generic walk below.
  if (ys.size() <= kernels::kMaxBroadcastRank) {
    const int64_t *ad = a.shape.data(), *bd = b.shape.data();
    const size_t ar = a.shape.size(), br = b.shape.size();
    switch (a.dtype) {
      case kFloat: kernels::binary_f32(op, a.data<float>(), ad, ar, b.data<float>(), bd, br, y.data<float>()); return y;
      case kInt64: kernels::binary_i64(op, a.data<int64_t>(), ad, ar, b.data<int64_t>(), bd, br, y.data<int64_t>()); return y;
      case kInt32: kernels::binary_i32(op, a.data<int32_t>(), ad, ar, b.data<int32_t>(), bd, br, y.data<int32_t>()); return y;
      default: break;
    }
  }
  visit_numeric(a.dtype, [&](auto tag) {
    using T = decltype(tag);
    walk_binary_typed<T, T>(ys, a, b, y, [op](T x, T z) { return apply_binary(op, x, z); });
  });
  return y;
}

template <BinaryOp OP>
void op_binary(OpCtx& c) {
  c.set(0, binary(c, OP, c.t(0), c.t(1)));
}

// Sum / Mean / Max / Min take any number of inputs.
template <BinaryOp OP, bool MEAN = false>
void op_variadic(OpCtx& c) {
  RTensor acc = c.t(0);
  for (size_t i = 1; i < c.n_in(); ++i) acc = binary(c, OP, acc, c.t(i));
  if (c.n_in() == 1) acc = acc.clone();
  if (MEAN) {
    for (int64_t i = 0; i < acc.numel(); ++i) set_f64(acc, i, get_f64(acc, i) / static_cast<double>(c.n_in()));
  }
  c.set(0, acc);
}

// Ops of two inputs of one element type, broadcast: y[i] = f(x, z) for each pair of elements, y
// of the inputs' type, or bool when kBoolOut. f is a generic lambda, called with the values of
// every numeric type.
// Which element types an op of same_type_binary takes: the loop is instantiated only for those
// (one broadcast loop per op and type is most of this file's code).
enum class Takes { Numeric, Integers, Bools };
template <Takes K, class T>
constexpr bool takes() {
  if constexpr (K == Takes::Bools) return std::is_same_v<T, bool>;
  else if constexpr (K == Takes::Integers) return std::is_integral_v<T> && !std::is_same_v<T, bool>;
  else return true;
}

template <bool kBoolOut, Takes K = Takes::Numeric, class F>
void same_type_binary(OpCtx& c, F&& f) {
  const RTensor &a = c.t(0), &b = c.t(1);
  if (a.dtype != b.dtype) c.error("input types differ");
  Shape out = broadcast_shapes(c, {a.shape, b.shape});
  RTensor y = RTensor::alloc(kBoolOut ? kBool : a.dtype, out);
  visit_numeric(a.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (takes<K, T>()) {
      using Out = std::conditional_t<kBoolOut, bool, T>;
      walk_binary_typed<T, Out>(out, a, b, y, f);
    } else {
      c.error(std::string("inputs of element type ") + dtype_name(a.dtype) + " are not supported");
    }
  });
  c.set(0, y);
}

void op_mod(OpCtx& c) {
  bool fmod = c.attr_i("fmod", 0) != 0;
  same_type_binary<false>(c, [fmod](auto x, auto d) {
    using T = decltype(x);
    if constexpr (std::is_floating_point_v<T>) {
      T r = std::fmod(x, d);
      if (!fmod && r != 0 && ((r < 0) != (d < 0))) r += d;
      return r;
    } else {
      // x % -1 is 0, and computing it overflows for the minimum of the type.
      if (d == 0 || (std::is_signed_v<T> && d == static_cast<T>(-1))) return T(0);
      T r = static_cast<T>(x % d);
      if constexpr (std::is_signed_v<T>) if (!fmod && r != 0 && ((r < 0) != (d < 0))) r = static_cast<T>(r + d);
      return r;
    }
  });
}

enum class Cmp { Eq, Lt, Gt, Le, Ge };
// One body for the five comparisons, the kind chosen per element (a predictable branch): a copy
// per kind of this loop over every element type cost 9 KB each.
void run_compare(OpCtx& c, Cmp kind) {
  same_type_binary<true>(c, [kind](auto x, auto z) {
    switch (kind) {
      case Cmp::Eq: return x == z;
      case Cmp::Lt: return x < z;
      case Cmp::Gt: return x > z;
      case Cmp::Le: return x <= z;
      case Cmp::Ge: return x >= z;
    }
    return false;
  });
}
template <Cmp K>
void op_compare(OpCtx& c) {
  run_compare(c, K);
}

enum class Logic { And, Or, Xor };
// One body for And, Or and Xor, the kind chosen per element (as the comparisons).
void run_logic(OpCtx& c, Logic kind) {
  if (c.t(0).dtype != kBool || c.t(1).dtype != kBool) c.error("inputs must be bool");
  same_type_binary<true, Takes::Bools>(c, [kind](auto x, auto z) {
    return kind == Logic::And ? (x && z) : kind == Logic::Or ? (x || z) : (x != z);
  });
}
template <Logic K>
void op_logic(OpCtx& c) {
  run_logic(c, K);
}

enum class Bitwise { And, Or, Xor, ShiftL, ShiftR };
// One body for every bitwise op, the kind chosen per element: rare ops, and a copy per kind of
// this loop over every integer type cost 7 KB each.
void run_bitwise(OpCtx& c, Bitwise kind) {
  bool integral = false;
  visit_numeric(c.t(0).dtype, [&](auto tag) {
    using T = decltype(tag);
    integral = std::is_integral_v<T> && !std::is_same_v<T, bool>;
  });
  if (!integral) c.error("bitwise ops need integer inputs");
  bool left = c.attr_s("direction", "LEFT") == "LEFT";
  same_type_binary<false, Takes::Integers>(c, [left, kind](auto x, auto z) {
    using T = decltype(x);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      using U = std::make_unsigned_t<T>;
      switch (kind) {
        case Bitwise::And: return static_cast<T>(x & z);
        case Bitwise::Or: return static_cast<T>(x | z);
        case Bitwise::Xor: return static_cast<T>(x ^ z);
        default: {
          U s = static_cast<U>(z);
          U ux = static_cast<U>(x);
          if (s >= sizeof(T) * 8) return T(0);
          return static_cast<T>(left ? static_cast<U>(ux << s) : static_cast<U>(ux >> s));
        }
      }
    } else {
      return x;  // not reached: refused above
    }
  });
}
template <Bitwise K>
void op_bitwise(OpCtx& c) {
  run_bitwise(c, K);
}
void op_bitshift(OpCtx& c) { run_bitwise(c, Bitwise::ShiftL); }

void op_bitwise_not(OpCtx& c) {
  RTensor y = c.t(0).clone();
  visit_numeric(y.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      for (int64_t i = 0; i < y.numel(); ++i) y.data<T>()[i] = static_cast<T>(~y.data<T>()[i]);
    }
  });
  c.set(0, y);
}

void op_not(OpCtx& c) {
  if (c.t(0).dtype != kBool) c.error("input must be bool");
  RTensor y = RTensor::alloc(kBool, c.t(0).shape);
  for (int64_t i = 0; i < y.numel(); ++i) y.data<bool>()[i] = !c.t(0).data<bool>()[i];
  c.set(0, y);
}

struct WhereArgs {
  const bool* cond;
  const void* a;
  const void* b;
  void* y;
};
using WhereRun = void (*)(const WhereArgs&, int64_t n, const int64_t* o, int64_t len, const int64_t* st);
template <class T>
void where_run(const WhereArgs& r, int64_t n, const int64_t* o, int64_t len, const int64_t* st) {
  const T *pa = static_cast<const T*>(r.a), *pb = static_cast<const T*>(r.b);
  T* py = static_cast<T*>(r.y);
  const bool* pc = r.cond;
  for (int64_t t = 0; t < len; ++t) py[n + t] = pc[o[0] + t * st[0]] ? pa[o[1] + t * st[1]] : pb[o[2] + t * st[2]];
}

void op_where(OpCtx& c) {
  const RTensor &cond = c.t(0), &a = c.t(1), &b = c.t(2);
  if (a.dtype != b.dtype) c.error("X and Y types differ");
  if (cond.dtype != kBool) c.error("condition must be bool");
  Shape out = broadcast_shapes(c, {cond.shape, a.shape, b.shape});
  RTensor y = RTensor::alloc(a.dtype, out);
  const bool* pc = cond.data<bool>();
  // Elements are moved as unsigned integers of their size (every type here is 1 to 8 bytes and
  // trivially copyable; strings are not tensors of this kind). One walk for every size, each size
  // only its loop over one run (as walk_binary).
  WhereRun run = nullptr;
  switch (a.elem_size()) {
    case 1: run = &where_run<uint8_t>; break;
    case 2: run = &where_run<uint16_t>; break;
    case 4: run = &where_run<uint32_t>; break;
    case 8: run = &where_run<uint64_t>; break;
    default: break;
  }
  if (run) {
    const WhereArgs args{pc, a.ptr, b.ptr, y.ptr};
    broadcast_runs(out, {cond.shape, a.shape, b.shape}, [&](int64_t n, const int64_t* o, int64_t len, const int64_t* st) {
      run(args, n, o, len, st);
    });
  } else {
    const size_t es = a.elem_size();
    broadcast_each(out, {cond.shape, a.shape, b.shape}, [&](int64_t i, const int64_t* o) {
      std::memcpy(y.ptr + i * es, pc[o[0]] ? a.ptr + o[1] * es : b.ptr + o[2] * es, es);
    });
  }
  c.set(0, y);
}

// ---------------------------------------------------------------- unary

enum class U {
  Relu, LeakyRelu, Clip, Exp, Log, Tanh, Sigmoid, Erf, HardSigmoid, HardSwish, Softplus, Sqrt, Reciprocal, Abs, Neg,
  Floor, Ceil, Round, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, Sign, Elu, Selu, Softsign,
  Mish, ThresholdedRelu, Celu, GeluErf, GeluTanh
};

double round_half_even(double x) { return std::nearbyint(x); }

double unary_ref(U op, double x, double alpha, double beta, double gamma) {
  switch (op) {
    case U::Relu: return x < 0 ? 0 : x;
    case U::LeakyRelu: return x < 0 ? alpha * x : x;
    case U::Clip: return std::isnan(x) ? x : std::min(std::max(x, alpha), beta);
    case U::Exp: return std::exp(x);
    case U::Log: return std::log(x);
    case U::Tanh: return std::tanh(x);
    case U::Sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case U::Erf: return std::erf(x);
    case U::HardSigmoid: return std::max(0.0, std::min(1.0, alpha * x + beta));
    case U::HardSwish: return x * std::max(0.0, std::min(1.0, x / 6 + 0.5));
    case U::Softplus: return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    case U::Sqrt: return std::sqrt(x);
    case U::Reciprocal: return 1.0 / x;
    case U::Abs: return std::fabs(x);
    case U::Neg: return -x;
    case U::Floor: return std::floor(x);
    case U::Ceil: return std::ceil(x);
    case U::Round: return round_half_even(x);
    case U::Sin: return std::sin(x);
    case U::Cos: return std::cos(x);
    case U::Tan: return std::tan(x);
    case U::Asin: return std::asin(x);
    case U::Acos: return std::acos(x);
    case U::Atan: return std::atan(x);
    case U::Sinh: return std::sinh(x);
    case U::Cosh: return std::cosh(x);
    case U::Asinh: return std::asinh(x);
    case U::Acosh: return std::acosh(x);
    case U::Atanh: return std::atanh(x);
    case U::Sign: return x > 0 ? 1 : (x < 0 ? -1 : 0);
    case U::Elu: return x < 0 ? alpha * (std::exp(x) - 1) : x;
    case U::Selu: return x <= 0 ? gamma * (alpha * std::exp(x) - alpha) : gamma * x;
    case U::Softsign: return x / (1 + std::fabs(x));
    case U::Mish: return x * std::tanh(x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)));
    case U::ThresholdedRelu: return x > alpha ? x : 0;
    case U::Celu: return std::max(0.0, x) + std::min(0.0, alpha * (std::exp(x / alpha) - 1));
    case U::GeluErf: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case U::GeluTanh: return 0.5 * x * (1 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
  }
  return x;
}

// A unary op's float32 kernel, as its registration line names it: a UnaryOp, or none (-1: the
// float path is the double reference). Ops registered with one pass it to run_unary.
constexpr int kNoKernel = -1;

void run_unary(OpCtx& c, U op, int kernel, double alpha, double beta, double gamma = 0) {
  const RTensor& x = c.t(0);
  int64_t n = x.numel();
  if (x.dtype == kFloat && kernel != kNoKernel) {
    RTensor y = RTensor::alloc_uninit(kFloat, x.shape);  // every element is written by the kernel
    kernels::unary(static_cast<UnaryOp>(kernel), x.data<float>(), y.data<float>(), n, static_cast<float>(alpha),
                   static_cast<float>(beta));
    c.set(0, y);
    return;
  }
  RTensor y = RTensor::alloc(x.dtype, x.shape);
  visit_numeric(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = y.data<T>();
    if constexpr (std::is_floating_point_v<T>) {
      for (int64_t i = 0; i < n; ++i) py[i] = static_cast<T>(unary_ref(op, px[i], alpha, beta, gamma));
    } else if constexpr (std::is_same_v<T, bool>) {
      c.error("not defined for bool");
    } else {
      for (int64_t i = 0; i < n; ++i) {
        T v = px[i];
        switch (op) {
          case U::Abs: if constexpr (std::is_signed_v<T>) v = v < 0 ? static_cast<T>(-v) : v; break;
          case U::Neg: v = static_cast<T>(std::make_unsigned_t<T>(0) - static_cast<std::make_unsigned_t<T>>(v)); break;
          case U::Relu: if constexpr (std::is_signed_v<T>) v = v < 0 ? 0 : v; break;
          case U::Sign: v = static_cast<T>(v > 0 ? 1 : (v < 0 ? -1 : 0)); break;
          case U::Clip: v = saturate_cast<T>(std::min<double>(std::max<double>(static_cast<double>(v), alpha), beta)); break;
          default: v = saturate_cast<T>(unary_ref(op, static_cast<double>(v), alpha, beta, gamma));
        }
        py[i] = v;
      }
    }
  });
  c.set(0, y);
}

template <U OP, int K>
void op_unary(OpCtx& c) {
  run_unary(c, OP, K, 0, 0);
}
// Parameters of the activations with attributes or bound inputs (activation_kernel reads them
// the same way for a fused chain).
void leaky_relu_params(const OpCtx& c, double& alpha, double& beta) { alpha = c.attr_f("alpha", 0.01f), beta = 0; }
void hard_sigmoid_params(const OpCtx& c, double& alpha, double& beta) {
  alpha = c.attr_f("alpha", 0.2f);
  beta = c.attr_f("beta", 0.5f);
}
// Clip's bounds for an input of type dtype: the min/max attributes before opset 11, inputs 1 and 2
// after (absent: the type's range, infinite for floats).
void clip_params(const OpCtx& c, int32_t dtype, double& lo, double& hi) {
  if (c.opset < 11) {
    lo = c.attr_f("min", -std::numeric_limits<float>::infinity());
    hi = c.attr_f("max", std::numeric_limits<float>::infinity());
    return;
  }
  lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
  if (!is_float_type(dtype)) {
    visit_numeric(dtype, [&](auto tag) {
      using T = decltype(tag);
      lo = static_cast<double>(std::numeric_limits<T>::lowest());
      hi = static_cast<double>(std::numeric_limits<T>::max());
    });
  }
  if (c.has(1)) lo = get_f64(c.t_numel(1, 1), 0);
  if (c.has(2)) hi = get_f64(c.t_numel(2, 1), 0);
}

template <void (*PARAMS)(const OpCtx&, double&, double&), U OP, UnaryOp K>
void op_unary_params(OpCtx& c) {
  double alpha = 0, beta = 0;
  PARAMS(c, alpha, beta);
  run_unary(c, OP, static_cast<int>(K), alpha, beta);
}
void op_elu(OpCtx& c) { run_unary(c, U::Elu, kNoKernel, c.attr_f("alpha", 1.f), 0); }
void op_selu(OpCtx& c) {
  run_unary(c, U::Selu, kNoKernel, c.attr_f("alpha", 1.67326319217681884765625f), 0,
            c.attr_f("gamma", 1.05070102214813232421875f));
}
void op_thresholded_relu(OpCtx& c) { run_unary(c, U::ThresholdedRelu, kNoKernel, c.attr_f("alpha", 1.f), 0); }
void op_celu(OpCtx& c) { run_unary(c, U::Celu, kNoKernel, c.attr_f("alpha", 1.f), 0); }
void op_gelu(OpCtx& c) {
  if (c.attr_s("approximate", "none") == "tanh") run_unary(c, U::GeluTanh, static_cast<int>(UnaryOp::GeluTanh), 0, 0);
  else run_unary(c, U::GeluErf, static_cast<int>(UnaryOp::GeluErf), 0, 0);
}

void op_clip(OpCtx& c) {  // both forms: clip_params reads the opset's
  double lo = 0, hi = 0;
  clip_params(c, c.t(0).dtype, lo, hi);
  run_unary(c, U::Clip, static_cast<int>(UnaryOp::Clip), lo, hi);
}

void op_isnan(OpCtx& c) {
  const RTensor& x = c.t(0);
  RTensor y = RTensor::alloc(kBool, x.shape);
  for (int64_t i = 0; i < x.numel(); ++i) y.data<bool>()[i] = std::isnan(get_f64(x, i));
  c.set(0, y);
}
void op_isinf(OpCtx& c) {
  const RTensor& x = c.t(0);
  bool pos = c.attr_i("detect_positive", 1) != 0, neg = c.attr_i("detect_negative", 1) != 0;
  RTensor y = RTensor::alloc(kBool, x.shape);
  for (int64_t i = 0; i < x.numel(); ++i) {
    double v = get_f64(x, i);
    y.data<bool>()[i] = std::isinf(v) && ((v > 0 && pos) || (v < 0 && neg));
  }
  c.set(0, y);
}

void op_prelu(OpCtx& c) {
  const RTensor& x = c.t(0);
  RTensor s = c.t(1);
  // Before opset 7 a 1-D slope of size C applied per channel (legacy axis-1 broadcasting).
  if (c.opset < 7 && s.rank() == 1 && x.rank() >= 2 && s.shape[0] == x.shape[1] && x.shape.back() != s.shape[0]) {
    Shape ss(x.rank() - 1, 1);
    ss[0] = s.shape[0];
    s = s.reshaped(ss);
  }
  Shape out = broadcast_shapes(c, {x.shape, s.shape});
  RTensor y = RTensor::alloc(x.dtype, out);
  broadcast_each(out, {x.shape, s.shape}, [&](int64_t i, const int64_t* o) {
    double v = get_f64(x, o[0]);
    set_f64(y, i, v < 0 ? v * get_f64(s, o[1]) : v);
  });
  c.set(0, y);
}

// Shrink in double precision (rare, small).
void op_shrink(OpCtx& c) {
  const RTensor& xt = c.t(0);
  double l = c.attr_f("lambd", 0.5f), b = c.attr_f("bias", 0.f);
  std::vector<double> x = f64_of(xt);
  for (double& v : x) v = v < -l ? v + b : (v > l ? v - b : 0.0);
  c.set(0, tensor_of(x, xt.dtype, xt.shape));
}

// ---------------------------------------------------------------- elementwise facts (ops/facts.h)

// The double references the registry's elementwise facts carry.
template <U OP>
double uref(double x, double alpha, double beta) {
  return unary_ref(OP, x, alpha, beta, 0);
}
double ref_add(double a, double b) { return a + b; }
double ref_sub(double a, double b) { return a - b; }
double ref_mul(double a, double b) { return a * b; }
double ref_div(double a, double b) { return a / b; }
double ref_pow(double a, double b) { return std::pow(a, b); }
double ref_eq(double a, double b) { return a == b; }
double ref_lt(double a, double b) { return a < b; }
double ref_gt(double a, double b) { return a > b; }
double ref_le(double a, double b) { return a <= b; }
double ref_ge(double a, double b) { return a >= b; }

// Kernel parameters read from a node's attributes, as the op's kernel call reads them.
float attr_f(const Model& m, const Node& n, const char* name, float dflt) {
  const Attribute* a = n.attribute(m, name);
  return a ? a->float_or(dflt) : dflt;
}
bool leaky_relu_attrs(const Model& m, const Node& n, float& alpha, float& beta) {
  alpha = attr_f(m, n, "alpha", 0.01f), beta = 0;
  return true;
}
bool hard_sigmoid_attrs(const Model& m, const Node& n, float& alpha, float& beta) {
  alpha = attr_f(m, n, "alpha", 0.2f), beta = attr_f(m, n, "beta", 0.5f);
  return true;
}
// Clip's bounds when no input gives them: attributes before opset 11, else the float range.
bool clip_attrs(const Model& m, const Node& n, float& lo, float& hi) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  if (m.opset_version("") < 11) {
    lo = attr_f(m, n, "min", -kInf), hi = attr_f(m, n, "max", kInf);
    return true;
  }
  for (uint32_t i = 1; i < n.inputs.size; ++i)
    if (n.inputs[i]) return false;  // bounds are values
  lo = -kInf, hi = kInf;
  return true;
}

// A unary op of the U table with its facts: its float32 kernel K (kNoKernel: none), which the op
// runs and which makes it chainable.
template <U OP, int K>
void add_unary(Registry& r, OpName name, InferFn rule, FusableAct act = FusableAct::No) {
  Registry::Def d = r.add(name, op_unary<OP, K>);
  d.rule_or_none(rule);
  if constexpr (K != kNoKernel) d.unary(uref<OP>, static_cast<UnaryOp>(K));
  else d.unary(uref<OP>);
  d.activation(act);
}

// A unary op computed by kernel K on float32 with the parameters P reads from the node, and by
// its double reference REF on the other float types: a new unary op is a kernel-list entry, its
// scalar and SIMD bodies, and one add_unary_kernel line.
template <UnaryOp K, ops::UnaryRef REF, ops::UnaryParams P>
void op_unary_kernel(OpCtx& c) {
  const RTensor& x = c.t(0);
  float alpha = 0, beta = 0;
  if (!P(c.model, c.node, alpha, beta)) c.error("parameters not readable from attributes");
  const int64_t n = x.numel();
  if (x.dtype == kFloat) {
    RTensor y = RTensor::alloc_uninit(kFloat, x.shape);  // every element is written by the kernel
    kernels::unary(K, x.data<float>(), y.data<float>(), n, alpha, beta);
    c.set(0, y);
    return;
  }
  if (!is_float_type(x.dtype)) c.error(std::string("inputs of element type ") + dtype_name(x.dtype) + " are not supported");
  RTensor y = RTensor::alloc(x.dtype, x.shape);
  for (int64_t i = 0; i < n; ++i) set_f64(y, i, REF(get_f64(x, i), alpha, beta));
  c.set(0, y);
}
template <UnaryOp K, ops::UnaryRef REF, ops::UnaryParams P>
Registry::Def add_unary_kernel(Registry& r, OpName name, int64_t since = 1) {
  return r.add(name, op_unary_kernel<K, REF, P>, since).unary(REF, K, P);
}

// Swish (opset 24): x * sigmoid(alpha x).
double ref_swish(double x, double alpha, double) { return x / (1 + std::exp(-alpha * x)); }
bool swish_attrs(const Model& m, const Node& n, float& alpha, float& beta) {
  alpha = attr_f(m, n, "alpha", 1.f), beta = 0;
  return true;
}

}  // namespace

bool activation_kernel(const OpCtx& c, kernels::UnaryOp& op, float& alpha, float& beta) {
  const ops::OpFacts& f = Registry::instance().facts(c.model.str(c.node.domain), c.model.str(c.node.op_type));
  if (f.fusable_act == FusableAct::No || !f.has_kernel) return false;
  op = f.unary_kernel;
  alpha = beta = 0;
  if (f.fusable_act == FusableAct::ConstantBounds) {
    // As op_clip hands them to the kernel (bounds from inputs or attributes, by opset).
    double a = 0, b = 0;
    clip_params(c, kFloat, a, b);
    alpha = static_cast<float>(a);
    beta = static_cast<float>(b);
    return true;
  }
  return !f.unary_params || f.unary_params(c.model, c.node, alpha, beta);
}

// ------------------------------------------------------------------ type/shape rules (exec/infer_rules.h)
namespace rules {

bool rule_where(InferCtx& c) {
  std::vector<IDim> dims;
  int32_t elem = elem0(c, 1) ? elem0(c, 1) : elem0(c, 2);
  if (broadcast({c.t(0), c.t(1), c.t(2)}, dims)) c.out[0] = ranked(elem, dims);
  else c.out[0] = IType{elem, false, {}};
  const std::vector<SymVal>* k = c.data(0);
  const std::vector<SymVal>* x = c.data(1);
  const std::vector<SymVal>* y = c.data(2);
  if (k && x && y && dims.size() <= 1) {
    size_t n = std::max({k->size(), x->size(), y->size()});
    std::vector<SymVal> vals(n);
    if ((k->size() != 1 && k->size() != n) || (x->size() != 1 && x->size() != n) || (y->size() != 1 && y->size() != n)) return true;
    // Element by element: an unknown condition leaves that element unknown, not the others
    // (Where(shape == -1, 1, shape) with one summed dim keeps the dims it copies).
    for (size_t i = 0; i < n; ++i) {
      const SymVal& ki = (*k)[k->size() == 1 ? 0 : i];
      if (ki.kind == SymVal::kConst) vals[i] = ki.value ? (*x)[x->size() == 1 ? 0 : i] : (*y)[y->size() == 1 ? 0 : i];
    }
    c.out_contents[0] = std::move(vals);
  }
  return true;
}

bool same_type(InferCtx& c) {
  if (c.t(0)) c.out[0] = *c.t(0);
  return true;
}

bool rule_neg(InferCtx& c) {
  same_type(c);
  if (c.data(0))
    for (const SymVal& s : *c.data(0)) c.out_contents[0].push_back(s.kind == SymVal::kConst ? cval(-s.value) : SymVal{});
  return true;
}

// Multidirectional broadcast of all inputs; with `contents`, integer contents of two-input nodes.
bool broadcasting(InferCtx& c, bool cmp, bool contents) {
  std::vector<IDim> dims;
  int32_t elem = cmp ? kBool : elem0(c);
  if (broadcast(c.in, dims)) c.out[0] = ranked(elem, dims);
  else c.out[0] = IType{elem, false, {}};
  if (contents && c.in.size() == 2) binary_contents(c, c.op());
  return true;
}

bool elementwise(InferCtx& c) { return broadcasting(c, false, false); }
bool int_arith(InferCtx& c) { return broadcasting(c, false, true); }
bool compare(InferCtx& c) { return broadcasting(c, true, false); }
bool rule_equal(InferCtx& c) { return broadcasting(c, true, true); }

}  // namespace rules


// The unary ops computed by run_unary, one line each: name (the U member too), type rule (null:
// none), whether it may end a Conv / BatchNormalization chain, and its float32 kernel (OFG_K(name):
// UnaryOp::name; OFG_NO_K: the double reference). This table is the only place that pairs an op with
// its kernel.
#define OFG_K(name) static_cast<int>(UnaryOp::name)
#define OFG_NO_K kNoKernel
#define OFG_UNARY_OPS(X) \
  X(Relu, rules::same_type, Plain, OFG_K(Relu)) X(Exp, rules::same_type, No, OFG_K(Exp)) \
  X(Log, rules::same_type, No, OFG_K(Log)) X(Tanh, rules::same_type, Plain, OFG_K(Tanh)) \
  X(Sigmoid, rules::same_type, Plain, OFG_K(Sigmoid)) X(Erf, rules::same_type, No, OFG_K(Erf)) \
  X(HardSwish, rules::same_type, Plain, OFG_K(HardSwish)) X(Softplus, rules::same_type, No, OFG_K(Softplus)) \
  X(Sqrt, rules::same_type, No, OFG_K(Sqrt)) X(Reciprocal, rules::same_type, No, OFG_K(Reciprocal)) \
  X(Abs, rules::same_type, No, OFG_K(Abs)) X(Neg, rules::rule_neg, No, OFG_K(Neg)) X(Floor, rules::same_type, No, OFG_K(Floor)) \
  X(Ceil, rules::same_type, No, OFG_K(Ceil)) X(Round, rules::same_type, No, OFG_K(Round)) \
  X(Sin, rules::same_type, No, OFG_NO_K) X(Cos, rules::same_type, No, OFG_NO_K) X(Tan, nullptr, No, OFG_NO_K) \
  X(Asin, nullptr, No, OFG_NO_K) X(Acos, nullptr, No, OFG_NO_K) X(Atan, nullptr, No, OFG_NO_K) X(Sinh, nullptr, No, OFG_NO_K) \
  X(Cosh, nullptr, No, OFG_NO_K) X(Asinh, nullptr, No, OFG_NO_K) X(Acosh, nullptr, No, OFG_NO_K) X(Atanh, nullptr, No, OFG_NO_K) \
  X(Sign, rules::same_type, No, OFG_NO_K) X(Softsign, rules::same_type, No, OFG_NO_K) X(Mish, rules::same_type, No, OFG_NO_K)

void register_elementwise_ops(Registry& r) {
  r.add("Shrink", op_shrink, 9).no_rule();
  // Registered from opset 1 as before (the spec has it from opset 24).
  add_unary_kernel<UnaryOp::Swish, ref_swish, swish_attrs>(r, "Swish").infer(rules::same_type);
  r.add("Add", op_binary<BinaryOp::Add>).infer(rules::int_arith).binary(ref_add, BinaryOp::Add).commutative();
  r.add("Sub", op_binary<BinaryOp::Sub>).infer(rules::int_arith).binary(ref_sub, BinaryOp::Sub);
  r.add("Mul", op_binary<BinaryOp::Mul>).infer(rules::int_arith).binary(ref_mul, BinaryOp::Mul).commutative();
  r.add("Div", op_binary<BinaryOp::Div>).infer(rules::int_arith).binary(ref_div, BinaryOp::Div);
  r.add("Pow", op_binary<BinaryOp::Pow>).infer(rules::elementwise).binary(ref_pow, BinaryOp::Pow);
  r.add("Max", op_variadic<BinaryOp::Max>).infer(rules::elementwise);
  r.add("Min", op_variadic<BinaryOp::Min>).infer(rules::elementwise);
  r.add("Sum", op_variadic<BinaryOp::Add>).infer(rules::elementwise);
  r.add("Mean", op_variadic<BinaryOp::Add, true>).infer(rules::elementwise);
  r.add("Mod", op_mod).infer(rules::elementwise);
  r.add("Equal", op_compare<Cmp::Eq>).infer(rules::rule_equal).comparison(ref_eq).commutative();
  r.add("Less", op_compare<Cmp::Lt>).infer(rules::compare).comparison(ref_lt);
  r.add("Greater", op_compare<Cmp::Gt>).infer(rules::compare).comparison(ref_gt);
  r.add("LessOrEqual", op_compare<Cmp::Le>).infer(rules::compare).comparison(ref_le);
  r.add("GreaterOrEqual", op_compare<Cmp::Ge>).infer(rules::compare).comparison(ref_ge);
  r.add("And", op_logic<Logic::And>).infer(rules::compare);
  r.add("Or", op_logic<Logic::Or>).infer(rules::compare);
  r.add("Xor", op_logic<Logic::Xor>).infer(rules::compare);
  r.add("BitwiseAnd", op_bitwise<Bitwise::And>).infer(rules::elementwise);
  r.add("BitwiseOr", op_bitwise<Bitwise::Or>).infer(rules::elementwise);
  r.add("BitwiseXor", op_bitwise<Bitwise::Xor>).no_rule();
  r.add("BitwiseNot", op_bitwise_not).no_rule();
  r.add("BitShift", op_bitshift).infer(rules::elementwise);
  r.add("Not", op_not).infer(rules::same_type);
  r.add("Where", op_where).infer(rules::rule_where);
#define OFG_ADD_UNARY(name, rule, act, kernel) add_unary<U::name, kernel>(r, #name, rule, FusableAct::act);
  OFG_UNARY_OPS(OFG_ADD_UNARY)
#undef OFG_ADD_UNARY
#undef OFG_K
#undef OFG_NO_K
  r.add("LeakyRelu", op_unary_params<leaky_relu_params, U::LeakyRelu, UnaryOp::LeakyRelu>)
      .infer(rules::same_type)
      .unary_unchained(uref<U::LeakyRelu>, UnaryOp::LeakyRelu, leaky_relu_attrs)
      .activation(FusableAct::Plain);
  r.add("HardSigmoid", op_unary_params<hard_sigmoid_params, U::HardSigmoid, UnaryOp::HardSigmoid>)
      .infer(rules::same_type)
      .unary_unchained(uref<U::HardSigmoid>, UnaryOp::HardSigmoid, hard_sigmoid_attrs)
      .activation(FusableAct::Plain);
  r.add("Elu", op_elu).infer(rules::same_type);
  r.add("Selu", op_selu).infer(rules::same_type);
  r.add("ThresholdedRelu", op_thresholded_relu).infer(rules::same_type);
  r.add("Celu", op_celu).infer(rules::same_type);
  r.add("Gelu", op_gelu).infer(rules::same_type);
  // One kernel, two entries: the bounds are attributes before opset 11 and inputs after
  // (clip_params reads the node's opset).
  r.add("Clip", op_clip, 1, 10).infer(rules::same_type).unary_unchained(uref<U::Clip>, UnaryOp::Clip, clip_attrs).activation(FusableAct::ConstantBounds);
  r.add("Clip", op_clip, 11).infer(rules::same_type).unary_unchained(uref<U::Clip>, UnaryOp::Clip, clip_attrs).activation(FusableAct::ConstantBounds);
  r.add("IsNaN", op_isnan).no_rule();
  r.add("IsInf", op_isinf).no_rule();
  r.add("PRelu", op_prelu).infer(rules::elementwise);
}

}  // namespace ofg::exec
