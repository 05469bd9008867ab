// SwiGLU (opset 28): Y = A * sigmoid(alpha * A) * B, the gated activation of LLaMA-style MLPs.
// A and B must have the same shape (the op does not broadcast). float16/bfloat16 are computed in
// float32 by the interpreter; float64 stays float64.
#include "exec/infer_rules.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

template <class T>
void swiglu(const T* a, const T* b, T* y, int64_t n, T alpha) {
  for (int64_t i = 0; i < n; ++i) {
    T x = a[i];
    y[i] = x / (T(1) + std::exp(-alpha * x)) * b[i];
  }
}

void op_swiglu(OpCtx& c) {
  c.require_inputs(2);
  const RTensor& a = c.t(0);
  const RTensor& b = c.t_dims(1, a.shape);
  c.require(a.dtype == b.dtype, "A and B must have the same element type");
  c.require(a.dtype == kFloat || a.dtype == kDouble,
            std::string("A must be a float tensor, got ") + dtype_name(a.dtype));
  float alpha = c.attr_f("alpha", 1.f);
  RTensor y = RTensor::alloc_uninit(a.dtype, a.shape);
  if (a.dtype == kFloat) swiglu(a.data<float>(), b.data<float>(), y.data<float>(), a.numel(), alpha);
  else swiglu(a.data<double>(), b.data<double>(), y.data<double>(), a.numel(), static_cast<double>(alpha));
  c.set(0, std::move(y));
}

}  // namespace

void register_swiglu_ops(Registry& r) { r.add("SwiGLU", op_swiglu, 28).infer(rules::same_type); }

}  // namespace ofg::exec
