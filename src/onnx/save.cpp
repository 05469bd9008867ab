// IR -> ONNX bytes. Fields are written in field-number order (as protobuf does), with the raw
// fields the IR keeps merged back at their place, so an untouched model saves to the same bytes.
#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>

#include "ir/error.h"
#include "ofg_onnx_fields.h"
#include "onnx/mapped_file.h"
#include "onnx/serialize.h"
#include "onnx/temp_file.h"
#include "onnx/wire.h"

namespace ofg {
namespace {

namespace pb = ofg_onnx_fields;
using wire::ExtrasCursor;
using wire::Writer;

// Where tensors above the threshold go when saving with external data: offsets are assigned on
// first sight (the measuring pass) so both passes agree.
struct ExternalPlan {
  size_t threshold = 0;
  std::string location;
  std::unordered_map<const Tensor*, uint64_t> offsets;
  std::vector<const Tensor*> order;
  uint64_t size = 0;

  uint64_t place(const Tensor* t) {
    auto it = offsets.find(t);
    if (it != offsets.end()) return it->second;
    uint64_t offset = (size + 63) / 64 * 64;  // aligned so a mapping gives aligned weights
    offsets.emplace(t, offset);
    order.push_back(t);
    size = offset + t->data.size;
    return offset;
  }
};

class Saver {
 public:
  Saver(const Model& m, Writer& w, ExternalPlan* ext) : m_(m), w_(w), ext_(ext) {}

  void model() {
    ExtrasCursor ec(w_, m_.extra);
    int64(ec, pb::ModelProto::kIrVersionFieldNumber, m_.has_ir_version, m_.ir_version);
    str(ec, pb::ModelProto::kProducerNameFieldNumber, m_.producer_name);
    str(ec, pb::ModelProto::kProducerVersionFieldNumber, m_.producer_version);
    str(ec, pb::ModelProto::kDomainFieldNumber, m_.domain);
    int64(ec, pb::ModelProto::kModelVersionFieldNumber, m_.has_model_version, m_.model_version);
    str(ec, pb::ModelProto::kDocStringFieldNumber, m_.doc_string);
    ec.before(pb::ModelProto::kGraphFieldNumber);
    w_.message(pb::ModelProto::kGraphFieldNumber, [&] { graph(*m_.graph); });
    messages(ec, pb::ModelProto::kOpsetImportFieldNumber, m_.opsets, [&](const OpsetId& o) { opset(o); });
    messages(ec, pb::ModelProto::kMetadataPropsFieldNumber, m_.metadata, [&](const StringPair& p) { pair(p); });
    messages(ec, pb::ModelProto::kFunctionsFieldNumber, m_.functions, [&](const Function* f) { function(*f); });
    ec.rest();
  }

 private:
  void str(uint32_t field, StrId id) {
    if (id != kNoStr) w_.field_string(field, m_.str(id));
  }
  // A string field in its place among the fields kept from the input.
  void str(ExtrasCursor& ec, uint32_t field, StrId id) {
    ec.before(field);
    str(field, id);
  }
  // An optional int64 field in its place: written when `has`.
  void int64(ExtrasCursor& ec, uint32_t field, bool has, int64_t v) {
    ec.before(field);
    if (has) w_.field_int64(field, v);
  }
  // A repeated string field in its place: one string per item, `text(item)`.
  template <class Items, class Text>
  void strings(ExtrasCursor& ec, uint32_t field, const Items& items, Text text) {
    ec.before(field);
    for (const auto& item : items) w_.field_string(field, text(item));
  }
  // A repeated field of interned names in its place: name_of(item), skipped when it is kNoStr.
  template <class Items, class NameOf>
  void names(ExtrasCursor& ec, uint32_t field, const Items& items, NameOf name_of) {
    ec.before(field);
    for (const auto& item : items) str(field, name_of(item));
  }
  // A float field: its bits, as fixed32.
  void float32(uint32_t field, float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    w_.field_fixed32(field, bits);
  }
  // A repeated message field in its place: one message per item, its body written by `body`.
  template <class Items, class Body>
  void messages(ExtrasCursor& ec, uint32_t field, const Items& items, Body body) {
    ec.before(field);
    for (const auto& item : items) w_.message(field, [&] { body(item); });
  }

