#include "onnx/mapped_file.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/error.h"
#include "onnx/serialize.h"

namespace ofg {

std::shared_ptr<MappedFile> MappedFile::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(Status::kIo, "cannot open '" + path + "': " + std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    fail(Status::kIo, "cannot stat '" + path + "': " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    fail(Status::kIo, "'" + path + "' is not a regular file");
  }
  std::shared_ptr<MappedFile> f(new MappedFile());
  f->size_ = static_cast<size_t>(st.st_size);
  if (f->size_ > 0) {
    void* p = mmap(nullptr, f->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int e = errno;
      ::close(fd);
      fail(Status::kIo, "cannot map '" + path + "': " + std::strerror(e));
    }
    f->data_ = static_cast<const uint8_t*>(p);
  }
  f->fd_ = fd;  // kept open: saving copies unchanged bytes from it in the kernel
  return f;
}

bool MappedFile::release_pages(Bytes b) const {
  if (!contains(b)) return false;
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t begin = (reinterpret_cast<uintptr_t>(b.data) + page - 1) & ~(page - 1);
  uintptr_t end = (reinterpret_cast<uintptr_t>(b.data) + b.size) & ~(page - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
  return true;
}

bool find_file_source(const Model& m, Bytes b, int& fd, uint64_t& offset) {
  for (const auto& backing : m.backings) {
    const auto* file = dynamic_cast<const MappedFile*>(backing.get());
    if (!file || !file->contains(b)) continue;
    fd = file->fd();
    offset = static_cast<uint64_t>(b.data - file->data());
    return fd >= 0;
  }
  return false;
}

MappedFile::~MappedFile() {
  if (fd_ >= 0) ::close(fd_);
  if (data_) munmap(const_cast<uint8_t*>(data_), size_);
}

OwnedBuffer::OwnedBuffer(const void* data, size_t size) : size_(size) {
  // 64-byte alignment so raw tensor data keeps the alignment it had in the caller's buffer mod 64.
#if defined(__ANDROID__) && __ANDROID_API__ < 28  // Bionic has aligned_alloc from API 28
  void* p = nullptr;
  data_ = posix_memalign(&p, 64, (size + 63) / 64 * 64 + 64) == 0 ? static_cast<uint8_t*>(p) : nullptr;
#else
  data_ = static_cast<uint8_t*>(std::aligned_alloc(64, (size + 63) / 64 * 64 + 64));
#endif
  if (!data_) fail(Status::kNoMemory, "cannot allocate a copy of the model bytes");
  if (size) std::memcpy(data_, data, size);
}

OwnedBuffer::~OwnedBuffer() { std::free(data_); }

MallocBuffer::MallocBuffer(size_t size) : data_(static_cast<uint8_t*>(std::malloc(size ? size : 1))), size_(size) {
  if (!data_) fail(Status::kNoMemory, "cannot allocate " + std::to_string(size) + " bytes for the serialized model");
}

MallocBuffer::~MallocBuffer() { std::free(data_); }

}  // namespace ofg
