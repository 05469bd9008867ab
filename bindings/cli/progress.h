// A progress line on the terminal for work that takes longer than about a second (verification of
// a large model): "\r<what>: done/total". Nothing is printed when stderr is not a terminal, and
// the line is cleared when the work ends.
#pragma once
#include <chrono>

#include "onnxforge.h"

namespace cli {

class ProgressLine {
 public:
  // Attaches to `o` (as its progress callback) when stderr is a terminal.
  explicit ProgressLine(ofg_options* o);
  ~ProgressLine() { finish(); }
  // What the following work is ("passes", "verify"); restarts the one-second delay.
  void phase(const char* what);
  // Clears the line when one was printed.
  void finish();

 private:
  static int32_t on_progress(void* user, uint32_t done, uint32_t total);
  const char* what_ = "";
  std::chrono::steady_clock::time_point start_;
  bool shown_ = false;
};

}  // namespace cli
