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
    ec.before(pb::ModelProto::kIrVersionFieldNumber);
    if (m_.has_ir_version) w_.field_int64(pb::ModelProto::kIrVersionFieldNumber, m_.ir_version);
    ec.before(pb::ModelProto::kProducerNameFieldNumber);
    str(pb::ModelProto::kProducerNameFieldNumber, m_.producer_name);
    ec.before(pb::ModelProto::kProducerVersionFieldNumber);
    str(pb::ModelProto::kProducerVersionFieldNumber, m_.producer_version);
    ec.before(pb::ModelProto::kDomainFieldNumber);
    str(pb::ModelProto::kDomainFieldNumber, m_.domain);
    ec.before(pb::ModelProto::kModelVersionFieldNumber);
    if (m_.has_model_version) w_.field_int64(pb::ModelProto::kModelVersionFieldNumber, m_.model_version);
    ec.before(pb::ModelProto::kDocStringFieldNumber);
    str(pb::ModelProto::kDocStringFieldNumber, m_.doc_string);
    ec.before(pb::ModelProto::kGraphFieldNumber);
    w_.message(pb::ModelProto::kGraphFieldNumber, [&] { graph(*m_.graph); });
    ec.before(pb::ModelProto::kOpsetImportFieldNumber);
    for (const OpsetId& o : m_.opsets) w_.message(pb::ModelProto::kOpsetImportFieldNumber, [&] { opset(o); });
    ec.before(pb::ModelProto::kMetadataPropsFieldNumber);
    for (const StringPair& p : m_.metadata) w_.message(pb::ModelProto::kMetadataPropsFieldNumber, [&] { pair(p); });
    ec.before(pb::ModelProto::kFunctionsFieldNumber);
    for (const Function* f : m_.functions) w_.message(pb::ModelProto::kFunctionsFieldNumber, [&] { function(*f); });
    ec.rest();
  }

 private:
  void str(uint32_t field, StrId id) {
    if (id != kNoStr) w_.field_string(field, m_.str(id));
  }

  void opset(const OpsetId& o) {
    ExtrasCursor ec(w_, o.extra);
    ec.before(pb::OperatorSetIdProto::kDomainFieldNumber);
    str(pb::OperatorSetIdProto::kDomainFieldNumber, o.domain);
    ec.before(pb::OperatorSetIdProto::kVersionFieldNumber);
    if (o.has_version) w_.field_int64(pb::OperatorSetIdProto::kVersionFieldNumber, o.version);
    ec.rest();
  }

  void pair(const StringPair& p) {
    ExtrasCursor ec(w_, p.extra);
    ec.before(pb::StringStringEntryProto::kKeyFieldNumber);
    str(pb::StringStringEntryProto::kKeyFieldNumber, p.key);
    ec.before(pb::StringStringEntryProto::kValueFieldNumber);
    str(pb::StringStringEntryProto::kValueFieldNumber, p.value);
    ec.rest();
  }

  void graph(const Graph& g) {
    ExtrasCursor ec(w_, g.extra);
    ec.before(pb::GraphProto::kNodeFieldNumber);
    for (const Node* n = g.first; n; n = n->next) w_.message(pb::GraphProto::kNodeFieldNumber, [&] { node(*n); });
    ec.before(pb::GraphProto::kNameFieldNumber);
    str(pb::GraphProto::kNameFieldNumber, g.name);
    ec.before(pb::GraphProto::kInitializerFieldNumber);
    for (const Value* v : g.initializers)
      w_.message(pb::GraphProto::kInitializerFieldNumber, [&] { tensor(*v->initializer, v->name); });
    ec.before(pb::GraphProto::kDocStringFieldNumber);
    str(pb::GraphProto::kDocStringFieldNumber, g.doc_string);
    ec.before(pb::GraphProto::kInputFieldNumber);
    for (const ValueInfo& vi : g.inputs) w_.message(pb::GraphProto::kInputFieldNumber, [&] { value_info(vi); });
    ec.before(pb::GraphProto::kOutputFieldNumber);
    for (const ValueInfo& vi : g.outputs) w_.message(pb::GraphProto::kOutputFieldNumber, [&] { value_info(vi); });
    ec.before(pb::GraphProto::kValueInfoFieldNumber);
    for (const ValueInfo& vi : g.value_infos) w_.message(pb::GraphProto::kValueInfoFieldNumber, [&] { value_info(vi); });
    ec.rest();
  }

  void value_info(const ValueInfo& vi) {
    ExtrasCursor ec(w_, vi.extra);
    ec.before(pb::ValueInfoProto::kNameFieldNumber);
    str(pb::ValueInfoProto::kNameFieldNumber, vi.value->name);
    ec.before(pb::ValueInfoProto::kTypeFieldNumber);
    const Type* t = vi.type ? vi.type : vi.value->type;
    if (vi.has_type && t) w_.message(pb::ValueInfoProto::kTypeFieldNumber, [&] { type(*t); });
    ec.before(pb::ValueInfoProto::kDocStringFieldNumber);
    str(pb::ValueInfoProto::kDocStringFieldNumber, vi.doc_string);
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
    ec.before(pb::TypeProto::kDenotationFieldNumber);
    str(pb::TypeProto::kDenotationFieldNumber, t.denotation);
    if (kind_field > pb::TypeProto::kDenotationFieldNumber) emit_kind();
    ec.rest();
  }

  void type_inner(const Type& t) {
    ExtrasCursor ec(w_, t.inner_extra);
    if (t.kind == Type::kTensor || t.kind == Type::kSparseTensor) {
      ec.before(pb::TypeProto_Tensor::kElemTypeFieldNumber);
      if (t.has_elem_type) w_.field_int64(pb::TypeProto_Tensor::kElemTypeFieldNumber, t.elem_type);
      ec.before(pb::TypeProto_Tensor::kShapeFieldNumber);
      if (t.has_shape) w_.message(pb::TypeProto_Tensor::kShapeFieldNumber, [&] { shape(t); });
    } else if (t.kind == Type::kMap) {
      ec.before(pb::TypeProto_Map::kKeyTypeFieldNumber);
      if (t.has_key_type) w_.field_int64(pb::TypeProto_Map::kKeyTypeFieldNumber, t.key_type);
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
    ec.before(pb::NodeProto::kInputFieldNumber);
    for (const Value* v : n.inputs) w_.field_string(pb::NodeProto::kInputFieldNumber, v ? m_.str(v->name) : std::string_view());
    ec.before(pb::NodeProto::kOutputFieldNumber);
    for (const Value* v : n.outputs) w_.field_string(pb::NodeProto::kOutputFieldNumber, v ? m_.str(v->name) : std::string_view());
    ec.before(pb::NodeProto::kNameFieldNumber);
    str(pb::NodeProto::kNameFieldNumber, n.name);
    ec.before(pb::NodeProto::kOpTypeFieldNumber);
    str(pb::NodeProto::kOpTypeFieldNumber, n.op_type);
    ec.before(pb::NodeProto::kAttributeFieldNumber);
    for (const Attribute& a : n.attributes) w_.message(pb::NodeProto::kAttributeFieldNumber, [&] { attribute(a); });
    ec.before(pb::NodeProto::kDocStringFieldNumber);
    str(pb::NodeProto::kDocStringFieldNumber, n.doc_string);
    ec.before(pb::NodeProto::kDomainFieldNumber);
    str(pb::NodeProto::kDomainFieldNumber, n.domain);
    ec.rest();
  }

  void attribute(const Attribute& a) {
    using A = pb::AttributeProto;
    ExtrasCursor ec(w_, a.extra);
    ec.before(A::kNameFieldNumber);
    str(A::kNameFieldNumber, a.name);
    ec.before(A::kFFieldNumber);
    if (a.present & Attribute::kF) {
      uint32_t bits;
      std::memcpy(&bits, &a.f, 4);
      w_.field_fixed32(A::kFFieldNumber, bits);
    }
    ec.before(A::kIFieldNumber);
    if (a.present & Attribute::kI) w_.field_int64(A::kIFieldNumber, a.i);
    ec.before(A::kSFieldNumber);
    if (a.present & Attribute::kS) w_.field_bytes(A::kSFieldNumber, a.s);
    ec.before(A::kTFieldNumber);
    if (a.t) w_.message(A::kTFieldNumber, [&] { tensor(*a.t, a.t->name); });
    ec.before(A::kGFieldNumber);
    if (a.g) w_.message(A::kGFieldNumber, [&] { graph(*a.g); });
    ec.before(A::kFloatsFieldNumber);
    for (float f : a.floats) {
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      w_.field_fixed32(A::kFloatsFieldNumber, bits);
    }
    ec.before(A::kIntsFieldNumber);
    for (int64_t i : a.ints) w_.field_int64(A::kIntsFieldNumber, i);
    ec.before(A::kStringsFieldNumber);
    for (Bytes s : a.strings) w_.field_bytes(A::kStringsFieldNumber, s);
    ec.before(A::kTensorsFieldNumber);
    for (const Tensor* t : a.tensors) w_.message(A::kTensorsFieldNumber, [&] { tensor(*t, t->name); });
    ec.before(A::kGraphsFieldNumber);
    for (const Graph* g : a.graphs) w_.message(A::kGraphsFieldNumber, [&] { graph(*g); });
    ec.before(A::kDocStringFieldNumber);
    str(A::kDocStringFieldNumber, a.doc_string);
    ec.before(A::kTypeFieldNumber);
    if (a.has_type) w_.field_int64(A::kTypeFieldNumber, a.type);
    ec.before(A::kRefAttrNameFieldNumber);
    str(A::kRefAttrNameFieldNumber, a.ref_attr_name);
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
    ec.before(T::kDataTypeFieldNumber);
    if (t.has_data_type) w_.field_int64(T::kDataTypeFieldNumber, t.data_type);
    ec.before(T::kStringDataFieldNumber);
    for (Bytes s : t.strings) w_.field_bytes(T::kStringDataFieldNumber, s);
    ec.before(T::kNameFieldNumber);
    str(T::kNameFieldNumber, name);
    ec.before(T::kRawDataFieldNumber);
    if (t.data_type != kString && !to_external) w_.field_tensor_bytes(T::kRawDataFieldNumber, t);
    ec.before(T::kDocStringFieldNumber);
    str(T::kDocStringFieldNumber, t.doc_string);
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
    ec.before(F::kNameFieldNumber);
    str(F::kNameFieldNumber, f.name);
    ec.before(F::kInputFieldNumber);
    for (const ValueInfo& vi : f.body->inputs) str(F::kInputFieldNumber, vi.value->name);
    ec.before(F::kOutputFieldNumber);
    for (const ValueInfo& vi : f.body->outputs) str(F::kOutputFieldNumber, vi.value->name);
    ec.before(F::kAttributeFieldNumber);
    for (StrId a : f.attribute_names) str(F::kAttributeFieldNumber, a);
    ec.before(F::kNodeFieldNumber);
    for (const Node* n = f.body->first; n; n = n->next) w_.message(F::kNodeFieldNumber, [&] { node(*n); });
    ec.before(F::kDocStringFieldNumber);
    str(F::kDocStringFieldNumber, f.doc_string);
    ec.before(F::kOpsetImportFieldNumber);
    for (const OpsetId& o : f.opsets) w_.message(F::kOpsetImportFieldNumber, [&] { opset(o); });
    ec.before(F::kDomainFieldNumber);
    str(F::kDomainFieldNumber, f.domain);
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

void serialize(const Model& m, wire::Sink& sink, ExternalPlan* ext) {
  Measured measured = measure(m, ext);
  write(m, ext, measured, sink);
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

// A temporary file beside the target that is removed unless committed by rename.
class TempFile {
 public:
  explicit TempFile(const std::string& target) : target_(target) {
    std::string tmpl = target + ".tmp-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    fd_ = mkstemp(buf.data());
    if (fd_ < 0) fail(Status::kIo, "cannot create a temporary file beside '" + target + "': " + std::strerror(errno));
    path_ = buf.data();
    fchmod(fd_, 0644);
  }
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(path_.c_str());
  }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  void finish(bool durable) {
    if (durable && fsync(fd_) != 0) fail(Status::kIo, "cannot flush '" + path_ + "': " + std::strerror(errno));
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail(Status::kIo, "cannot close '" + path_ + "': " + std::strerror(errno));
  }
  // Replaces the target atomically. Where the target exists, the two names are exchanged and the
  // old file is then unlinked: ext4 treats a plain rename over an existing file as a request to
  // start writeback of the new file at once (its auto_da_alloc heuristic), which stalls the
  // rename for as long as submitting the whole file takes (17 ms for a 45 MB model). Readers see
  // the old or the new file either way; durability across power loss is what save.durable is for.
  void commit() {
#if defined(RENAME_EXCHANGE) && (!defined(__ANDROID__) || __ANDROID_API__ >= 30)  // Bionic: API 30
    if (renameat2(AT_FDCWD, path_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) == 0) {
      committed_ = true;
      ::unlink(path_.c_str());  // now the old file
      return;
    }
    // ENOENT: no target yet; EINVAL/ENOSYS: not supported here. A plain rename does both.
#endif
    if (std::rename(path_.c_str(), target_.c_str()) != 0)
      fail(Status::kIo, "cannot rename the temporary file to '" + target_ + "': " + std::strerror(errno));
    committed_ = true;
  }

 private:
  std::string target_, path_;
  int fd_ = -1;
  bool committed_ = false;
};

std::string base_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string folder_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

}  // namespace

void save_model_file(const Model& m, const std::string& path, const SaveOptions& options) {
  if (path.empty()) fail(Status::kInvalidArgument, "the output path is empty");
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) fail(Status::kIo, "'" + path + "' is a directory");
  ExternalPlan plan;
  std::unique_ptr<TempFile> data_file;
  if (options.external_data) {
    plan.threshold = options.external_threshold;
    plan.location = options.external_file_name.empty() ? base_name(path) + ".data" : options.external_file_name;
    if (plan.location.find('/') != std::string::npos || plan.location == "." || plan.location == "..")
      fail(Status::kInvalidArgument, "external data file name '" + plan.location + "' must be a plain file name");
  }
  TempFile model_file(path);
  FileSink sink(model_file.fd(), model_file.path());
  serialize(m, sink, options.external_data ? &plan : nullptr);
  model_file.finish(options.durable);
  if (options.external_data && !plan.order.empty()) {
    data_file = std::make_unique<TempFile>(folder_of(path) + plan.location);
    FileSink dsink(data_file->fd(), data_file->path());
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
    data_file->finish(options.durable);
    data_file->commit();  // the data first: the model never points at a missing file
  }
  model_file.commit();
}

MallocBuffer save_model_memory(const Model& m) {
  Measured measured = measure(m, nullptr);
  if (measured.total > SIZE_MAX / 2) fail(Status::kLimit, "the model is too large to serialize in memory");
  MallocBuffer out(static_cast<size_t>(measured.total));
  MemorySink sink(out.data(), out.size());
  write(m, nullptr, measured, sink);
  return out;
}

}  // namespace ofg
