#include "support/test_support.h"

#include <algorithm>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace ofg::test {

std::string data_dir() {
  const char* env = std::getenv("ONNXFORGE_DATA");
  std::string dir = env && *env ? env : OFG_DEFAULT_DATA_DIR;
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return "";
  return dir;
}

namespace {
struct TempRoot {
  std::string path;
  ~TempRoot() {
    if (!path.empty()) {
      std::string cmd = "rm -rf '" + path + "'";
      (void)std::system(cmd.c_str());
    }
  }
};
TempRoot g_root;
}  // namespace

std::string temp_dir() {
  static int counter = 0;
  if (g_root.path.empty()) {
    char tmpl[] = "/tmp/ofg-test-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    g_root.path = tmpl;
  }
  std::string dir = g_root.path + "/" + std::to_string(counter++);
  ::mkdir(dir.c_str(), 0755);
  return dir;
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::vector<std::string> folders_with(const std::string& dir, const std::string& file) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    if (file_exists(dir + "/" + name + "/" + file)) out.push_back(dir + "/" + name);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ofg::test
