// The worker pool behind parallel_for (kernels/parallel.h).
//
// One process-wide pool, created on the first call that asks for more than one thread and grown
// to the widest call seen; calls from several threads share it. A call posts a job (a task
// counter) that up to width - 1 idle workers join; the caller works on the job too, so every job
// finishes even when no worker is free (two concurrent runs never wait on each other). Tasks are
// claimed one at a time from the counter, so a slow thread never holds back a queue of its own.
//
// Waking a sleeping thread costs far more than most jobs: on the 2-core virtual machines we
// measure on, a worker asleep on its condition variable started 100-200 us after the notify, so a
// 0.12 ms MaxPool took 0.31 ms on two threads. So a worker that finished a job spins for a short
// while (kSpin) watching for the next one before it sleeps, and the caller spins for its workers'
// last tasks before it sleeps on `left_`: between the ops of one run no thread goes to sleep.
#include "kernels/parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace ofg::kernels {

namespace {

thread_local unsigned tls_threads = 1;
std::atomic<unsigned> g_workers_started{0};

// How long an idle thread watches for work before it sleeps: longer than the gap between two ops
// of a run, short enough that an idle process stops using its cores at once.
constexpr auto kSpin = std::chrono::microseconds(200);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || (defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH >= 7)
  asm volatile("yield");
#endif
}

// Spins until done() or kSpin has passed; returns done().
template <class Done>
bool spin_until(Done done) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + kSpin;
  for (unsigned i = 0;; ++i) {
    if (done()) return true;
    for (int k = 0; k < 16; ++k) cpu_relax();
    if ((i & 15) == 15 && Clock::now() >= deadline) return done();
  }
}

struct Job {
  detail::TaskFn fn;
  void* ctx;
  size_t n;
  std::atomic<size_t> next{0};
  unsigned seats;                  // workers that may still join (pool mutex)
  std::atomic<unsigned> active{0};  // workers inside the job (changed under the pool mutex)
  std::mutex error_mutex;
  std::exception_ptr error;

  // Claims and runs tasks until none is left; the first exception stops the claiming.
  void work() {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) {
      try {
        fn(ctx, i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next.store(n, std::memory_order_relaxed);
      }
    }
  }
};

class Pool {
 public:
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_.store(true, std::memory_order_relaxed);
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  void run(size_t n, unsigned width, detail::TaskFn fn, void* ctx) {
    Job job;
    job.fn = fn;
    job.ctx = ctx;
    job.n = n;
    job.seats = static_cast<unsigned>(std::min<size_t>(width - 1, n - 1));
    const unsigned seats = job.seats;  // workers change job.seats under the mutex from here on
    {
      std::lock_guard<std::mutex> lock(mutex_);
      grow(seats);
      queue_.push_back(&job);
      queued_.store(queue_.size(), std::memory_order_release);
    }
    if (seats == 1) wake_.notify_one();
    else wake_.notify_all();
    // Nested parallel_for calls inside the caller's tasks run inline, as on the workers.
    const unsigned saved = tls_threads;
    tls_threads = 1;
    job.work();
    tls_threads = saved;
    // No worker may join once the job is off the queue; wait for those that did, spinning first
    // (their last tasks are usually about to end).
    std::unique_lock<std::mutex> lock(mutex_);
    queue_.erase(std::remove(queue_.begin(), queue_.end(), &job), queue_.end());
    queued_.store(queue_.size(), std::memory_order_release);
    if (job.active.load(std::memory_order_acquire) != 0) {
      lock.unlock();
      if (!spin_until([&] { return job.active.load(std::memory_order_acquire) == 0; })) {
        lock.lock();
        left_.wait(lock, [&] { return job.active.load(std::memory_order_acquire) == 0; });
      }
    }
    if (lock.owns_lock()) lock.unlock();
    if (job.error) std::rethrow_exception(job.error);
  }

 private:
  // Starts workers until there are `want` (called with the mutex held).
  void grow(unsigned want) {
    while (workers_.size() < want) {
      workers_.emplace_back([this] { loop(); });
      g_workers_started.fetch_add(1, std::memory_order_relaxed);
    }
  }

