#include "passes/parallel.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

namespace ofg::passes {

unsigned pass_threads(const PassContext& ctx) {
  if (ctx.options) {
    auto it = ctx.options->find("optimize.threads");
    if (it != ctx.options->end()) {
      long n = std::strtol(it->second.c_str(), nullptr, 10);
      if (n >= 1) return static_cast<unsigned>(std::min(n, 64L));
    }
  }
  return std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
}

void parallel_for(size_t count, unsigned threads, const std::function<void(size_t)>& fn) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < count; i = next++) fn(i);
  };
  std::vector<std::thread> helpers;
  unsigned extra = static_cast<unsigned>(std::min<size_t>(threads, count)) - (count ? 1 : 0);
  for (unsigned t = 0; t < extra && count; ++t) {
    try {
      helpers.emplace_back(worker);
    } catch (...) {
      break;  // no thread to be had: the calling thread does the rest
    }
  }
  worker();
  for (std::thread& t : helpers) t.join();
}

}  // namespace ofg::passes
