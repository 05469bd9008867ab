// Intra-op threads: parallel_for splits a kernel's output into tasks run by a small process-wide
// pool of workers together with the calling thread.
//
// The number of threads is a setting of the calling thread (ThreadsScope, set by the C ABI from
// the option "run.threads" for the duration of one call), so two runs on two threads of the
// caller each use their own count and never change each other's. The default is 1: code that sets
// nothing runs exactly as before, and no worker is ever created for it.
//
// Rules every caller keeps: a task writes only its own part of the output and computes every
// value in the same order as the single-thread code, so the results are bit for bit those of
// threads = 1. Scratch (kernels::detail::scratch) is per thread: a task takes its own inside the
// task, never a pointer the caller fetched before.
#pragma once

#include <cstddef>
#include <type_traits>

#include "ir/scoped_setting.h"

namespace ofg::kernels {

// Threads parallel_for may use on this thread (>= 1).
unsigned threads();
// The machine's hardware threads (>= 1).
unsigned hardware_threads();

// Sets threads() on this thread until destroyed (0: hardware_threads()); restores the previous
// value. Worker threads running tasks see 1, so nested parallel_for calls run inline.
class ThreadsScope : ScopedSetting<unsigned> {
 public:
  explicit ThreadsScope(unsigned n);
};

// Work below which splitting does not pay: elements of a cheap loop (or multiply-adds of a small
// kernel) per part, and multiply-adds of a GEMM. Since idle threads spin before they sleep
// (parallel.cpp), handing a part to a worker costs microseconds, not the tens of microseconds of
// waking one: with the floors at 2^18 and 2^24 (set for sleeping workers), two threads ran
// MobileNetV2 in 7.7 ms against 7.0 on one, since most of its layers stayed whole; at 2^15 and
// 2^22, 4.5-5.2 ms (yolo_small 13-15 -> 7.5-9.8 ms; 2026-11-29). The GEMM floor then went to
// 2^20: SqueezeNet's 1x1 convs on 27x27 and 13x13 planes (1.5-3 M multiply-adds) had stayed on
// the calling thread while the other spun: two threads 3.25-3.49 -> 3.09-3.22 ms, BERT-tiny
// 2.1-2.2 -> 1.35-1.40 ms, the CNNs and LSTMs unchanged (2026-11-30). Per thread; tests lower
// them (ParallelFloorsScope) to run the split paths on small shapes.
size_t parallel_work();
size_t gemm_parallel_macs();
constexpr size_t kParallelWork = size_t{1} << 15, kGemmParallelMacs = size_t{1} << 20;  // the defaults
class ParallelFloorsScope {
 public:
  ParallelFloorsScope(size_t work, size_t gemm_macs);
  ~ParallelFloorsScope();
  ParallelFloorsScope(const ParallelFloorsScope&) = delete;
  ParallelFloorsScope& operator=(const ParallelFloorsScope&) = delete;

 private:
  size_t work_, gemm_macs_;
};

// Items per part so that a part holds at least parallel_work() when one item is `work_per_item`.
inline size_t plane_grain(size_t work_per_item) {
  const size_t floor = parallel_work();
  return work_per_item >= floor ? 1 : (floor + work_per_item - 1) / (work_per_item ? work_per_item : 1);
}

namespace detail {
// What the templates below hand to parallel.cpp: a plain function and a pointer to the caller's
// lambda, so each lambda adds only a two-line trampoline to the library.
using TaskFn = void (*)(void* ctx, size_t task);
using RangeFn = void (*)(void* ctx, size_t begin, size_t end);
// Runs task(ctx, i) for i < n on up to threads() threads (the caller among them; in order on the
// caller alone with one thread or one task); returns when all are done and rethrows the first
// exception a task threw (the remaining tasks are skipped).
void run_tasks(size_t n, TaskFn task, void* ctx);
// The splitting of parallel_ranges.
void run_ranges(size_t total, size_t grain, size_t min_range, RangeFn fn, void* ctx);
// Worker threads started so far in this process (tests check that one thread starts none).
unsigned pool_workers();

template <class F>
void* context(F& fn) {
  return const_cast<void*>(static_cast<const void*>(&fn));
}
}  // namespace detail

// fn(i) for every i < n_tasks, on up to threads() threads. With one thread, or one task, the loop
// runs here in order without touching the pool.
template <class F>
void parallel_for(size_t n_tasks, F&& fn) {
  using Fn = std::remove_reference_t<F>;
  detail::run_tasks(n_tasks, [](void* ctx, size_t i) { (*static_cast<Fn*>(ctx))(i); }, detail::context(fn));
}

// Splits [0, total) into at most threads() ranges of whole `grain`-sized pieces (the last range
// takes the remainder) and calls fn(begin, end) for each; below 2 * min_range elements, one call.
// Range starts are multiples of grain, so a kernel whose vector loop runs in steps that divide
// grain meets its scalar tail only at the very end, as with one call.
template <class F>
void parallel_ranges(size_t total, size_t grain, size_t min_range, F&& fn) {
  using Fn = std::remove_reference_t<F>;
  detail::run_ranges(total, grain, min_range, [](void* ctx, size_t b, size_t e) { (*static_cast<Fn*>(ctx))(b, e); },
                     detail::context(fn));
}

}  // namespace ofg::kernels
