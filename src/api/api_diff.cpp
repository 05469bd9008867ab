// The graph diff over the C ABI (src/diff).
#include <cstdlib>
#include <cstring>

#include "api/guard.h"
#include "api/handles.h"
#include "diff/diff.h"

using namespace ofg;
using namespace ofg::api;

extern "C" {

ofg_status ofg_diff_json(const ofg_model* a, const ofg_model* b, const char* provenance_json, char** out_json) {
  return api_call([&] {
    require(a, "ofg_diff_json", "a");
    require(b, "ofg_diff_json", "b");
    require(out_json, "ofg_diff_json", "out_json");
    diff::Provenance prov, folded;
    if (provenance_json) {
      prov = diff::parse_provenance(provenance_json);
      folded = diff::parse_folded(provenance_json);
    }
    const diff::Provenance* given = provenance_json ? &prov : nullptr;
    std::string s = diff::diff_json(diff::diff_models(*a->model, *b->model, given, provenance_json ? &folded : nullptr));
    char* p = static_cast<char*>(std::malloc(s.size() + 1));
    if (!p) throw std::bad_alloc();
    std::memcpy(p, s.c_str(), s.size() + 1);
    *out_json = p;
  });
}

}  // extern "C"
