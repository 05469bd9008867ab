// C ABI of values that are not plain tensors: sequences and optionals as graph inputs and
// outputs, their .pb files (SequenceProto, OptionalProto), ofg_run_values and ofg_value_compare.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "api/guard.h"
#include "api/handles.h"
#include "exec/interp.h"
#include "onnx/wire.h"
#include "api/options.h"
#include "verify/verify.h"

struct ofg_value {
  int32_t kind = 0;  // OFG_VALUE_*
  std::string name;
  std::unique_ptr<ofg_tensor> tensor;                 // OFG_VALUE_TENSOR
  std::vector<std::unique_ptr<ofg_tensor>> elements;  // OFG_VALUE_SEQUENCE
  int32_t elem_type = 0;                              // OFG_VALUE_SEQUENCE, also when empty
  std::unique_ptr<ofg_value> inner;                   // OFG_VALUE_OPTIONAL; null = empty
};

using namespace ofg;
using namespace ofg::api;

namespace {

// Field numbers shared by SequenceProto and OptionalProto (onnx-data.proto): both messages number
// their fields alike, repeated in the one and singular in the other.
enum : uint32_t {
  kFieldName = 1,
  kFieldElemType = 2,
  kFieldTensor = 3,
  kFieldSparseTensor = 4,
  kFieldSequence = 5,
  kFieldMap = 6,
  kFieldOptional = 7,
};
// Their DataType enum (TENSOR = 1, SEQUENCE = 3, ...); only the ones checked here.
enum : int64_t { kProtoTensor = 1, kProtoSequence = 3 };

std::unique_ptr<ofg_value> copy_value(const ofg_value& v);

std::unique_ptr<ofg_tensor> copy_tensor(const ofg_tensor& t) {
  return std::unique_ptr<ofg_tensor>(wrap_tensor(t.t, t.name));
}

std::unique_ptr<ofg_value> copy_value(const ofg_value& v) {
  auto r = std::make_unique<ofg_value>();
  r->kind = v.kind;
  r->name = v.name;
  r->elem_type = v.elem_type;
  if (v.tensor) r->tensor = copy_tensor(*v.tensor);
  for (auto& e : v.elements) r->elements.push_back(copy_tensor(*e));
  if (v.inner) r->inner = copy_value(*v.inner);
  return r;
}

const char* kind_name(int32_t k) {
  switch (k) {
    case OFG_VALUE_TENSOR: return "tensor";
    case OFG_VALUE_SEQUENCE: return "sequence";
    case OFG_VALUE_OPTIONAL: return "optional";
    default: return "unknown";
  }
}

// ---------------------------------------------------------------- .pb parsing

const Type* declared_io_type(const ofg_model* m, int32_t io_kind, size_t index, const char* fn) {
  if (io_kind != OFG_INPUT && io_kind != OFG_OUTPUT)
    fail(Status::kInvalidArgument, std::string(fn) + ": io_kind must be OFG_INPUT or OFG_OUTPUT");
  const auto& list = io_kind == OFG_INPUT ? m->model->graph->inputs : m->model->graph->outputs;
  if (index >= list.size)
    fail(Status::kInvalidArgument, std::string(fn) + ": index " + std::to_string(index) + " is out of range (" +
                                       std::to_string(list.size) + (io_kind == OFG_INPUT ? " inputs)" : " outputs)"));
  const ValueInfo& vi = list[index];
  return vi.type ? vi.type : vi.value->type;
}

std::unique_ptr<ofg_value> parse_tensor_value(Bytes b) {
  auto v = std::make_unique<ofg_value>();
  v->kind = OFG_VALUE_TENSOR;
  auto t = std::make_unique<ofg_tensor>();
  t->t = parse_tensor_pb(b.data, b.size, &t->name);
  v->name = t->name;
  v->tensor = std::move(t);
  return v;
}

std::unique_ptr<ofg_value> parse_sequence(Bytes b, const Type* declared, const std::string& ctx) {
  if (declared && declared->elem && declared->elem->kind != Type::kTensor && declared->elem->kind != Type::kUnset)
    fail(Status::kUnsupported, ctx + ": sequences of sequences, maps or optionals are not supported");
  auto v = std::make_unique<ofg_value>();
  v->kind = OFG_VALUE_SEQUENCE;
  if (declared && declared->elem && declared->elem->has_elem_type) v->elem_type = declared->elem->elem_type;
  wire::Reader r(b, &ctx);
  while (!r.done()) {
    uint32_t f, wt;
    r.next_field(f, wt);
    if (f == kFieldName) {
      r.expect(wt, wire::kLengthDelimited, "name");
      v->name = std::string(r.length_delimited().view());
    } else if (f == kFieldElemType) {
      r.expect(wt, wire::kVarint, "elem_type");
      int64_t et = static_cast<int64_t>(r.varint());
      if (et != 0 && et != kProtoTensor)
        fail(Status::kUnsupported, ctx + ": sequences of elements other than tensors are not supported");
    } else if (f == kFieldTensor) {
      r.expect(wt, wire::kLengthDelimited, "tensor_values");
      Bytes tb = r.length_delimited();
      auto t = std::make_unique<ofg_tensor>();
      t->t = parse_tensor_pb(tb.data, tb.size, &t->name);
      if (v->elem_type == 0) v->elem_type = t->t.dtype;
      if (t->t.dtype != v->elem_type)
        fail(Status::kInvalidModel, ctx + ": sequence element " + std::to_string(v->elements.size()) + " is " +
                                        dtype_name(t->t.dtype) + ", the sequence holds " + dtype_name(v->elem_type));
      v->elements.push_back(std::move(t));
    } else if (f >= kFieldSparseTensor && f <= kFieldOptional) {
      fail(Status::kUnsupported, ctx + ": sequences of elements other than tensors are not supported");
    } else {
      r.skip(wt);  // unknown fields of a newer schema carry nothing we could use
    }
  }
  return v;
}

std::unique_ptr<ofg_value> parse_optional(Bytes b, const Type* declared, const std::string& ctx) {
  const Type* inner_t = declared ? declared->elem : nullptr;
  auto v = std::make_unique<ofg_value>();
  v->kind = OFG_VALUE_OPTIONAL;
  wire::Reader r(b, &ctx);
  while (!r.done()) {
    uint32_t f, wt;
    r.next_field(f, wt);
    if (f == kFieldName) {
      r.expect(wt, wire::kLengthDelimited, "name");
      v->name = std::string(r.length_delimited().view());
    } else if (f == kFieldElemType) {
      r.expect(wt, wire::kVarint, "elem_type");
      r.varint();  // the declared type decides; an empty optional's elem_type says nothing more
    } else if (f == kFieldTensor || f == kFieldSequence) {
      r.expect(wt, wire::kLengthDelimited, f == kFieldTensor ? "tensor_value" : "sequence_value");
      Bytes inner = r.length_delimited();
      bool want_seq = inner_t && inner_t->kind == Type::kSequence;
      bool want_tensor = inner_t && inner_t->kind == Type::kTensor;
      if ((f == kFieldTensor && want_seq) || (f == kFieldSequence && want_tensor))
        fail(Status::kInvalidModel, ctx + ": the optional holds a " + (f == kFieldTensor ? "tensor" : "sequence") +
                                        ", its declared type says " + (want_seq ? "sequence" : "tensor"));
      v->inner = f == kFieldTensor ? parse_tensor_value(inner) : parse_sequence(inner, inner_t, ctx);
    } else if (f >= kFieldSparseTensor && f <= kFieldOptional) {
      fail(Status::kUnsupported, ctx + ": optionals of sparse tensors, maps or optionals are not supported");
    } else {
      r.skip(wt);
    }
  }
  return v;
}

std::unique_ptr<ofg_value> parse_value(Bytes b, const Type* declared, const std::string& ctx) {
  if (!declared || declared->kind == Type::kUnset || declared->kind == Type::kTensor) {
    try {
      return parse_tensor_value(b);
    } catch (const Error& e) {
      fail(e.status(), ctx + ": " + e.what());
    }
  }
  if (declared->kind == Type::kSequence) return parse_sequence(b, declared, ctx);
  if (declared->kind == Type::kOptional) {
    if (declared->elem && declared->elem->kind == Type::kOptional)
      fail(Status::kUnsupported, ctx + ": optionals of optionals are not supported");
    return parse_optional(b, declared, ctx);
  }
  fail(Status::kUnsupported, ctx + ": maps and sparse tensors are not supported");
}

// ---------------------------------------------------------------- runtime values

exec::RValue to_runtime(const ofg_value& v) {
  exec::RValue r;
  switch (v.kind) {
    case OFG_VALUE_TENSOR: return exec::RValue::tensor(v.tensor->t);
    case OFG_VALUE_SEQUENCE:
      r.kind = exec::RValue::kSequence;
      for (auto& e : v.elements) r.seq.push_back(e->t);
      r.seq_elem_type = v.elem_type;
      return r;
    case OFG_VALUE_OPTIONAL:
      // The interpreter holds a present optional as the value itself.
      if (v.inner) return to_runtime(*v.inner);
      r.kind = exec::RValue::kOptionalNone;
      return r;
    default: fail(Status::kInternal, "value of unknown kind");
  }
}

// `declared` decides whether the result is wrapped as an optional: the interpreter does not keep
// a present optional apart from its content.
std::unique_ptr<ofg_value> from_runtime(const exec::RValue& r, const Type* declared, const std::string& name) {
  auto v = std::make_unique<ofg_value>();
  v->name = name;
  if ((declared && declared->kind == Type::kOptional) || r.kind == exec::RValue::kOptionalNone) {
    v->kind = OFG_VALUE_OPTIONAL;
    if (r.kind != exec::RValue::kOptionalNone) v->inner = from_runtime(r, declared ? declared->elem : nullptr, name);
    return v;
  }
  if (r.kind == exec::RValue::kTensor) {
    v->kind = OFG_VALUE_TENSOR;
    v->tensor.reset(wrap_tensor(r.t, name));
  } else if (r.kind == exec::RValue::kSequence) {
    v->kind = OFG_VALUE_SEQUENCE;
    v->elem_type = r.seq_elem_type;
    if (!r.seq.empty()) v->elem_type = r.seq[0].dtype;
    for (auto& t : r.seq) v->elements.emplace_back(wrap_tensor(t, ""));
  } else {
    fail(Status::kInternal, "output '" + name + "' was not computed");
  }
  return v;
}

// ---------------------------------------------------------------- serialization

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
void put_bytes(std::string& out, uint32_t field, const std::string& b) {
  put_varint(out, (static_cast<uint64_t>(field) << 3) | wire::kLengthDelimited);
  put_varint(out, b.size());
  out += b;
}
void put_int(std::string& out, uint32_t field, uint64_t v) {
  put_varint(out, static_cast<uint64_t>(field) << 3);
  put_varint(out, v);
}

std::string serialize_value(const ofg_value& v, const char* name) {
  if (v.kind == OFG_VALUE_TENSOR) return serialize_tensor_pb(v.tensor->t, name);
  std::string b;
  if (name && *name) put_bytes(b, kFieldName, name);
  if (v.kind == OFG_VALUE_SEQUENCE) {
    put_int(b, kFieldElemType, kProtoTensor);
    for (auto& e : v.elements) put_bytes(b, kFieldTensor, serialize_tensor_pb(e->t, nullptr));
  } else if (v.inner) {
    bool seq = v.inner->kind == OFG_VALUE_SEQUENCE;
    put_int(b, kFieldElemType, seq ? kProtoSequence : kProtoTensor);
    put_bytes(b, seq ? kFieldSequence : kFieldTensor, serialize_value(*v.inner, nullptr));
  }
  return b;
}

// ---------------------------------------------------------------- comparison

verify::OutputDiff problem_entry(const std::string& name, const std::string& problem) {
  verify::OutputDiff d;
  d.name = name;
  d.problem = problem;
  return d;
}

void compare_into(const ofg_value& a, const ofg_value& e, const std::string& name, double atol, double rtol,
                  std::vector<verify::OutputDiff>& out) {
  if (a.kind != e.kind) {
    out.push_back(problem_entry(name, std::string("a ") + kind_name(a.kind) + ", expected a " + kind_name(e.kind)));
    return;
  }
  if (a.kind == OFG_VALUE_TENSOR) {
    verify::OutputDiff d = verify::compare(a.tensor->t, e.tensor->t, atol, rtol);
    d.name = name;
    out.push_back(d);
  } else if (a.kind == OFG_VALUE_SEQUENCE) {
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
        verify::OutputDiff d = verify::compare(a.elements[i]->t, e.elements[i]->t, atol, rtol);
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
      compare_into(*a.inner, *e.inner, name, atol, rtol, out);
  }
}

}  // namespace

