// The boundary: every exported function runs its body through api_call, so no exception crosses
// into C and every failure sets the thread's last error.
#pragma once
#include <new>
#include <string>

#include "ir/error.h"
#include "onnxforge.h"

namespace ofg::api {

void set_last_error(const std::string& message);
void clear_last_error();

template <class F>
ofg_status api_call(F&& body) noexcept {
  try {
    clear_last_error();
    body();
    return OFG_OK;
  } catch (const Error& e) {
    set_last_error(e.what());
    return static_cast<ofg_status>(e.status());
  } catch (const std::bad_alloc&) {
    set_last_error("out of memory");
    return OFG_ERR_NO_MEMORY;
  } catch (const std::exception& e) {
    set_last_error(std::string("internal error: ") + e.what());
    return OFG_ERR_INTERNAL;
  } catch (...) {
    set_last_error("internal error: unknown exception");
    return OFG_ERR_INTERNAL;
  }
}

inline void require(const void* p, const char* function, const char* parameter) {
  if (p == nullptr) fail(Status::kInvalidArgument, std::string(function) + ": " + parameter + " is NULL");
}

// The checks of the ofg_*_entry-like functions that fill a caller's struct: the handle and `out`
// are not NULL, index is below count() (asked only once the handle is known), and out's
// struct_size reaches `min_size` (the fields this function writes).
template <class Out, class Count>
void require_entry(const char* function, const void* handle, const char* handle_name, size_t index, Count count,
                   const Out* out, size_t min_size) {
  require(handle, function, handle_name);
  require(out, function, "out");
  if (index >= count())
    fail(Status::kInvalidArgument, std::string(function) + ": index " + std::to_string(index) + " out of range");
  if (out->struct_size < min_size) fail(Status::kInvalidArgument, std::string(function) + ": out->struct_size is too small");
}

// An ofg_*_entry-like function over one list of a handle: require_entry's checks, with
// list_of(*handle).size() as the count, then fill(list_of(*handle)[index]) writes *out.
template <class Handle, class Out, class ListOf, class Fill>
ofg_status entry_call(const char* function, const Handle* handle, const char* handle_name, size_t index, Out* out,
                      size_t min_size, ListOf list_of, Fill fill) {
  return api_call([&] {
    require_entry(function, handle, handle_name, index, [&] { return list_of(*handle).size(); }, out, min_size);
    fill(list_of(*handle)[index]);
  });
}

// The ofg_*_count functions: checks the handle and the output (named as in onnxforge.h), then
// stores size_of(*handle).
template <class Handle, class SizeOf>
ofg_status count_call(const char* function, const Handle* handle, const char* handle_name, size_t* out,
                      const char* out_name, SizeOf size_of) {
  return api_call([&] {
    require(handle, function, handle_name);
    require(out, function, out_name);
    *out = size_of(*handle);
  });
}

}  // namespace ofg::api
