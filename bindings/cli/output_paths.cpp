#include "output_paths.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cli {

std::string folder_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string external_data_path(const std::string& out) { return out + ".data"; }

bool path_exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

namespace {

bool cannot_write(const char* command, const std::string& path, const std::string& reason) {
  std::fprintf(stderr, "onnxforge %s: cannot write '%s': %s\n", command, path.c_str(), reason.c_str());
  return false;
}

// Why `folder` cannot take a new file, or "" when it can.
std::string folder_problem(const std::string& folder) {
  struct stat st;
  if (::stat(folder.c_str(), &st) != 0) {
    if (errno == ENOENT) return "folder '" + folder + "' does not exist";
    if (errno == ENOTDIR) return "'" + folder + "' is not a folder (a part of it is a file)";
    return "folder '" + folder + "': " + std::strerror(errno);
  }
  if (!S_ISDIR(st.st_mode)) return "'" + folder + "' is not a folder";
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    return "folder '" + folder + "' is not writable (" + std::strerror(errno) + ")";
  return "";
}

}  // namespace

bool check_output_file(const char* command, const std::string& path) {
  if (path.empty()) return cannot_write(command, path, "no file name given");
  if (path.back() == '/') return cannot_write(command, path, "that names a folder, not a file");
  // A link is followed: the file it points to is what gets replaced, in that file's folder.
  std::string target = path;
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved)) target = resolved;
  }
  if (::stat(target.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return cannot_write(command, path, "it is a folder");
  std::string problem = folder_problem(folder_of(target));
  return problem.empty() || cannot_write(command, path, problem);
}

bool OutputDir::prepare(const char* command, const std::string& dir) {
  if (dir.empty()) {
    std::fprintf(stderr, "onnxforge %s: --output-dir needs a folder name\n", command);
    return false;
  }
  // Each missing folder along the path is made, from the outermost in (mkdir -p).
  for (size_t pos = dir.find('/', 1);; pos = dir.find('/', pos + 1)) {
    std::string part = pos == std::string::npos ? dir : dir.substr(0, pos);
    struct stat st;
    if (!part.empty() && part.back() != '/' && ::stat(part.c_str(), &st) != 0) {
      if (errno != ENOENT || ::mkdir(part.c_str(), 0777) != 0) {
        std::fprintf(stderr, "onnxforge %s: cannot make folder '%s': %s\n", command, part.c_str(), std::strerror(errno));
        remove_made();
        return false;
      }
      made_.push_back(part);
    }
    if (pos == std::string::npos) break;
  }
  std::string problem = folder_problem(dir);
  if (problem.empty()) return true;
  std::fprintf(stderr, "onnxforge %s: cannot write into --output-dir '%s': %s\n", command, dir.c_str(), problem.c_str());
  remove_made();
  return false;
}

void OutputDir::remove_made() {
  for (auto it = made_.rbegin(); it != made_.rend(); ++it) ::rmdir(it->c_str());
  made_.clear();
}

bool write_file_atomically(const char* command, const std::string& path_given, const std::string& bytes) {
  // Through a link, the file it points to is replaced (the link stays).
  std::string path = path_given;
  struct stat lst;
  char resolved[PATH_MAX];
  if (::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode) && ::realpath(path.c_str(), resolved)) path = resolved;
  std::string temp = path + ".tmp-XXXXXX";
  int fd = ::mkstemp(&temp[0]);
  if (fd < 0) return cannot_write(command, path_given, std::strerror(errno));
  // mkstemp makes the file 0600: give it the mode a new file gets (or the one it replaces).
  struct stat st;
  mode_t mode;
  if (::stat(path.c_str(), &st) == 0) {
    mode = st.st_mode & 07777;
  } else {
    mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  bool ok = ::fchmod(fd, mode) == 0;
  for (size_t done = 0; ok && done < bytes.size();) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<size_t>(n);
  }
  int err = ok ? 0 : errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (ok && ::rename(temp.c_str(), path.c_str()) != 0) {
    ok = false;
    err = errno;
  }
  if (ok) return true;
  ::unlink(temp.c_str());
  return cannot_write(command, path_given, std::strerror(err ? err : EIO));
}

}  // namespace cli