namespace ofg::api {

exec::RValue parse_input_pb(const Model& m, size_t index, const void* data, size_t size, const std::string& ctx) {
  if (index >= m.graph->inputs.size)
    fail(Status::kInvalidArgument, ctx + ": the model has " + std::to_string(m.graph->inputs.size) + " inputs");
  const ValueInfo& vi = m.graph->inputs[index];
  static const uint8_t kNothing = 0;
  Bytes b{size ? static_cast<const uint8_t*>(data) : &kNothing, size};
  return to_runtime(*parse_value(b, vi.type ? vi.type : vi.value->type, ctx));
}

}  // namespace ofg::api

extern "C" {

ofg_status ofg_value_from_tensor(const ofg_tensor* tensor, ofg_value** out) {
  return api_call([&] {
    require(tensor, "ofg_value_from_tensor", "tensor");
    require(out, "ofg_value_from_tensor", "out");
    auto v = std::make_unique<ofg_value>();
    v->kind = OFG_VALUE_TENSOR;
    v->name = tensor->name;
    v->tensor = copy_tensor(*tensor);
    *out = v.release();
  });
}

ofg_status ofg_value_create_sequence(int32_t elem_type, const ofg_tensor* const* elements, size_t count,
                                     ofg_value** out) {
  return api_call([&] {
    require(out, "ofg_value_create_sequence", "out");
    if (count) require(elements, "ofg_value_create_sequence", "elements");
    if (!exec::is_supported_type(elem_type))
      fail(Status::kUnsupported, std::string("ofg_value_create_sequence: element type ") + dtype_name(elem_type) +
                                     " is not supported");
    auto v = std::make_unique<ofg_value>();
    v->kind = OFG_VALUE_SEQUENCE;
    v->elem_type = elem_type;
    for (size_t i = 0; i < count; ++i) {
      require(elements[i], "ofg_value_create_sequence", "elements[i]");
      if (elements[i]->t.dtype != elem_type)
        fail(Status::kInvalidArgument, "ofg_value_create_sequence: element " + std::to_string(i) + " is " +
                                           dtype_name(elements[i]->t.dtype) + ", not " + dtype_name(elem_type));
      v->elements.push_back(copy_tensor(*elements[i]));
    }
    *out = v.release();
  });
}

ofg_status ofg_value_create_optional(const ofg_value* element, ofg_value** out) {
  return api_call([&] {
    require(out, "ofg_value_create_optional", "out");
    if (element && element->kind == OFG_VALUE_OPTIONAL)
      fail(Status::kUnsupported, "ofg_value_create_optional: an optional cannot hold an optional");
    auto v = std::make_unique<ofg_value>();
    v->kind = OFG_VALUE_OPTIONAL;
    if (element) {
      v->name = element->name;
      v->inner = copy_value(*element);
    }
    *out = v.release();
  });
}

void ofg_value_free(ofg_value* value) { delete value; }

void ofg_values_free(ofg_value** values, size_t count) {
  if (!values) return;
  for (size_t i = 0; i < count; ++i) delete values[i];
  delete[] values;
}

int32_t ofg_value_kind(const ofg_value* value) { return value ? value->kind : 0; }
const char* ofg_value_name(const ofg_value* value) { return value ? value->name.c_str() : ""; }

namespace {
void require_kind(const ofg_value* v, int32_t kind, const char* fn) {
  require(v, fn, "value");
  if (v->kind != kind)
    fail(Status::kInvalidArgument, std::string(fn) + ": the value is a " + kind_name(v->kind) + ", not a " + kind_name(kind));
}
}  // namespace

ofg_status ofg_value_tensor(const ofg_value* value, const ofg_tensor** out) {
  return api_call([&] {
    require_kind(value, OFG_VALUE_TENSOR, "ofg_value_tensor");
    require(out, "ofg_value_tensor", "out");
    *out = value->tensor.get();
  });
}

ofg_status ofg_value_sequence_length(const ofg_value* value, size_t* out) {
  return api_call([&] {
    require_kind(value, OFG_VALUE_SEQUENCE, "ofg_value_sequence_length");
    require(out, "ofg_value_sequence_length", "out");
    *out = value->elements.size();
  });
}

ofg_status ofg_value_sequence_elem_type(const ofg_value* value, int32_t* out) {
  return api_call([&] {
    require_kind(value, OFG_VALUE_SEQUENCE, "ofg_value_sequence_elem_type");
    require(out, "ofg_value_sequence_elem_type", "out");
    *out = value->elem_type;
  });
}

ofg_status ofg_value_sequence_at(const ofg_value* value, size_t index, const ofg_tensor** out) {
  return api_call([&] {
    require_kind(value, OFG_VALUE_SEQUENCE, "ofg_value_sequence_at");
    require(out, "ofg_value_sequence_at", "out");
    if (index >= value->elements.size())
      fail(Status::kInvalidArgument, "ofg_value_sequence_at: index " + std::to_string(index) +
                                         " is out of range (length " + std::to_string(value->elements.size()) + ")");
    *out = value->elements[index].get();
  });
}

ofg_status ofg_value_optional_has_value(const ofg_value* value, int32_t* out) {
  return api_call([&] {
    require_kind(value, OFG_VALUE_OPTIONAL, "ofg_value_optional_has_value");
    require(out, "ofg_value_optional_has_value", "out");
    *out = value->inner ? 1 : 0;
  });
}

ofg_status ofg_value_optional_element(const ofg_value* value, const ofg_value** out) {
  return api_call([&] {
    require_kind(value, OFG_VALUE_OPTIONAL, "ofg_value_optional_element");
    require(out, "ofg_value_optional_element", "out");
    if (!value->inner) fail(Status::kInvalidArgument, "ofg_value_optional_element: the optional is empty");
    *out = value->inner.get();
  });
}

ofg_status ofg_value_load_pb(const ofg_model* model, int32_t io_kind, size_t index, const void* data, size_t size,
                             ofg_value** out) {
  return api_call([&] {
    require(model, "ofg_value_load_pb", "model");
    require(out, "ofg_value_load_pb", "out");
    if (size) require(data, "ofg_value_load_pb", "data");
    const Type* t = declared_io_type(model, io_kind, index, "ofg_value_load_pb");
    std::string ctx = std::string("ofg_value_load_pb: ") + (io_kind == OFG_INPUT ? "input " : "output ") +
                      std::to_string(index);
    // The reader views the bytes; the empty case needs a valid pointer all the same.
    static const uint8_t kNothing = 0;
    Bytes b{size ? static_cast<const uint8_t*>(data) : &kNothing, size};
    *out = parse_value(b, t, ctx).release();
  });
}

ofg_status ofg_value_save_pb(const ofg_value* value, const char* name, void** data, size_t* size) {
  return api_call([&] {
    require(value, "ofg_value_save_pb", "value");
    require(data, "ofg_value_save_pb", "data");
    require(size, "ofg_value_save_pb", "size");
    std::string b = serialize_value(*value, name);
    void* p = std::malloc(b.size() ? b.size() : 1);
    if (!p) throw std::bad_alloc();
    std::memcpy(p, b.data(), b.size());
    *data = p;
    *size = b.size();
  });
}

ofg_status ofg_run_values(const ofg_model* model, const ofg_options* options, size_t n_inputs, const char* const* names,
                          const ofg_value* const* inputs, size_t* n_outputs, ofg_value*** outputs) {
  return api_call([&] {
    require(model, "ofg_run_values", "model");
    require(n_outputs, "ofg_run_values", "n_outputs");
    require(outputs, "ofg_run_values", "outputs");
    exec::TensorBudgetScope budget(tensor_budget(options));
    if (n_inputs) {
      require(names, "ofg_run_values", "names");
      require(inputs, "ofg_run_values", "inputs");
    }
    std::vector<std::pair<std::string, exec::RValue>> in;
    for (size_t i = 0; i < n_inputs; ++i) {
      require(names[i], "ofg_run_values", "names[i]");
      require(inputs[i], "ofg_run_values", "inputs[i]");
      in.emplace_back(names[i], to_runtime(*inputs[i]));
    }
    // Shares ofg_run's cache of what is derived from the weights.
    if (!model->exec_cache) model->exec_cache = std::make_unique<exec::ExecCache>();
    exec::Interpreter interp(*model->model, model->exec_cache.get());
    std::vector<exec::RValue> outs = interp.run(in);
    Graph* g = model->model->graph;
    std::vector<std::unique_ptr<ofg_value>> made;
    for (size_t i = 0; i < outs.size(); ++i) {
      const ValueInfo& vi = g->outputs[i];
      made.push_back(from_runtime(outs[i], vi.type ? vi.type : vi.value->type, std::string(model->model->str(vi.value->name))));
    }
    auto** arr = new ofg_value*[made.size() ? made.size() : 1];
    for (size_t i = 0; i < made.size(); ++i) arr[i] = made[i].release();
    *n_outputs = made.size();
    *outputs = arr;
  });
}

ofg_status ofg_value_compare(const ofg_value* actual, const ofg_value* expected, double atol, double rtol,
                             ofg_report** out) {
  return api_call([&] {
    require(actual, "ofg_value_compare", "actual");
    require(expected, "ofg_value_compare", "expected");
    require(out, "ofg_value_compare", "out");
    auto r = std::make_unique<ofg_report>();
    compare_into(*actual, *expected, actual->name, atol, rtol, r->report.outputs);
    r->report.passed = true;
    for (auto& d : r->report.outputs) r->report.passed &= d.passed();
    *out = r.release();
  });
}

}  // extern "C"
