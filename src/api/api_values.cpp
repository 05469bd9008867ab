// C ABI of values that are not plain tensors: sequences and optionals as graph inputs and
// outputs, their .pb files (SequenceProto, OptionalProto), ofg_run_values and ofg_value_compare.
// What a value holds, its .pb form and its comparison are verify::Value's (verify/values.h).
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "api/guard.h"
#include "api/handles.h"
#include "api/run.h"
#include "verify/values.h"

struct ofg_value {
  ofg::verify::Value v;
  // Handles of its parts, for the accessors that return them (the same bytes as v's).
  std::unique_ptr<ofg_tensor> tensor;                 // OFG_VALUE_TENSOR
  std::vector<std::unique_ptr<ofg_tensor>> elements;  // OFG_VALUE_SEQUENCE
  std::unique_ptr<ofg_value> inner;                   // OFG_VALUE_OPTIONAL; null = empty
};

using namespace ofg;
using namespace ofg::api;

namespace {

static_assert(int32_t{verify::Value::kTensor} == OFG_VALUE_TENSOR && int32_t{verify::Value::kSequence} == OFG_VALUE_SEQUENCE &&
                  int32_t{verify::Value::kOptional} == OFG_VALUE_OPTIONAL,
              "verify::Value::Kind numbers OFG_VALUE_*");

std::unique_ptr<ofg_tensor> tensor_handle(const verify::Value& v) {
  auto h = std::make_unique<ofg_tensor>();
  h->t = v.tensor;
  h->name = v.name;
  return h;
}

std::unique_ptr<ofg_value> value_handle(verify::Value v) {
  auto h = std::make_unique<ofg_value>();
  if (v.kind == verify::Value::kTensor) h->tensor = tensor_handle(v);
  for (const verify::Value& e : v.elements) h->elements.push_back(tensor_handle(e));
  if (v.inner) h->inner = value_handle(*v.inner);
  h->v = std::move(v);
  return h;
}

verify::Value tensor_value(const ofg_tensor& t) {
  verify::Value v;
  v.kind = verify::Value::kTensor;
  v.name = t.name;
  v.tensor = t.t;
  return v;
}

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

void require_kind(const ofg_value* v, int32_t kind, const char* fn) {
  require(v, fn, "value");
  if (v->v.kind != kind)
    fail(Status::kInvalidArgument, std::string(fn) + ": the value is a " + verify::kind_name(v->v.kind) + ", not a " +
                                       verify::kind_name(kind));
}

}  // namespace

extern "C" {

ofg_status ofg_value_from_tensor(const ofg_tensor* tensor, ofg_value** out) {
  return api_call([&] {
    require(tensor, "ofg_value_from_tensor", "tensor");
    require(out, "ofg_value_from_tensor", "out");
    *out = value_handle(tensor_value(*tensor)).release();
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
    verify::Value v;
    v.kind = verify::Value::kSequence;
    v.elem_type = elem_type;
    for (size_t i = 0; i < count; ++i) {
      require(elements[i], "ofg_value_create_sequence", "elements[i]");
      if (elements[i]->t.dtype != elem_type)
        fail(Status::kInvalidArgument, "ofg_value_create_sequence: element " + std::to_string(i) + " is " +
                                           dtype_name(elements[i]->t.dtype) + ", not " + dtype_name(elem_type));
      v.elements.push_back(tensor_value(*elements[i]));
    }
    *out = value_handle(std::move(v)).release();
  });
}

ofg_status ofg_value_create_optional(const ofg_value* element, ofg_value** out) {
  return api_call([&] {
    require(out, "ofg_value_create_optional", "out");
    if (element && element->v.kind == verify::Value::kOptional)
      fail(Status::kUnsupported, "ofg_value_create_optional: an optional cannot hold an optional");
    verify::Value v;
    v.kind = verify::Value::kOptional;
    if (element) {
      v.name = element->v.name;
      v.inner = std::make_shared<const verify::Value>(element->v);
    }
    *out = value_handle(std::move(v)).release();
  });
}

void ofg_value_free(ofg_value* value) { delete value; }

void ofg_values_free(ofg_value** values, size_t count) { delete_handles(values, count); }

int32_t ofg_value_kind(const ofg_value* value) { return value ? value->v.kind : 0; }
const char* ofg_value_name(const ofg_value* value) { return value ? value->v.name.c_str() : ""; }

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
    *out = value->v.elements.size();
  });
}

ofg_status ofg_value_sequence_elem_type(const ofg_value* value, int32_t* out) {
  return api_call([&] {
    require_kind(value, OFG_VALUE_SEQUENCE, "ofg_value_sequence_elem_type");
    require(out, "ofg_value_sequence_elem_type", "out");
    *out = value->v.elem_type;
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
    *out = value_handle(verify::read_value_pb(Bytes{static_cast<const uint8_t*>(data), size}, t, ctx)).release();
  });
}

ofg_status ofg_value_save_pb(const ofg_value* value, const char* name, void** data, size_t* size) {
  return api_call([&] {
    require(value, "ofg_value_save_pb", "value");
    hand_out_pb("ofg_value_save_pb", value->v, name, data, size);
  });
}

ofg_status ofg_run_values(const ofg_model* model, const ofg_options* options, size_t n_inputs, const char* const* names,
                          const ofg_value* const* inputs, size_t* n_outputs, ofg_value*** outputs) {
  return api_call([&] {
    run_model(
        "ofg_run_values", model, options, n_inputs, names, inputs, n_outputs, outputs,
        [](const ofg_value& v) { return verify::to_runtime(v.v); },
        [&](const ValueInfo& vi, const exec::RValue& r) {
          return value_handle(verify::from_runtime(r, vi.type ? vi.type : vi.value->type, std::string(model->model->str(vi.value->name))));
        });
  });
}

ofg_status ofg_value_compare(const ofg_value* actual, const ofg_value* expected, double atol, double rtol,
                             ofg_report** out) {
  return api_call([&] {
    require(actual, "ofg_value_compare", "actual");
    require(expected, "ofg_value_compare", "expected");
    require(out, "ofg_value_compare", "out");
    auto r = std::make_unique<ofg_report>();
    verify::compare_values(actual->v, expected->v, actual->v.name, atol, rtol, r->report.outputs);
    r->report.passed = true;
    for (auto& d : r->report.outputs) r->report.passed &= d.passed();
    *out = r.release();
  });
}

}  // extern "C"
