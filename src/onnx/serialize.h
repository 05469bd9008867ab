// ONNX protobuf bytes <-> IR.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace ofg {

struct LoadOptions {
  // Folder that external-data locations are relative to. For file loads it defaults to the
  // model's folder; for memory loads external data is refused unless it is set.
  std::string external_data_dir;
  // Copy the caller's buffer once instead of viewing it (memory loads only).
  bool copy_buffer = false;
};

// Parses a model file (memory-mapped; tensors view the mapping).
std::unique_ptr<Model> load_model_file(const std::string& path, const LoadOptions& options);
// Parses a model from memory. Unless options.copy_buffer, the buffer must outlive the model.
std::unique_ptr<Model> load_model_memory(const void* data, size_t size, const LoadOptions& options);

struct SaveOptions {
  // When true, tensors of at least `external_threshold` bytes go to one data file beside the
  // model, named `external_file_name` (default: the model file name + ".data").
  // When neither this nor `inline_data` is set, the data file is used when the model loaded
  // weights from external data, or when its protobuf would pass 2 GiB - 1 bytes inline.
  bool external_data = false;
  // Everything inline (the caller said save.external_data=0): a model over 2 GiB - 1 bytes is
  // refused (kLimit) before anything is written.
  bool inline_data = false;
  size_t external_threshold = 1024;
  std::string external_file_name;
  // fsync the files before the rename, so the new file also survives a power loss. The rename
  // alone already guarantees that readers see the old file or the complete new one.
  bool durable = false;
  // Told when weights went to a data file (level 1: OFG_LOG_INFO), with the path and the reason.
  std::function<void(int level, const std::string& message)> log;
};

// Writes atomically: a temporary file in the same folder is renamed over `path` only once
// everything was written (and, with `durable`, flushed to the device).
void save_model_file(const Model& m, const std::string& path, const SaveOptions& options);
// A malloc'd buffer (so the C ABI can hand it out and free it with free()).
class MallocBuffer {
 public:
  explicit MallocBuffer(size_t size);
  ~MallocBuffer();
  MallocBuffer(MallocBuffer&& o) noexcept : data_(o.data_), size_(o.size_) { o.data_ = nullptr; o.size_ = 0; }
  MallocBuffer(const MallocBuffer&) = delete;
  MallocBuffer& operator=(const MallocBuffer&) = delete;
  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  uint8_t* release() {
    uint8_t* p = data_;
    data_ = nullptr;
    return p;
  }

 private:
  uint8_t* data_;
  size_t size_;
};

// Serializes into one buffer of the exact size (measured first).
MallocBuffer save_model_memory(const Model& m);

}  // namespace ofg