  void opset(const OpsetId& o) {
    ExtrasCursor ec(w_, o.extra);
    str(ec, pb::OperatorSetIdProto::kDomainFieldNumber, o.domain);
    int64(ec, pb::OperatorSetIdProto::kVersionFieldNumber, o.has_version, o.version);
    ec.rest();
  }

  void pair(const StringPair& p) {
    ExtrasCursor ec(w_, p.extra);
    str(ec, pb::StringStringEntryProto::kKeyFieldNumber, p.key);
    str(ec, pb::StringStringEntryProto::kValueFieldNumber, p.value);
    ec.rest();
  }

  void graph(const Graph& g) {
    ExtrasCursor ec(w_, g.extra);
    ec.before(pb::GraphProto::kNodeFieldNumber);
    for (const Node* n = g.first; n; n = n->next) w_.message(pb::GraphProto::kNodeFieldNumber, [&] { node(*n); });
    str(ec, pb::GraphProto::kNameFieldNumber, g.name);
    messages(ec, pb::GraphProto::kInitializerFieldNumber, g.initializers,
             [&](const Value* v) { tensor(*v->initializer, v->name); });
    str(ec, pb::GraphProto::kDocStringFieldNumber, g.doc_string);
    messages(ec, pb::GraphProto::kInputFieldNumber, g.inputs, [&](const ValueInfo& vi) { value_info(vi); });
    messages(ec, pb::GraphProto::kOutputFieldNumber, g.outputs, [&](const ValueInfo& vi) { value_info(vi); });
    messages(ec, pb::GraphProto::kValueInfoFieldNumber, g.value_infos, [&](const ValueInfo& vi) { value_info(vi); });
    ec.rest();
  }

  void value_info(const ValueInfo& vi) {
    ExtrasCursor ec(w_, vi.extra);
    str(ec, pb::ValueInfoProto::kNameFieldNumber, vi.value->name);
    ec.before(pb::ValueInfoProto::kTypeFieldNumber);
    const Type* t = vi.type ? vi.type : vi.value->type;
    if (vi.has_type && t) w_.message(pb::ValueInfoProto::kTypeFieldNumber, [&] { type(*t); });
    str(ec, pb::ValueInfoProto::kDocStringFieldNumber, vi.doc_string);
    ec.rest();
  }

  void type(const Type& t) {
    ExtrasCursor ec(w_, t.extra);
    uint32_t kind_field = 0;
    switch (t.kind) {
      case Type::kTensor: kind_field = pb::TypeProto::kTensorTypeFieldNumber; break;
      case Type::kSequence: kind_field = pb::TypeProto::kSequenceTypeFieldNumber; break;
      case Type::kMap: kind_field = pb::TypeProto::kMapTypeFieldNumber; break;
      case Type::kSparseTensor: kind_field = pb::TypeProto::kSparseTensorTypeFieldNumber; break;
      case Type::kOptional: kind_field = pb::TypeProto::kOptionalTypeFieldNumber; break;
      case Type::kUnset: break;
    }
    // Fields of TypeProto in number order: tensor 1, sequence 4, map 5, denotation 6, sparse 8, optional 9.
    auto emit_kind = [&] {
      ec.before(kind_field);
      w_.message(kind_field, [&] { type_inner(t); });
    };
    if (kind_field && kind_field < pb::TypeProto::kDenotationFieldNumber) emit_kind();
    str(ec, pb::TypeProto::kDenotationFieldNumber, t.denotation);
    if (kind_field > pb::TypeProto::kDenotationFieldNumber) emit_kind();
    ec.rest();
  }

  void type_inner(const Type& t) {
    ExtrasCursor ec(w_, t.inner_extra);
    if (t.kind == Type::kTensor || t.kind == Type::kSparseTensor) {
      int64(ec, pb::TypeProto_Tensor::kElemTypeFieldNumber, t.has_elem_type, t.elem_type);
      ec.before(pb::TypeProto_Tensor::kShapeFieldNumber);
      if (t.has_shape) w_.message(pb::TypeProto_Tensor::kShapeFieldNumber, [&] { shape(t); });
    } else if (t.kind == Type::kMap) {
      int64(ec, pb::TypeProto_Map::kKeyTypeFieldNumber, t.has_key_type, t.key_type);
      ec.before(pb::TypeProto_Map::kValueTypeFieldNumber);
      if (t.elem) w_.message(pb::TypeProto_Map::kValueTypeFieldNumber, [&] { type(*t.elem); });
    } else {
      ec.before(pb::TypeProto_Sequence::kElemTypeFieldNumber);
      if (t.elem) w_.message(pb::TypeProto_Sequence::kElemTypeFieldNumber, [&] { type(*t.elem); });
    }
    ec.rest();
  }

