// The one exception type of the library. src/api turns it into an ofg_status and the message.
#pragma once
#include <stdexcept>
#include <string>

namespace ofg {

// Mirrors ofg_status in include_c/onnxforge.h (a test checks they agree).
enum class Status : int {
  kOk = 0,
  kInvalidArgument = 1,
  kIo = 2,
  kParse = 3,
  kInvalidModel = 4,
  kUnsupported = 5,
  kNoMemory = 6,
  kLimit = 7,
  kVerifyFailed = 8,
  kCancelled = 9,
  kInternal = 10,
  kNoValidInputs = 11,
};

class Error : public std::runtime_error {
 public:
  Error(Status status, const std::string& message) : std::runtime_error(message), status_(status) {}
  Status status() const { return status_; }

 private:
  Status status_;
};

[[noreturn]] inline void fail(Status s, const std::string& message) { throw Error(s, message); }

}  // namespace ofg
