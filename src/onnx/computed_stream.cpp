#include "onnx/computed_stream.h"

#include <algorithm>

#include "ir/error.h"
#include "onnx/wire.h"

namespace ofg {

ComputedStream::ComputedStream(std::vector<const Tensor*> order) : order_(std::move(order)) {
  size_t total = 0;
  for (const Tensor* t : order_) total += t->data.size;
  if (total == 0) return;
  buffer_.reset(new uint8_t[kSlots * kPiece]);
  if (total >= kThreadBytes) worker_ = std::thread([this] { produce(); });
}

ComputedStream::~ComputedStream() {
  if (!worker_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

// Whole elements per piece, so a recipe is always asked for element-aligned ranges.
size_t ComputedStream::piece_bytes(const Tensor& t) {
  const size_t elem = std::max<size_t>(1, dtype_size(t.data_type));
  return kPiece / elem * elem;
}

// The worker: every piece of every tensor of the order, each into the next free slot.
void ComputedStream::produce() {
  try {
    uint64_t piece = 0;
    for (const Tensor* t : order_) {
      const size_t step = piece_bytes(*t);
      for (size_t at = 0; at < t->data.size; at += step, ++piece) {
        {
          std::unique_lock<std::mutex> lock(mutex_);
          changed_.wait(lock, [&] { return stop_ || piece - consumed_ < kSlots; });
          if (stop_) return;
        }
        const size_t n = std::min(step, t->data.size - at);
        t->read(at, n, slot(piece));
        {
          std::lock_guard<std::mutex> lock(mutex_);
          sizes_[piece % kSlots] = n;
          produced_ = piece + 1;
        }
        changed_.notify_all();
      }
      if (t->recipe) t->recipe->release_sources();
    }
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      error_ = std::current_exception();
    }
    changed_.notify_all();
  }
}

void ComputedStream::write(const Tensor& t, wire::Sink& sink) {
  if (next_ >= order_.size() || order_[next_] != &t)
    fail(Status::kInternal, "save: computed tensors written in another order than measured");
  ++next_;
  const size_t step = piece_bytes(t);
  if (!worker_.joinable()) {  // little to compute: do it here, one piece at a time
    for (size_t at = 0; at < t.data.size; at += step) {
      const size_t n = std::min(step, t.data.size - at);
      t.read(at, n, buffer_.get());
      sink.write(buffer_.get(), n);
    }
    if (t.recipe) t.recipe->release_sources();
    return;
  }
  for (size_t at = 0; at < t.data.size; at += step) {
    uint64_t piece;
    size_t n;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return produced_ > consumed_ || error_; });
      if (produced_ == consumed_) std::rethrow_exception(error_);
      piece = consumed_;
      n = sizes_[piece % kSlots];
    }
    sink.write(slot(piece), n);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      consumed_ = piece + 1;
    }
    changed_.notify_all();
  }
}

}  // namespace ofg