  void shape(const Type& t) {
    ExtrasCursor ec(w_, t.shape_extra);
    ec.before(pb::TensorShapeProto::kDimFieldNumber);
    for (const Dim& d : t.dims) {
      w_.message(pb::TensorShapeProto::kDimFieldNumber, [&] {
        ExtrasCursor dc(w_, d.extra);
        dc.before(pb::TensorShapeProto_Dimension::kDimValueFieldNumber);
        if (d.has_value) w_.field_int64(pb::TensorShapeProto_Dimension::kDimValueFieldNumber, d.value);
        dc.before(pb::TensorShapeProto_Dimension::kDimParamFieldNumber);
        str(pb::TensorShapeProto_Dimension::kDimParamFieldNumber, d.param);
        dc.rest();
      });
    }
    ec.rest();
  }

  void node(const Node& n) {
    ExtrasCursor ec(w_, n.extra);
    // An omitted optional input or output is written as "" (its position counts).
    auto name = [&](const Value* v) { return v ? m_.str(v->name) : std::string_view(); };
    strings(ec, pb::NodeProto::kInputFieldNumber, n.inputs, name);
    strings(ec, pb::NodeProto::kOutputFieldNumber, n.outputs, name);
    str(ec, pb::NodeProto::kNameFieldNumber, n.name);
    str(ec, pb::NodeProto::kOpTypeFieldNumber, n.op_type);
    messages(ec, pb::NodeProto::kAttributeFieldNumber, n.attributes, [&](const Attribute& a) { attribute(a); });
    str(ec, pb::NodeProto::kDocStringFieldNumber, n.doc_string);
    str(ec, pb::NodeProto::kDomainFieldNumber, n.domain);
    ec.rest();
  }

  void attribute(const Attribute& a) {
    using A = pb::AttributeProto;
    ExtrasCursor ec(w_, a.extra);
    str(ec, A::kNameFieldNumber, a.name);
    ec.before(A::kFFieldNumber);
    if (a.present & Attribute::kF) float32(A::kFFieldNumber, a.f);
    ec.before(A::kIFieldNumber);
    if (a.present & Attribute::kI) w_.field_int64(A::kIFieldNumber, a.i);
    ec.before(A::kSFieldNumber);
    if (a.present & Attribute::kS) w_.field_bytes(A::kSFieldNumber, a.s);
    ec.before(A::kTFieldNumber);
    if (a.t) w_.message(A::kTFieldNumber, [&] { tensor(*a.t, a.t->name); });
    ec.before(A::kGFieldNumber);
    if (a.g) w_.message(A::kGFieldNumber, [&] { graph(*a.g); });
    ec.before(A::kFloatsFieldNumber);
    for (float f : a.floats) float32(A::kFloatsFieldNumber, f);
    ec.before(A::kIntsFieldNumber);
    for (int64_t i : a.ints) w_.field_int64(A::kIntsFieldNumber, i);
    ec.before(A::kStringsFieldNumber);
    for (Bytes s : a.strings) w_.field_bytes(A::kStringsFieldNumber, s);
    messages(ec, A::kTensorsFieldNumber, a.tensors, [&](const Tensor* t) { tensor(*t, t->name); });
    messages(ec, A::kGraphsFieldNumber, a.graphs, [&](const Graph* g) { graph(*g); });
    str(ec, A::kDocStringFieldNumber, a.doc_string);
    int64(ec, A::kTypeFieldNumber, a.has_type, a.type);
    str(ec, A::kRefAttrNameFieldNumber, a.ref_attr_name);
    ec.rest();
  }

