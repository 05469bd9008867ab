// Protocol-buffer wire format: a bounds-checked reader over bytes we do not trust, and a writer
// that computes nested message sizes in a first pass and streams bytes in a second.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ir/error.h"
#include "ir/ir.h"
#include "onnx/computed_stream.h"

namespace ofg::wire {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kStartGroup = 3,
                           kEndGroup = 4, kFixed32 = 5 };

class Reader {
 public:
  Reader(Bytes b, const std::string* context) : p_(b.data), end_(b.data + b.size), context_(context) {}

  bool done() const { return p_ >= end_; }
  const uint8_t* position() const { return p_; }

  // Reads the next tag; field numbers are >= 1.
  void next_field(uint32_t& number, uint32_t& wire_type) {
    field_start_ = p_;
    uint64_t tag = varint();
    number = static_cast<uint32_t>(tag >> 3);
    wire_type = static_cast<uint32_t>(tag & 7);
    if (number == 0 || (tag >> 3) > 0x1FFFFFFF) error("invalid field number");
  }
  // The next tag, or false at the end of the message: `while (r.next(f, wt)) { ... }`.
  bool next(uint32_t& number, uint32_t& wire_type) {
    if (done()) return false;
    next_field(number, wire_type);
    return true;
  }
  // One value of a repeated varint field, or all of a packed one, each given to `add`; false
  // (nothing read) when the wire type is neither.
  template <class F>
  bool repeated_varint(uint32_t wire_type, F&& add) {
    if (wire_type == kVarint) {
      add(varint());
    } else if (wire_type == kLengthDelimited) {
      Reader packed(length_delimited(), context_);
      while (!packed.done()) add(packed.varint());
    } else {
      return false;
    }
    return true;
  }
  // The whole current field (tag and payload) after its payload has been read or skipped.
  RawField raw_field(uint32_t number) const {
    return RawField{number, Bytes{field_start_, static_cast<size_t>(p_ - field_start_)}};
  }

  // One-byte varints (most tags, lengths and small numbers) take the inlined path.
  uint64_t varint() {
    if (p_ < end_ && *p_ < 0x80) return *p_++;
    return varint_multibyte();
  }
  uint64_t varint_multibyte() {
    uint64_t result = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (p_ >= end_) error("truncated varint");
      uint8_t byte = *p_++;
      if (shift == 63 && byte > 1) error("varint too long");
      result |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if (!(byte & 0x80)) return result;
    }
    error("varint too long");
  }
  uint32_t fixed32() { return fixed<uint32_t>("truncated fixed32"); }
  uint64_t fixed64() { return fixed<uint64_t>("truncated fixed64"); }
  Bytes length_delimited() {
    uint64_t n = varint();
    if (n > static_cast<uint64_t>(end_ - p_)) error("length-delimited field runs past the end of its message");
    Bytes b{p_, static_cast<size_t>(n)};
    p_ += n;
    return b;
  }
  void skip(uint32_t wire_type) {
    switch (wire_type) {
      case kVarint: varint(); return;
      case kFixed64: fixed64(); return;
      case kLengthDelimited: length_delimited(); return;
      case kFixed32: fixed32(); return;
      case kStartGroup: skip_group(); return;
      default: error("invalid wire type " + std::to_string(wire_type));
    }
  }
  void expect(uint32_t wire_type, uint32_t want, const char* field) {
    if (wire_type != want) error(std::string("field '") + field + "' has wire type " +
                                 std::to_string(wire_type) + ", expected " + std::to_string(want));
  }
  [[noreturn]] void error(const std::string& what) const {
    fail(Status::kParse, (context_ ? *context_ + ": " : std::string()) + what);
  }

 private:
  template <class T>
  T fixed(const char* truncated) {
    if (end_ - p_ < static_cast<ptrdiff_t>(sizeof(T))) error(truncated);
    T v;
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }
  void skip_group() {
    // The group's own fields move field_start_; raw_field() must still see the group's tag.
    const uint8_t* start = field_start_;
    for (int depth = 1; depth > 0;) {
      uint32_t number, wt;
      next_field(number, wt);
      if (wt == kStartGroup) ++depth;
      else if (wt == kEndGroup) --depth;
      else skip(wt);
    }
    field_start_ = start;
  }

  const uint8_t* p_;
  const uint8_t* end_;
  const uint8_t* field_start_ = nullptr;
  const std::string* context_;
};

inline size_t varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// Where serialized bytes go. Large payloads bypass the buffer so weights are written straight
// from the mapping they live in.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void write(const void* data, size_t size) = 0;
  // Writes `size` bytes that are also at `offset` of the open file `fd` (`data` is a mapping of
  // them). A file sink copies them in the kernel without touching the mapping.
  virtual void write_from_file(const void* data, size_t size, int fd, uint64_t offset) { write(data, size); }
};

// Finds the file holding bytes the writer is asked to write (see Sink::copy_from_file).
class SourceFinder {
 public:
  virtual ~SourceFinder() = default;
  virtual bool find(Bytes b, int& fd, uint64_t& offset) const = 0;
};

class Writer {
 public:
  // counting == true: only measures (fills the size cache); false: writes to `sink`.
  Writer(Sink* sink, std::vector<uint64_t>* sizes, const SourceFinder* sources = nullptr)
      : sink_(sink), sizes_(sizes), sources_(sources) {}

  bool counting() const { return sink_ == nullptr; }
  uint64_t position() const { return pos_; }

