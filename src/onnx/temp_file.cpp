#include "onnx/temp_file.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/error.h"

namespace ofg {
namespace {

// ---- the table of temporary paths that a signal handler may remove --------------------------
// Fixed size and lock-free, so the remover is async-signal-safe. A slot is 0 free, 1 being
// filled, 2 holding a path, 3 taken by the remover (the process is going away).
constexpr int kSlots = 32;
constexpr size_t kSlotPath = 4096;
struct Slot {
  std::atomic<int> state{0};
  char path[kSlotPath];
};
static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal-safe table needs lock-free atomics");
Slot g_slots[kSlots];

// Absolute, so a handler finds the file whatever the current folder is by then.
int register_path(const std::string& path) {
  std::string full = path;
  if (full.empty() || full[0] != '/') {
    char cwd[PATH_MAX];
    if (!::getcwd(cwd, sizeof cwd)) return -1;
    full = std::string(cwd) + "/" + full;
  }
  if (full.size() >= kSlotPath) return -1;  // not removable by a handler; still removed on failure
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (!g_slots[i].state.compare_exchange_strong(expected, 1)) continue;
    std::memcpy(g_slots[i].path, full.c_str(), full.size() + 1);
    g_slots[i].state.store(2, std::memory_order_release);
    return i;
  }
  return -1;  // more saves at once than slots: that file is only removed when the save fails
}

void unregister_path(int slot) {
  if (slot < 0) return;
  int expected = 2;
  g_slots[slot].state.compare_exchange_strong(expected, 0);
}

// ---- names and paths ----------------------------------------------------------------------
std::string folder_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

// The end of a chain of symbolic links (the path itself when it is no link or does not exist).
std::string resolve_links(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    char buf[PATH_MAX];
    ssize_t n = ::readlink(p.c_str(), buf, sizeof buf);
    if (n < 0 || static_cast<size_t>(n) >= sizeof buf)
      fail(Status::kIo, "cannot read the link '" + p + "': " + std::strerror(n < 0 ? errno : ENAMETOOLONG));
    std::string link(buf, static_cast<size_t>(n));
    p = link[0] == '/' ? link : folder_of(p) + link;
  }
  fail(Status::kIo, "'" + path + "': too many levels of symbolic links");
}

// TARGET.tmp-XXXXXX with six letters or digits that differ between processes and calls.
std::string temp_name(const std::string& target) {
  static std::atomic<uint64_t> counter{0};
  uint64_t x = static_cast<uint64_t>(::getpid()) * 0x9E3779B97F4A7C15ull ^
               static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
               (counter.fetch_add(1) << 40);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;  // splitmix64's finaliser
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  static const char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string out = target + ".tmp-";
  for (int i = 0; i < 6; ++i, x /= 62) out += kChars[x % 62];
  return out;
}

// The test suite sets ONNXFORGE_NO_O_TMPFILE=1 to exercise the named fallback where O_TMPFILE works.
bool anonymous_allowed() {
  const char* v = std::getenv("ONNXFORGE_NO_O_TMPFILE");
  return !(v && std::strcmp(v, "1") == 0);
}

}  // namespace

void remove_registered_temporary_files() {
  for (Slot& s : g_slots) {
    int expected = 2;
    if (s.state.compare_exchange_strong(expected, 3)) ::unlink(s.path);
  }
}