  void tensor(const Tensor& t, StrId name) {
    using T = pb::TensorProto;
    bool to_external = ext_ && t.data_type != kString && t.data.size >= ext_->threshold && t.data.size > 0;
    if (!to_external && t.source.data && t.storage != Tensor::kExternal && name == t.name) {
      w_.raw(t.source.data, t.source.size);  // untouched since load: the original encoding
      return;
    }
    // Rebuilt: data goes to raw_data (or the external file); the old location fields are dropped.
    Extras kept;
    for (const RawField& f : t.extra)
      if (f.number != T::kExternalDataFieldNumber && f.number != T::kDataLocationFieldNumber) kept.push(scratch_, f);
    ExtrasCursor ec(w_, kept);
    ec.before(T::kDimsFieldNumber);
    for (int64_t d : t.dims) w_.field_int64(T::kDimsFieldNumber, d);
    int64(ec, T::kDataTypeFieldNumber, t.has_data_type, t.data_type);
    ec.before(T::kStringDataFieldNumber);
    for (Bytes s : t.strings) w_.field_bytes(T::kStringDataFieldNumber, s);
    str(ec, T::kNameFieldNumber, name);
    ec.before(T::kRawDataFieldNumber);
    if (t.data_type != kString && !to_external) w_.field_tensor_bytes(T::kRawDataFieldNumber, t);
    str(ec, T::kDocStringFieldNumber, t.doc_string);
    if (to_external) {
      uint64_t offset = ext_->place(&t);
      ec.before(T::kExternalDataFieldNumber);
      auto entry = [&](const char* key, const std::string& value) {
        w_.message(T::kExternalDataFieldNumber, [&] {
          w_.field_string(pb::StringStringEntryProto::kKeyFieldNumber, key);
          w_.field_string(pb::StringStringEntryProto::kValueFieldNumber, value);
        });
      };
      entry("location", ext_->location);
      entry("offset", std::to_string(offset));
      entry("length", std::to_string(t.data.size));
      ec.before(T::kDataLocationFieldNumber);
      w_.field_varint(T::kDataLocationFieldNumber, pb::TensorProto_DataLocation_EXTERNAL);
    }
    ec.rest();
  }

  void function(const Function& f) {
    using F = pb::FunctionProto;
    ExtrasCursor ec(w_, f.extra);
    str(ec, F::kNameFieldNumber, f.name);
    auto value_name = [](const ValueInfo& vi) { return vi.value->name; };
    names(ec, F::kInputFieldNumber, f.body->inputs, value_name);
    names(ec, F::kOutputFieldNumber, f.body->outputs, value_name);
    names(ec, F::kAttributeFieldNumber, f.attribute_names, [](StrId a) { return a; });
    ec.before(F::kNodeFieldNumber);
    for (const Node* n = f.body->first; n; n = n->next) w_.message(F::kNodeFieldNumber, [&] { node(*n); });
    str(ec, F::kDocStringFieldNumber, f.doc_string);
    messages(ec, F::kOpsetImportFieldNumber, f.opsets, [&](const OpsetId& o) { opset(o); });
    str(ec, F::kDomainFieldNumber, f.domain);
    ec.rest();
  }

  const Model& m_;
  Writer& w_;
  ExternalPlan* ext_;
  Arena scratch_;  // short-lived copies made while writing (filtered extras)
};

// What the measuring pass finds: the length of every nested message, the computed tensors in the
// order they will be streamed, and the total size.
struct Measured {
  std::vector<uint64_t> sizes;
  std::vector<const Tensor*> computed;
  uint64_t total = 0;
};

Measured measure(const Model& m, ExternalPlan* ext) {
  if (!m.graph) fail(Status::kInvalidArgument, "the model has no graph");
  Measured out;
  auto counter = std::make_unique<Writer>(nullptr, &out.sizes);
  counter->list_computed(&out.computed);
  Saver(m, *counter, ext).model();
  out.total = counter->position();
  return out;
}

// Bytes that still live in a mapped model file are copied from that file by the kernel.
class ModelSources : public wire::SourceFinder {
 public:
  explicit ModelSources(const Model& m) : m_(m) {}
  bool find(Bytes b, int& fd, uint64_t& offset) const override { return find_file_source(m_, b, fd, offset); }