  void raw(const void* data, size_t size) {
    pos_ += size;
    if (sink_ == nullptr || size == 0) return;
    if (size >= kDirect) {
      flush();
      int fd;
      uint64_t offset;
      Bytes b{static_cast<const uint8_t*>(data), size};
      if (sources_ && sources_->find(b, fd, offset)) sink_->write_from_file(data, size, fd, offset);
      else sink_->write(data, size);
      return;
    }
    if (used_ + size > kBuffer) flush();
    std::memcpy(buffer_ + used_, data, size);
    used_ += size;
  }
  void varint(uint64_t v) {
    uint8_t tmp[10];
    size_t n = 0;
    while (v >= 0x80) {
      tmp[n++] = static_cast<uint8_t>(v | 0x80);
      v >>= 7;
    }
    tmp[n++] = static_cast<uint8_t>(v);
    raw(tmp, n);
  }
  void tag(uint32_t field, uint32_t wire_type) { varint((static_cast<uint64_t>(field) << 3) | wire_type); }
  void field_varint(uint32_t field, uint64_t v) { tag(field, kVarint); varint(v); }
  void field_int64(uint32_t field, int64_t v) { field_varint(field, static_cast<uint64_t>(v)); }
  void field_fixed32(uint32_t field, uint32_t v) { tag(field, kFixed32); raw(&v, 4); }
  void field_bytes(uint32_t field, Bytes b) {
    tag(field, kLengthDelimited);
    varint(b.size);
    raw(b.data, b.size);
  }
  // raw_data of a tensor: computed from its recipe when the bytes are not computed yet, small
  // ones into the write buffer, large ones streamed to the sink by a ComputedStream (while
  // measuring, they are listed in the order they will be written, for that stream).
  void field_tensor_bytes(uint32_t field, const Tensor& t) {
    if (!t.recipe) return field_bytes(field, t.data);
    const size_t size = t.data.size;
    tag(field, kLengthDelimited);
    varint(size);
    if (sink_ == nullptr) {
      pos_ += size;
      if (size >= kDirect && computed_order_) computed_order_->push_back(&t);
    } else if (size < kDirect) {
      t.read(0, size, small_);
      raw(small_, size);
      t.recipe->release_sources();
    } else {
      pos_ += size;
      flush();
      if (!computed_) fail(Status::kInternal, "save: no stream for a computed tensor");
      computed_->write(t, *sink_);
    }
  }
  void list_computed(std::vector<const Tensor*>* order) { computed_order_ = order; }
  void stream_computed(ComputedStream* stream) { computed_ = stream; }
  void field_string(uint32_t field, std::string_view s) {
    field_bytes(field, Bytes{reinterpret_cast<const uint8_t*>(s.data()), s.size()});
  }
  void raw_field(const RawField& f) { raw(f.encoded.data, f.encoded.size); }

  // A nested message: its length is measured in the counting pass and reused when writing.
  template <class F>
  void message(uint32_t field, F&& body) {
    tag(field, kLengthDelimited);
    if (counting()) {
      size_t slot = sizes_->size();
      sizes_->push_back(0);
      uint64_t start = pos_;
      body();
      uint64_t len = pos_ - start;
      (*sizes_)[slot] = len;
      pos_ += varint_size(len);
    } else {
      uint64_t len = (*sizes_)[cursor_++];
      varint(len);
      uint64_t start = pos_;
      body();
      if (pos_ - start != len) fail(Status::kInternal, "serializer size mismatch");
    }
  }

  void flush() {
    if (sink_ && used_) sink_->write(buffer_, used_);
    used_ = 0;
  }

 private:
  static constexpr size_t kBuffer = 1 << 16;
  static constexpr size_t kDirect = 1 << 14;
  Sink* sink_;
  std::vector<uint64_t>* sizes_;
  const SourceFinder* sources_;
  size_t cursor_ = 0;
  uint64_t pos_ = 0;
  size_t used_ = 0;
  uint8_t buffer_[kBuffer];
  alignas(64) uint8_t small_[kDirect];  // a small computed tensor (aligned for its elements)
  std::vector<const Tensor*>* computed_order_ = nullptr;
  ComputedStream* computed_ = nullptr;
};

// Emits the kept raw fields of a message in field-number order around the modelled ones.
class ExtrasCursor {
 public:
  ExtrasCursor(Writer& w, const Extras& extras) : w_(w), e_(extras) {}
  // Emits every kept field numbered below `field`.
  void before(uint32_t field) {
    while (i_ < e_.size && e_[i_].number < field) w_.raw_field(e_[i_++]);
  }
  void rest() {
    while (i_ < e_.size) w_.raw_field(e_[i_++]);
  }

 private:
  Writer& w_;
  const Extras& e_;
  uint32_t i_ = 0;
};

// A message made by `body(Writer&)` as a string: `body` is called twice, to measure and to write.
template <class F>
std::string encode_to_string(F&& body) {
  class StringSink : public Sink {
   public:
    explicit StringSink(std::string& out) : out_(out) {}
    void write(const void* data, size_t size) override { out_.append(static_cast<const char*>(data), size); }

   private:
    std::string& out_;
  };
  std::vector<uint64_t> sizes;
  auto counter = std::make_unique<Writer>(nullptr, &sizes);
  body(*counter);
  std::string out;
  out.reserve(static_cast<size_t>(counter->position()));
  StringSink sink(out);
  auto writer = std::make_unique<Writer>(&sink, &sizes);
  body(*writer);
  writer->flush();
  return out;
}

}  // namespace ofg::wire
