// Read-only memory mapping of a whole file; the model keeps it alive while tensors view it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "ir/ir.h"

namespace ofg {

class MappedFile : public Backing {
 public:
  // Throws ofg::Error (kIo) naming the path when the file cannot be opened, is not a regular
  // file, or cannot be mapped.
  static std::shared_ptr<MappedFile> open(const std::string& path);
  ~MappedFile() override;

  const uint8_t* data() const { return data_; }
  int fd() const { return fd_; }
  bool contains(Bytes b) const { return data_ && b.data >= data_ && b.data + b.size <= data_ + size_; }
  // The whole pages of `b` leave the process's resident set. Always safe: the mapping is
  // read-only and file-backed, so a later read faults the same bytes back in.
  bool release_pages(Bytes b) const override;
  size_t size() const { return size_; }
  Bytes bytes() const { return Bytes{data_, size_}; }

 private:
  MappedFile() = default;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  int fd_ = -1;
};

// When `b` lies inside a mapped file of the model: that file's descriptor and the offset of `b`
// in it (so a saver can copy the bytes in the kernel without touching the mapping).
bool find_file_source(const Model& m, Bytes b, int& fd, uint64_t& offset);

// A caller's buffer copied once, for callers that cannot keep theirs alive.
class OwnedBuffer : public Backing {
 public:
  OwnedBuffer(const void* data, size_t size);
  ~OwnedBuffer() override;
  Bytes bytes() const { return Bytes{data_, size_}; }

 private:
  uint8_t* data_;
  size_t size_;
};

}  // namespace ofg
