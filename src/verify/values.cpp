#include "verify/values.h"

#include "onnx/value_pb.h"

namespace ofg::verify {
namespace {

// The decoded tensors view the bytes and the scratch model: copied out before they go.
Value from_pb(const PbValue& p, const Model& store) {
  Value v;
  v.kind = static_cast<Value::Kind>(p.kind);
  v.name = p.name;
  if (p.tensor) v.tensor = exec::from_ir(*p.tensor).clone();
  for (const PbValue& e : p.elements) v.elements.push_back(from_pb(e, store));
  v.elem_type = p.elem_type;
  if (p.inner) v.inner = std::make_shared<const Value>(from_pb(*p.inner, store));
  return v;
}

// A view of t as an IR tensor made in `scratch` (no copy of the bytes).
const Tensor* ir_view(const exec::RTensor& t, Arena& scratch) {
  Tensor* ir = scratch.make<Tensor>();
  ir->data_type = t.dtype;
  ir->has_data_type = true;
  ir->dims.data = scratch.make_array<int64_t>(t.shape.size());
  ir->dims.size = static_cast<uint32_t>(t.shape.size());
  std::copy(t.shape.begin(), t.shape.end(), ir->dims.data);
  ir->data = Bytes{t.ptr, t.nbytes()};
  return ir;
}

PbValue to_pb(const Value& v, Arena& scratch) {
  PbValue p;
  p.kind = static_cast<PbValue::Kind>(v.kind);
  p.name = v.name;
  if (v.kind == Value::kTensor) p.tensor = ir_view(v.tensor, scratch);
  for (const Value& e : v.elements) p.elements.push_back(to_pb(e, scratch));
  p.elem_type = v.elem_type;
  if (v.inner) p.inner = std::make_shared<const PbValue>(to_pb(*v.inner, scratch));
  return p;
}

// A tensor that owns its bytes (views of model weights must not outlive the model).
exec::RTensor owned(const exec::RTensor& t) { return t.hold ? t : t.clone(); }

OutputDiff problem_entry(const std::string& name, const std::string& problem) {
  OutputDiff d;
  d.name = name;
  d.problem = problem;
  return d;
}

}  // namespace

const char* kind_name(int32_t k) {
  switch (k) {
    case Value::kTensor: return "tensor";
    case Value::kSequence: return "sequence";
    case Value::kOptional: return "optional";
    default: return "unknown";
  }
}

Value read_value_pb(Bytes b, const Type* declared, const std::string& context) {
  static const uint8_t kNothing = 0;
  if (b.size == 0) b.data = &kNothing;  // the reader views the bytes: a valid pointer even when empty
  Model store;
  PbValue p = decode_value_pb(b, declared, store, context);
  try {
    return from_pb(p, store);
  } catch (const Error& e) {
    fail(e.status(), context + ": " + e.what());
  }
}

Value read_tensor_pb(Bytes b, const std::string& context) { return read_value_pb(b, nullptr, context); }

std::string write_value_pb(const Value& v, std::string_view name) {
  Arena scratch;
  return encode_value_pb(to_pb(v, scratch), name);
}

exec::RValue to_runtime(const Value& v) {
  exec::RValue r;
  switch (v.kind) {
    case Value::kTensor: return exec::RValue::tensor(v.tensor);
    case Value::kSequence:
      r.kind = exec::RValue::kSequence;
      for (const Value& e : v.elements) r.seq.push_back(e.tensor);
      r.seq_elem_type = v.elem_type;
      return r;
    case Value::kOptional:
      if (v.inner) return to_runtime(*v.inner);
      r.kind = exec::RValue::kOptionalNone;
      return r;
    default: fail(Status::kInternal, "value of unknown kind");
  }
}

Value from_runtime(const exec::RValue& r, const Type* declared, const std::string& name) {
  Value v;
  v.name = name;
  if ((declared && declared->kind == Type::kOptional) || r.kind == exec::RValue::kOptionalNone) {
    v.kind = Value::kOptional;
    if (r.kind != exec::RValue::kOptionalNone)
      v.inner = std::make_shared<const Value>(from_runtime(r, declared ? declared->elem : nullptr, name));
    return v;
  }
  if (r.kind == exec::RValue::kTensor) {
    v.kind = Value::kTensor;
    v.tensor = owned(r.t);
  } else if (r.kind == exec::RValue::kSequence) {
    v.kind = Value::kSequence;
    v.elem_type = r.seq_elem_type;
    if (!r.seq.empty()) v.elem_type = r.seq[0].dtype;
    for (const exec::RTensor& t : r.seq) {
      Value e;
      e.tensor = owned(t);
      v.elements.push_back(std::move(e));
    }
  } else {
    fail(Status::kInternal, "output '" + name + "' was not computed");
  }
  return v;
}

void compare_values(const Value& a, const Value& e, const std::string& name, double atol, double rtol,
                    std::vector<OutputDiff>& out) {
  if (a.kind != e.kind) {
    out.push_back(problem_entry(name, std::string("a ") + kind_name(a.kind) + ", expected a " + kind_name(e.kind)));
    return;
  }
  if (a.kind == Value::kTensor) {
    OutputDiff d = compare(a.tensor, e.tensor, atol, rtol);
    d.name = name;
    out.push_back(d);
  } else if (a.kind == Value::kSequence) {
    if (a.elements.size() != e.elements.size()) {
      out.push_back(problem_entry(name, "sequence of " + std::to_string(a.elements.size()) + " tensors, expected " +
                                            std::to_string(e.elements.size())));
    } else if (a.elements.empty()) {
      if (a.elem_type && e.elem_type && a.elem_type != e.elem_type)
        out.push_back(problem_entry(name, std::string("empty sequence of ") + dtype_name(a.elem_type) +
                                              ", expected " + dtype_name(e.elem_type)));
      else
        out.push_back(problem_entry(name, ""));
    } else {
      for (size_t i = 0; i < a.elements.size(); ++i) {
        OutputDiff d = compare(a.elements[i].tensor, e.elements[i].tensor, atol, rtol);
        d.name = name + "[" + std::to_string(i) + "]";
        out.push_back(d);
      }
    }
  } else {
    if (!a.inner != !e.inner)
      out.push_back(problem_entry(name, a.inner ? "an optional with a value, expected an empty one"
                                                : "an empty optional, expected one with a value"));
    else if (!a.inner)
      out.push_back(problem_entry(name, ""));
    else
      compare_values(*a.inner, *e.inner, name, atol, rtol, out);
  }
}

}  // namespace ofg::verify