 private:
  const Model& m_;
};

// Writes, with the lengths measured before, so nested messages are streamed.
void write(const Model& m, ExternalPlan* ext, Measured& measured, wire::Sink& sink) {
  ModelSources sources(m);
  ComputedStream computed(std::move(measured.computed));
  auto writer = std::make_unique<Writer>(&sink, &measured.sizes, &sources);
  writer->stream_computed(&computed);
  Saver(m, *writer, ext).model();
  writer->flush();
}

class FileSink : public wire::Sink {
 public:
  FileSink(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  void write(const void* data, size_t size) override {
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
      ssize_t n = ::write(fd_, p, size);
      if (n < 0) {
        if (errno == EINTR) continue;
        fail(Status::kIo, "cannot write '" + path_ + "': " + std::strerror(errno));
      }
      p += n;
      size -= static_cast<size_t>(n);
    }
  }
  void write_from_file(const void* data, size_t size, int fd, uint64_t offset) override {
    size_t done = 0;
#if !defined(__ANDROID__) || __ANDROID_API__ >= 34  // Bionic has copy_file_range from API 34
    loff_t in = static_cast<loff_t>(offset);
    while (done < size) {
      ssize_t n = copy_file_range(fd, &in, fd_, nullptr, size - done, 0);
      if (n > 0) {
        done += static_cast<size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP)
        fail(Status::kIo, "cannot write '" + path_ + "': " + std::strerror(errno));
      break;  // not possible here (other file system, old kernel, end of file): write the rest
    }
#else
    (void)fd;
    (void)offset;
#endif
    if (done < size) write(static_cast<const uint8_t*>(data) + done, size - done);
  }

 private:
  int fd_;
  std::string path_;
};

// Writes into a buffer of the exact measured size.
class MemorySink : public wire::Sink {
 public:
  MemorySink(uint8_t* out, size_t capacity) : out_(out), capacity_(capacity) {}
  void write(const void* data, size_t size) override {
    if (size > capacity_ - used_) fail(Status::kInternal, "serializer wrote more than it measured");
    std::memcpy(out_ + used_, data, size);
    used_ += size;
  }

 private:
  uint8_t* out_;
  size_t capacity_;
  size_t used_ = 0;
};

std::string base_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string folder_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

// The largest message protobuf parses (its sizes are signed 32-bit): a model over this written
// inline is a file that onnx.load and ONNX Runtime refuse.
constexpr uint64_t kMaxProtobuf = 2147483647;  // 2 GiB - 1

std::string byte_count(uint64_t n) {
  char buf[64];
  if (n >= (1ull << 30)) std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(n) / (1ull << 30));
  else std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(n) / (1ull << 20));
  return std::to_string(n) + " bytes (" + buf + ")";
}

bool same_inode(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

// A save may replace a file the loaded model still reads (its own file, its data file) only when
// it replaces the model's own file too (an in-place save, where the old files stay readable
// through their mappings); otherwise it would change another model on disk, the input.
void refuse_replacing_inputs(const Model& m, const std::string& model_path, const std::string& target) {
  struct stat t, src;
  if (::stat(target.c_str(), &t) != 0) return;
  if (!m.source_path.empty() && ::stat(model_path.c_str(), &src) == 0) {
    struct stat source;
    if (::stat(m.source_path.c_str(), &source) == 0 && same_inode(src, source)) return;  // in place
  }
  for (const auto& backing : m.backings) {
    const auto* file = dynamic_cast<const MappedFile*>(backing.get());
    struct stat in;
    if (file && file->fd() >= 0 && ::fstat(file->fd(), &in) == 0 && same_inode(in, t))
      fail(Status::kInvalidArgument, "saving '" + model_path + "' would replace '" + target +
                                         "', which holds weights of the loaded model '" + m.source_path +
                                         "' (choose another output or save.external_file)");
  }
}

// The data file's name unless the caller gave one: OUT's name + ".data", except that an in-place
// save of a model whose weights all came from one file of its folder writes them back under that
// name (the layout the user had; "OUT.data" would leave the old file behind, unused).
std::string default_data_file_name(const Model& m, const std::string& path) {
  struct stat out, source;
  const bool in_place = !m.source_path.empty() && ::stat(path.c_str(), &out) == 0 &&
                        ::stat(m.source_path.c_str(), &source) == 0 && same_inode(out, source);
  if (in_place && m.external_locations.size() == 1) {
    const std::string& loc = m.external_locations[0];
    if (loc.find_first_of("/\\") == std::string::npos && loc != "." && loc != "..") return loc;
  }
  return base_name(path) + ".data";
}

// Streams the tensors placed in the data file, at their offsets.
void write_data_file(const Model& m, ExternalPlan& plan, TempFile& file) {
  FileSink dsink(file.fd(), file.target());
  uint64_t at = 0;
  std::vector<const Tensor*> computed;
  for (const Tensor* t : plan.order)
    if (t->recipe) computed.push_back(t);
  ComputedStream streamer(std::move(computed));
  static const uint8_t zeros[64] = {};
  for (const Tensor* t : plan.order) {
    uint64_t offset = plan.offsets[t];
    dsink.write(zeros, static_cast<size_t>(offset - at));
    int fd;
    uint64_t source_offset;
    if (t->recipe) streamer.write(*t, dsink);
    else if (find_file_source(m, t->data, fd, source_offset)) dsink.write_from_file(t->data.data, t->data.size, fd, source_offset);
    else dsink.write(t->data.data, t->data.size);
    at = offset + t->data.size;
  }
}

}  // namespace

