// Exercises kernels/parallel.cpp the way the kernels and verification use it, for
// ThreadSanitizer (tests/tsan.cmake): callers on several threads with their own widths sharing
// the pool, each writing its own part of an output, nested calls, a failing task, and per-thread
// scratch as the kernels keep it. Prints "N passed, N failed" and exits non-zero on a failure;
// TSan itself fails the run on a data race.
#include <atomic>
#include <cstdio>
#include <stdexcept>
#include <thread>
#include <vector>

#include "kernels/parallel.h"

namespace {

using ofg::kernels::parallel_for;
using ofg::kernels::parallel_ranges;
using ofg::kernels::ThreadsScope;

int g_passed = 0, g_failed = 0;

void check(bool ok, const char* what) {
  if (ok) ++g_passed;
  else {
    ++g_failed;
    std::printf("FAILED: %s\n", what);
  }
}

// What a kernel does: a per-thread scratch row filled and read back, then written to its own
// part of the output.
thread_local std::vector<int> t_scratch;

void square_into(std::vector<int>& out, unsigned width) {
  ThreadsScope scope(width);
  parallel_ranges(out.size(), 16, 64, [&](size_t b, size_t e) {
    t_scratch.assign(e - b, 0);
    for (size_t i = b; i < e; ++i) t_scratch[i - b] = static_cast<int>(i % 1000) * static_cast<int>(i % 1000);
    for (size_t i = b; i < e; ++i) out[i] = t_scratch[i - b];
  });
}

bool squares_ok(const std::vector<int>& out) {
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i] != static_cast<int>(i % 1000) * static_cast<int>(i % 1000)) return false;
  return true;
}

}  // namespace

int main() {
  // Two callers at once (as verification runs two models), several rounds each.
  std::atomic<bool> a_ok{true}, b_ok{true};
  auto caller = [](unsigned width, std::atomic<bool>* ok) {
    for (int round = 0; round < 40; ++round) {
      std::vector<int> out(5000 + 37 * round, -1);
      square_into(out, width);
      if (!squares_ok(out)) ok->store(false);
    }
  };
  std::thread ta(caller, 2u, &a_ok), tb(caller, 3u, &b_ok);
  ta.join();
  tb.join();
  check(a_ok.load() && b_ok.load(), "concurrent callers computed their own outputs");

  // Nested calls run inline on the task's thread.
  {
    ThreadsScope scope(4);
    std::vector<int> cells(8 * 8, 0);
    parallel_for(8, [&](size_t i) { parallel_for(8, [&](size_t j) { cells[i * 8 + j] += 1; }); });
    bool all_one = true;
    for (int c : cells) all_one &= c == 1;
    check(all_one, "nested calls");
  }

  // A task's exception reaches the caller; the pool goes on working.
  {
    ThreadsScope scope(3);
    bool caught = false;
    try {
      parallel_for(100, [&](size_t i) {
        if (i == 50) throw std::runtime_error("task 50");
      });
    } catch (const std::runtime_error&) {
      caught = true;
    }
    check(caught, "exception carried to the caller");
    std::vector<int> out(3000, -1);
    square_into(out, 3);
    check(squares_ok(out), "pool usable after a failed call");
  }

  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
