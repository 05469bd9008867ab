// Target profiles over the C ABI: listing them and checking a model against one (src/targets).
#include <cstdlib>
#include <cstring>

#include "api/guard.h"
#include "api/handles.h"
#include "targets/check.h"

using namespace ofg;
using namespace ofg::api;

namespace {

// A malloc'd NUL-terminated copy of s into *out (released with ofg_buffer_free).
void hand_out_string(const std::string& s, char** out) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (!p) throw std::bad_alloc();
  std::memcpy(p, s.c_str(), s.size() + 1);
  *out = p;
}

}  // namespace

extern "C" {

ofg_status ofg_targets_json(char** out) {
  return api_call([&] {
    require(out, "ofg_targets_json", "out");
    hand_out_string(targets::targets_json(), out);
  });
}

ofg_status ofg_check_target(const ofg_model* model, const char* target, char** out_json) {
  return api_call([&] {
    require(model, "ofg_check_target", "model");
    require(target, "ofg_check_target", "target");
    require(out_json, "ofg_check_target", "out_json");
    hand_out_string(targets::check_json(targets::check_model(*model->model, targets::find_profile(target))), out_json);
  });
}

}  // extern "C"