void save_model_file(const Model& m, const std::string& path, const SaveOptions& options) {
  if (path.empty()) fail(Status::kInvalidArgument, "the output path is empty");
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) fail(Status::kIo, "'" + path + "' is a directory");
  // Where the weights go, decided (and the sizes measured) before anything is written.
  ExternalPlan plan;
  plan.threshold = options.external_threshold;
  plan.location = options.external_file_name.empty() ? default_data_file_name(m, path) : options.external_file_name;
  if (plan.location.find('/') != std::string::npos || plan.location == "." || plan.location == "..")
    fail(Status::kInvalidArgument, "external data file name '" + plan.location + "' must be a plain file name");
  bool external = options.external_data || (!options.inline_data && m.loaded_external_data);
  std::string why = options.external_data ? "save.external_data=1" : "the input model kept its weights in external data";
  Measured measured;
  if (!external) {
    measured = measure(m, nullptr);
    if (measured.total > kMaxProtobuf) {
      if (options.inline_data)
        fail(Status::kLimit, "'" + path + "': the model is " + byte_count(measured.total) +
                                 " as one protobuf, over protobuf's limit of 2 GiB - 1 bytes (no reader could parse it); "
                                 "save it with external data (save.external_data=1, or leave the option unset)");
      external = true;
      why = "the model is " + byte_count(measured.total) + " inline, over protobuf's 2 GiB limit";
    }
  }
  if (external) {
    measured = measure(m, &plan);
    if (measured.total > kMaxProtobuf)
      fail(Status::kLimit, "'" + path + "': even with tensors of " + std::to_string(plan.threshold) +
                               " bytes or more in external data the model is " + byte_count(measured.total) +
                               " as one protobuf, over protobuf's limit of 2 GiB - 1 bytes");
  }
  const bool data_file = external && !plan.order.empty();
  const std::string data_path = folder_of(path) + plan.location;
  refuse_replacing_inputs(m, path, path);
  if (data_file) refuse_replacing_inputs(m, path, data_path);

  // The model, then the data, each in a temporary file; then the data is put in place first (the
  // model never names a missing file) and the model after it. Should the model's rename fail, the
  // data file is put back as it was. Only a crash between the two renames (microseconds) can
  // leave the new data file beside the old model.
  TempFile model_file(path);
  FileSink sink(model_file.fd(), model_file.target());
  write(m, external ? &plan : nullptr, measured, sink);
  model_file.finish(options.durable);
  std::unique_ptr<TempFile> data;
  if (data_file) {
    data = std::make_unique<TempFile>(data_path);
    write_data_file(m, plan, *data);
    data->finish(options.durable);
    data->commit();
  }
  try {
    model_file.commit();
  } catch (...) {
    if (data) data->rollback();
    throw;
  }
  model_file.settle();
  if (data) data->settle();
  if (data_file && options.log)
    options.log(1, "weights written to " + data_path + ": " + std::to_string(plan.order.size()) + " tensors, " +
                       byte_count(plan.size) + " (" + why + ")");
}

MallocBuffer save_model_memory(const Model& m) {
  Measured measured = measure(m, nullptr);
  if (measured.total > kMaxProtobuf)
    fail(Status::kLimit, "the model is " + byte_count(measured.total) +
                             " as one protobuf, over protobuf's limit of 2 GiB - 1 bytes; save it to a file with external data");
  if (measured.total > SIZE_MAX / 2) fail(Status::kLimit, "the model is too large to serialize in memory");
  MallocBuffer out(static_cast<size_t>(measured.total));
  MemorySink sink(out.data(), out.size());
  write(m, nullptr, measured, sink);
  return out;
}

}  // namespace ofg
