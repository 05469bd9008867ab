// A model over 2 GiB that costs almost no memory: its protobuf is built in an anonymous mapping
// where the one big initializer's raw_data is left as untouched (shared zero) pages, and only the
// first and last pages hold the encoded fields. Graph: y = Identity(w), w float[n] of zeros.
#pragma once
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace ofg::test {

class HugeModelBytes {
 public:
  explicit HugeModelBytes(uint64_t weight_bytes) {
    const uint64_t n = weight_bytes / 4;
    weight_bytes_ = n * 4;
    std::string tensor = varint_field(1, n) + varint_field(2, 1) + bytes_field(8, "w") + key(9, 2) + varint(weight_bytes_);
    std::string node = bytes_field(1, "w") + bytes_field(2, "y") + bytes_field(4, "Identity");
    std::string dim = varint_field(1, n);
    std::string shape = bytes_field(1, dim);
    std::string tensor_type = varint_field(1, 1) + bytes_field(2, shape);
    std::string type = bytes_field(1, tensor_type);
    std::string output = bytes_field(1, "y") + bytes_field(2, type);
    std::string graph_head = bytes_field(1, node) + bytes_field(2, "g") + key(5, 2) + varint(tensor.size() + weight_bytes_) + tensor;
    std::string graph_tail = bytes_field(12, output);
    uint64_t graph_size = graph_head.size() + weight_bytes_ + graph_tail.size();
    std::string head = varint_field(1, 8) + key(7, 2) + varint(graph_size) + graph_head;
    std::string tail = graph_tail + bytes_field(8, varint_field(2, 13));  // opset_import { version: 13 }
    size_ = head.size() + weight_bytes_ + tail.size();
    if (size_ > SIZE_MAX / 2) return;  // a 32-bit address space: no such model in memory
    void* p = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return;
    data_ = static_cast<uint8_t*>(p);
    std::memcpy(data_, head.data(), head.size());
    std::memcpy(data_ + size_ - tail.size(), tail.data(), tail.size());
  }
  ~HugeModelBytes() {
    if (data_) ::munmap(data_, size_);
  }
  HugeModelBytes(const HugeModelBytes&) = delete;
  HugeModelBytes& operator=(const HugeModelBytes&) = delete;

  const uint8_t* data() const { return data_; }  // null when the mapping failed
  uint64_t size() const { return size_; }
  uint64_t weight_bytes() const { return weight_bytes_; }

 private:
  static std::string varint(uint64_t v) {
    std::string s;
    while (v >= 0x80) {
      s += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    return s + static_cast<char>(v);
  }
  static std::string key(uint32_t field, uint32_t wire_type) { return varint((uint64_t{field} << 3) | wire_type); }
  static std::string varint_field(uint32_t field, uint64_t v) { return key(field, 0) + varint(v); }
  static std::string bytes_field(uint32_t field, const std::string& b) { return key(field, 2) + varint(b.size()) + b; }

  uint8_t* data_ = nullptr;
  uint64_t size_ = 0, weight_bytes_ = 0;
};

}  // namespace ofg::test
