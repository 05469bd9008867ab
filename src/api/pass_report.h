// The ofg_pass_report handle, shared by the C ABI files that make one (api_passes.cpp for the
// passes, api_convert_opset.cpp for opset conversion).
#pragma once
#include <string>

#include "passes/pipeline.h"

struct ofg_pass_report {
  ofg::passes::PipelineReport report;
  std::string json;  // made on first request (or set by the call that made the report)
};
