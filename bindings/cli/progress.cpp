#include "progress.h"

#include <unistd.h>

#include <cstdio>

namespace cli {

ProgressLine::ProgressLine(ofg_options* o) : start_(std::chrono::steady_clock::now()) {
  if (o && isatty(STDERR_FILENO)) ofg_options_set_progress(o, &ProgressLine::on_progress, this);
}

void ProgressLine::phase(const char* what) {
  finish();
  what_ = what;
  start_ = std::chrono::steady_clock::now();
}

void ProgressLine::finish() {
  if (!shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

int32_t ProgressLine::on_progress(void* user, uint32_t done, uint32_t total) {
  auto* self = static_cast<ProgressLine*>(user);
  if (!self->shown_ && std::chrono::steady_clock::now() - self->start_ < std::chrono::seconds(1)) return 0;
  std::fprintf(stderr, "\r\033[K%s: %u/%u", self->what_, done, total);
  std::fflush(stderr);
  self->shown_ = true;
  return 0;  // never cancels
}

}  // namespace cli
