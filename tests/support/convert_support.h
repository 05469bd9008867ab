// Expectations shared by the opset-conversion tests (plain conversion, and the lowerings of the
// fused transformer ops).
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <string>

#include "convert/opset_convert.h"
#include "ir/error.h"
#include "ir/ir.h"

namespace ofg::test {

// Converting m to `to` is refused (kUnsupported) with a message holding each of `parts`.
inline void expect_refused(Model& m, int64_t to, std::initializer_list<const char*> parts) {
  try {
    convert::convert_opset(m, to);
    ADD_FAILURE() << "converted to opset " << to;
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::kUnsupported);
    for (const char* part : parts) EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

}  // namespace ofg::test