  void loop() {
    tls_threads = 1;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (!stopping_.load(std::memory_order_relaxed) && queue_.empty()) {
        lock.unlock();
        spin_until([&] {
          return queued_.load(std::memory_order_acquire) != 0 || stopping_.load(std::memory_order_relaxed);
        });
        lock.lock();
      }
      wake_.wait(lock, [&] { return stopping_.load(std::memory_order_relaxed) || !queue_.empty(); });
      if (stopping_.load(std::memory_order_relaxed)) return;
      Job* job = queue_.front();
      if (--job->seats == 0) queue_.erase(queue_.begin());
      queued_.store(queue_.size(), std::memory_order_release);
      job->active.fetch_add(1, std::memory_order_relaxed);
      lock.unlock();
      job->work();
      lock.lock();
      // The caller may destroy the job as soon as active reaches 0: nothing of it is touched after.
      if (job->active.fetch_sub(1, std::memory_order_acq_rel) == 1) left_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_, left_;
  std::vector<Job*> queue_;  // jobs with free seats, oldest first
  std::atomic<size_t> queued_{0};  // queue_.size(), for workers that spin without the mutex
  // Set once, under the mutex, by the destructor; also read by workers spinning without it.
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> workers_;
};

Pool& pool() {
  static Pool p;  // created by the first call wider than one thread only
  return p;
}

}  // namespace

unsigned hardware_threads() {
  static const unsigned n = std::max(1u, std::thread::hardware_concurrency());
  return n;
}

unsigned threads() { return tls_threads; }

namespace {
thread_local size_t tls_parallel_work = kParallelWork, tls_gemm_parallel_macs = kGemmParallelMacs;
}  // namespace

size_t parallel_work() { return tls_parallel_work; }
size_t gemm_parallel_macs() { return tls_gemm_parallel_macs; }

ParallelFloorsScope::ParallelFloorsScope(size_t work, size_t gemm_macs)
    : work_(tls_parallel_work), gemm_macs_(tls_gemm_parallel_macs) {
  tls_parallel_work = work ? work : 1;
  tls_gemm_parallel_macs = gemm_macs;
}
ParallelFloorsScope::~ParallelFloorsScope() {
  tls_parallel_work = work_;
  tls_gemm_parallel_macs = gemm_macs_;
}

// More than this is a typo rather than a machine; the pool never grows past it.
constexpr unsigned kMaxThreads = 1024;

ThreadsScope::ThreadsScope(unsigned n) : ScopedSetting(tls_threads, std::min(n ? n : hardware_threads(), kMaxThreads)) {}

unsigned detail::pool_workers() { return g_workers_started.load(std::memory_order_relaxed); }

void detail::run_tasks(size_t n, TaskFn task, void* ctx) {
  const unsigned width = tls_threads;
  if (width <= 1 || n <= 1) {
    for (size_t i = 0; i < n; ++i) task(ctx, i);
    return;
  }
  pool().run(n, width, task, ctx);
}

void detail::run_ranges(size_t total, size_t grain, size_t min_range, RangeFn fn, void* ctx) {
  const size_t pieces = (total + grain - 1) / grain;
  size_t parts = tls_threads;
  if (min_range > 0 && total / min_range < parts) parts = total / min_range;
  if (pieces < parts) parts = pieces;
  if (parts <= 1) {
    if (total) fn(ctx, 0, total);
    return;
  }
  struct Split {
    size_t total, grain, pieces, parts;
    RangeFn fn;
    void* ctx;
  } split{total, grain, pieces, parts, fn, ctx};
  run_tasks(parts, [](void* c, size_t t) {
    const Split& sp = *static_cast<const Split*>(c);
    const size_t b = sp.pieces * t / sp.parts * sp.grain;
    const size_t e = t + 1 == sp.parts ? sp.total : sp.pieces * (t + 1) / sp.parts * sp.grain;
    sp.fn(sp.ctx, b, e);
  }, &split);
}

}  // namespace ofg::kernels
