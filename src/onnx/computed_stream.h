// Streams the bytes of computed tensors (Tensor::recipe) into a sink while a model is saved.
//
// Computing them (scaling a fused weight, transposing one, reading the source weight through the
// file mapping) costs about as much as writing them. So a worker thread computes the pieces ahead,
// in the order the saver will write them, into a small ring of buffers, while the calling thread
// writes: the save then takes about the longer of the two instead of their sum. When there is
// little to compute, the calling thread does it (starting a thread would cost more).
//
// The worker only reads the model (recipes never materialise anything when read piecewise), and
// the calling thread does not change it during a save, so no lock guards the model itself.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "ir/ir.h"

namespace ofg {
namespace wire {
class Sink;
}

class ComputedStream {
 public:
  // `order`: every computed tensor the saver will stream, in the order it will (collected while
  // measuring).
  explicit ComputedStream(std::vector<const Tensor*> order);
  ~ComputedStream();
  ComputedStream(const ComputedStream&) = delete;
  ComputedStream& operator=(const ComputedStream&) = delete;

  // Writes all bytes of t to sink; t must be the next tensor of the order.
  void write(const Tensor& t, wire::Sink& sink);

 private:
  static constexpr size_t kPiece = size_t(256) << 10;
  static constexpr size_t kSlots = 4;
  // Less than this to compute: no worker. Each piece handed over costs a wake-up of the other
  // thread, which a few MB of mostly small tensors do not win back (gpt_tiny, 2.4 MB in 20
  // tensors: 4.3 ms with the worker, 4.1 ms without; bert_tiny, 12.6 MB: 8.9 against 9.6).
  static constexpr size_t kThreadBytes = size_t(4) << 20;

  static size_t piece_bytes(const Tensor& t);
  void produce();
  uint8_t* slot(uint64_t piece) { return buffer_.get() + (piece % kSlots) * kPiece; }

  std::vector<const Tensor*> order_;
  size_t next_ = 0;  // the next tensor of the order the caller will write
  std::unique_ptr<uint8_t[]> buffer_;

  // Shared with the worker, under mutex_.
  std::mutex mutex_;
  std::condition_variable changed_;
  uint64_t produced_ = 0, consumed_ = 0;  // pieces
  size_t sizes_[kSlots] = {};
  bool stop_ = false;
  std::exception_ptr error_;

  std::thread worker_;
};

}  // namespace ofg
