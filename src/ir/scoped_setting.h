// A per-thread setting given a value for the lifetime of an object, the previous value restored
// after: the settings one API call makes for the ops it runs (tensor budget, thread count), so
// that nested and concurrent calls each keep their own.
#pragma once

namespace ofg {

template <class T>
class ScopedSetting {
 public:
  ScopedSetting(T& slot, T value) : slot_(slot), previous_(slot) { slot = value; }
  ~ScopedSetting() { slot_ = previous_; }
  ScopedSetting(const ScopedSetting&) = delete;
  ScopedSetting& operator=(const ScopedSetting&) = delete;

 private:
  T& slot_;  // a thread_local of the thread that made the object (which also destroys it)
  T previous_;
};

}  // namespace ofg