TempFile::TempFile(const std::string& target) : target_(resolve_links(target)) {
  struct stat old;
  replacing_ = ::stat(target_.c_str(), &old) == 0 && S_ISREG(old.st_mode);
  const bool replacing = replacing_;
  // A new file: 0666 less the umask, applied by open(). A replaced one: private until its mode
  // and owner are set below.
  const int mode = replacing ? 0600 : 0666;
#if defined(O_TMPFILE)
  if (anonymous_allowed()) {
    std::string dir = folder_of(target_);
    fd_ = ::open(dir.empty() ? "." : dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
    // Committing links /proc/self/fd/N to a name: without /proc that is impossible, so use a name.
    if (fd_ >= 0 && ::access(("/proc/self/fd/" + std::to_string(fd_)).c_str(), F_OK) != 0) {
      ::close(fd_);
      fd_ = -1;
    } else if (fd_ < 0 && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOENT) {
      fail(Status::kIo, "cannot create a temporary file beside '" + target_ + "': " + std::strerror(errno));
    }
  }
#endif
  if (fd_ < 0) create_named(mode);
  if (replacing) {
    // Keep the owner and group where allowed (root; or a group the user is in), else the
    // set-id bits are dropped, as they would be for the other owner's benefit.
    mode_t keep = old.st_mode & 07777;
    bool owner_kept = old.st_uid == ::geteuid() && old.st_gid == ::getegid();
    if (!owner_kept) {
      owner_kept = ::fchown(fd_, old.st_uid, old.st_gid) == 0;
      if (!owner_kept && old.st_gid != ::getegid()) (void)!::fchown(fd_, static_cast<uid_t>(-1), old.st_gid);
    }
    if (!owner_kept) keep &= ~static_cast<mode_t>(S_ISUID | S_ISGID);
    if (::fchmod(fd_, keep) != 0) {
      int e = errno;
      ::close(fd_);
      if (!path_.empty()) ::unlink(path_.c_str());
      unregister_path(slot_);
      fail(Status::kIo, "cannot set the mode of the temporary file beside '" + target_ + "': " + std::strerror(e));
    }
  }
}

// The name is registered before the file is created: a signal that arrives while open() runs (it
// can take milliseconds on a busy disk) is handled right after it returns, and must find the name.
void TempFile::create_named(int mode) {
  int e = 0;
  for (int tries = 0; tries < 100; ++tries) {
    std::string name = temp_name(target_);
    slot_ = register_path(name);
    fd_ = ::open(name.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, mode);
    e = errno;
    if (fd_ >= 0) {
      path_ = name;
      return;
    }
    unregister_path(slot_);
    slot_ = -1;
    if (e != EEXIST) break;
  }
  fail(Status::kIo, "cannot create a temporary file beside '" + target_ + "': " + std::strerror(e));
}

TempFile::~TempFile() {
  if (fd_ >= 0) ::close(fd_);  // an anonymous file is gone with its last descriptor
  if (!committed_) {
    if (!path_.empty()) ::unlink(path_.c_str());
    unregister_path(slot_);
  } else {
    settle();
  }
}

void TempFile::finish(bool durable) {
  if (durable && ::fsync(fd_) != 0) fail(Status::kIo, "cannot flush the file for '" + target_ + "': " + std::strerror(errno));
}

// An anonymous file gets a temporary name now, just before the rename (a short window in which a
// handler can remove it).
void TempFile::give_name() {
  std::string proc = "/proc/self/fd/" + std::to_string(fd_);
  for (int tries = 0; tries < 100; ++tries) {
    std::string name = temp_name(target_);
    slot_ = register_path(name);
    if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) {
      path_ = name;
      return;
    }
    int e = errno;
    unregister_path(slot_);
    slot_ = -1;
    if (e != EEXIST) fail(Status::kIo, "cannot link the temporary file beside '" + target_ + "': " + std::strerror(e));
  }
  fail(Status::kIo, "cannot find a free temporary name beside '" + target_ + "'");
}

// Where the target exists, the two names are exchanged and the old file is kept at the temporary
// name until settle(): ext4 treats a plain rename over an existing file as a request to start
// writeback of the new file at once (its auto_da_alloc heuristic), which stalls the rename for as
// long as submitting the whole file takes (17 ms for a 45 MB model), and the exchange also lets
// rollback() put the old file back. Readers see the old or the new file either way; durability
// across power loss is what save.durable is for.
void TempFile::commit() {
  if (path_.empty()) give_name();
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail(Status::kIo, "cannot close the file for '" + target_ + "': " + std::strerror(errno));
#if defined(RENAME_EXCHANGE) && (!defined(__ANDROID__) || __ANDROID_API__ >= 30)  // Bionic: API 30
  if (renameat2(AT_FDCWD, path_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) == 0) {
    committed_ = true;
    displaced_ = true;
    return;
  }
  // ENOENT: no target yet; EINVAL/ENOSYS: not supported here. A plain rename does both.
#endif
  if (std::rename(path_.c_str(), target_.c_str()) != 0)
    fail(Status::kIo, "cannot rename the temporary file to '" + target_ + "': " + std::strerror(errno));
  committed_ = true;
  unregister_path(slot_);
  slot_ = -1;
}

void TempFile::settle() {
  if (displaced_) ::unlink(path_.c_str());  // the replaced file
  displaced_ = false;
  unregister_path(slot_);
  slot_ = -1;
}

void TempFile::rollback() {
  if (!committed_) return;
  if (displaced_) {
#if defined(RENAME_EXCHANGE) && (!defined(__ANDROID__) || __ANDROID_API__ >= 30)
    if (renameat2(AT_FDCWD, path_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) == 0)
      ::unlink(path_.c_str());  // now the new file
    // else (a second failure): the old file stays at the temporary name rather than being lost
#endif
  } else if (!replacing_) {
    ::unlink(target_.c_str());  // there was no file before
  }
  // (replaced by a plain rename: the old file is gone and the new one stays)
  path_.clear();
  displaced_ = false;
  committed_ = false;
  unregister_path(slot_);
  slot_ = -1;
}

}  // namespace ofg
