// The texts of targets/*.profile, compiled in: CMake (cmake/EmbedProfiles.cmake) writes them into
// a generated .cpp at build time, so no file is looked up at run time and a relocated install works.
#pragma once
#include <cstddef>

namespace ofg::targets {

struct ProfileText {
  const char* file;  // "tensorrt.profile"
  const char* text;
};
extern const ProfileText kProfiles[];
extern const size_t kProfileCount;

}  // namespace ofg::targets
