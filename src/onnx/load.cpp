// ONNX bytes -> IR: ModelProto and the entry points (file, memory). The other messages are read
// by the files named in onnx/loader.h.
#include "onnx/mapped_file.h"
#include "onnx/serialize.h"
#include "onnx/loader.h"

namespace ofg {
namespace load {

void Loader::model(Bytes bytes) {
  Reader r(bytes, &ctx_);
  Bytes graph_bytes;
  bool has_graph = false;
  std::vector<Bytes> functions;
  uint32_t f, wt;
  while (r.next(f, wt)) {
    switch (f) {
      case pb::ModelProto::kIrVersionFieldNumber:
        if (int_field(r, wt, m_.ir_version, m_.has_ir_version)) continue;
        break;
      case pb::ModelProto::kProducerNameFieldNumber:
        if (str_field(r, wt, m_.producer_name)) continue;
        break;
      case pb::ModelProto::kProducerVersionFieldNumber:
        if (str_field(r, wt, m_.producer_version)) continue;
        break;
      case pb::ModelProto::kDomainFieldNumber:
        if (str_field(r, wt, m_.domain)) continue;
        break;
      case pb::ModelProto::kModelVersionFieldNumber:
        if (int_field(r, wt, m_.model_version, m_.has_model_version)) continue;
        break;
      case pb::ModelProto::kDocStringFieldNumber:
        if (str_field(r, wt, m_.doc_string)) continue;
        break;
      case pb::ModelProto::kGraphFieldNumber:
        if (wt != kLengthDelimited) break;
        if (has_graph) fail(Status::kInvalidModel, ctx_ + ": the model has more than one graph field");
        graph_bytes = r.length_delimited();
        has_graph = true;
        continue;
      case pb::ModelProto::kOpsetImportFieldNumber:
        if (wt != kLengthDelimited) break;
        m_.opsets.push(a_, opset(r.length_delimited()));
        continue;
      case pb::ModelProto::kMetadataPropsFieldNumber:
        if (wt != kLengthDelimited) break;
        m_.metadata.push(a_, string_pair(r.length_delimited()));
        continue;
      case pb::ModelProto::kFunctionsFieldNumber:
        if (wt != kLengthDelimited) break;
        functions.push_back(r.length_delimited());
        continue;
      default:
        break;
    }
    keep(m_.extra, r, f, wt);
  }
  if (!has_graph) fail(Status::kInvalidModel, ctx_ + ": the model has no graph");
  m_.graph = graph(graph_bytes, nullptr, nullptr, 0);
  for (Bytes fb : functions) m_.functions.push(a_, function(fb));
}

OpsetId Loader::opset(Bytes b) {
  OpsetId o;
  Reader r(b, &ctx_);
  uint32_t f, wt;
  while (r.next(f, wt)) {
    if (f == pb::OperatorSetIdProto::kDomainFieldNumber && str_field(r, wt, o.domain)) continue;
    if (f == pb::OperatorSetIdProto::kVersionFieldNumber && int_field(r, wt, o.version, o.has_version)) continue;
    keep(o.extra, r, f, wt);
  }
  return o;
}

StringPair Loader::string_pair(Bytes b) {
  StringPair p;
  Reader r(b, &ctx_);
  uint32_t f, wt;
  while (r.next(f, wt)) {
    if (f == pb::StringStringEntryProto::kKeyFieldNumber && wt == kLengthDelimited) p.key = str(r);
    else if (f == pb::StringStringEntryProto::kValueFieldNumber && wt == kLengthDelimited) p.value = str(r);
    else keep(p.extra, r, f, wt);
  }
  return p;
}

}  // namespace load

namespace {

std::unique_ptr<Model> parse(Bytes bytes, std::shared_ptr<Backing> backing, const std::string& context,
                             const std::string& external_dir) {
  if (bytes.size == 0) fail(Status::kParse, context + ": the model is empty (0 bytes)");
  auto m = std::make_unique<Model>();
  m->backings.push_back(std::move(backing));
  std::unique_ptr<ExternalData> external;
  if (!external_dir.empty()) external = std::make_unique<ExternalData>(external_dir);
  load::Loader loader(*m, context, external.get());
  loader.model(bytes);
  return m;
}

std::string folder_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

std::unique_ptr<Model> load_model_file(const std::string& path, const LoadOptions& options) {
  std::shared_ptr<MappedFile> file = MappedFile::open(path);
  Bytes bytes = file->bytes();
  std::string dir = options.external_data_dir.empty() ? folder_of(path) : options.external_data_dir;
  auto m = parse(bytes, file, path, dir);
  m->source_path = path;
  return m;
}

std::unique_ptr<Model> load_model_memory(const void* data, size_t size, const LoadOptions& options) {
  std::shared_ptr<Backing> backing;
  Bytes bytes{static_cast<const uint8_t*>(data), size};
  if (options.copy_buffer && size) {
    auto owned = std::make_shared<OwnedBuffer>(data, size);
    bytes = owned->bytes();
    backing = owned;
  }
  return parse(bytes, backing, "<memory>", options.external_data_dir);
}

}  // namespace ofg
