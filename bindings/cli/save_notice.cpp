// What a save tells the user besides its status: where weights went when a data file was written
// (ofg_save's OFG_LOG_INFO line), so an OUT.data beside OUT is never a surprise.
#include <cstdio>

#include "cli.h"

namespace cli {
namespace {

void print_save_log(void*, int32_t level, const char* message) {
  std::printf("onnxforge: %s%s\n", level >= OFG_LOG_WARNING ? "warning: " : "", message);
}

}  // namespace

ofg_status save_model(const ofg_model* m, const std::string& out, ofg_options* opts) {
  ofg_status st = ofg_options_set_log(opts, print_save_log, nullptr);
  if (st == OFG_OK) st = ofg_save(m, out.c_str(), opts);
  std::fflush(stdout);
  return st;
}

}  // namespace cli
