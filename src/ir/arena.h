// Chunked bump allocator that owns every IR object of one model.
//
// Objects placed here hold only plain data (numbers, pointers into the arena or into the loaded
// bytes, interned-name ids), so none needs a destructor: releasing the model releases the chunks.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace ofg {

class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  void* allocate(size_t size, size_t align) {
    size_t offset = (used_ + align - 1) & ~(align - 1);
    if (current_ == nullptr || offset + size > capacity_) {
      new_chunk(size + align);
      offset = (used_ + align - 1) & ~(align - 1);
    }
    used_ = offset + size;
    bytes_allocated_ += size;
    return current_ + offset;
  }

  template <class T, class... Args>
  T* make(Args&&... args) {
    static_assert(std::is_trivially_destructible<T>::value, "arena objects are never destroyed");
    return new (allocate(sizeof(T), alignof(T))) T(std::forward<Args>(args)...);
  }

  // Zero-initialised array of n trivially destructible T.
  template <class T>
  T* make_array(size_t n) {
    static_assert(std::is_trivially_destructible<T>::value, "arena objects are never destroyed");
    if (n == 0) return nullptr;
    if (n > (SIZE_MAX / 2) / sizeof(T)) throw std::bad_alloc();
    T* p = static_cast<T*>(allocate(n * sizeof(T), alignof(T)));
    for (size_t i = 0; i < n; ++i) new (p + i) T();
    return p;
  }

  template <class T>
  T* copy_array(const T* src, size_t n) {
    if (n == 0) return nullptr;
    T* p = make_array<T>(n);
    std::memcpy(static_cast<void*>(p), src, n * sizeof(T));
    return p;
  }

  size_t bytes_allocated() const { return bytes_allocated_; }

  // True when p points into memory this arena handed out (a walk over its chunks: few, since
  // chunk sizes double).
  bool contains(const void* p) const {
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < chunks_.size(); ++i)
      if (b >= chunks_[i].get() && b < chunks_[i].get() + chunk_sizes_[i]) return true;
    return false;
  }

 private:
  void new_chunk(size_t min_size) {
    size_t size = next_chunk_size_;
    if (size < min_size) size = min_size;
    chunks_.emplace_back(new unsigned char[size]);
    chunk_sizes_.push_back(size);
    current_ = chunks_.back().get();
    capacity_ = size;
    used_ = 0;
    if (next_chunk_size_ < (size_t(1) << 22)) next_chunk_size_ *= 2;
  }

  std::vector<std::unique_ptr<unsigned char[]>> chunks_;
  std::vector<size_t> chunk_sizes_;
  unsigned char* current_ = nullptr;
  size_t capacity_ = 0;
  size_t used_ = 0;
  size_t next_chunk_size_ = 16 * 1024;
  size_t bytes_allocated_ = 0;
};

// Growable array whose storage lives in an arena (old storage is abandoned on growth; the arena
// reclaims it with the model). Trivially destructible, so it can be a member of arena objects.
template <class T>
struct ArenaVec {
  T* data = nullptr;
  uint32_t size = 0;
  uint32_t capacity = 0;

  void push(Arena& arena, const T& v) {
    if (size == capacity) grow(arena, capacity ? capacity * 2 : 4);
    data[size++] = v;
  }
  void grow(Arena& arena, uint32_t new_capacity) {
    T* fresh = arena.make_array<T>(new_capacity);
    if (size) std::memcpy(static_cast<void*>(fresh), data, size * sizeof(T));
    data = fresh;
    capacity = new_capacity;
  }
  void erase_at(uint32_t i) {
    for (uint32_t k = i + 1; k < size; ++k) data[k - 1] = data[k];
    --size;
  }
  void clear() { size = 0; }
  T* begin() { return data; }
  T* end() { return data + size; }
  const T* begin() const { return data; }
  const T* end() const { return data + size; }
  T& operator[](size_t i) { return data[i]; }
  const T& operator[](size_t i) const { return data[i]; }
  bool empty() const { return size == 0; }
};

}  // namespace ofg
