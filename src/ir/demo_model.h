// The built-in demo model (ofg_model_create_demo): a small CNN + MLP exported the "dirty" way,
// so every command has something to show with no file given.
#pragma once
#include <memory>

#include "ir/ir.h"

namespace ofg {

std::unique_ptr<Model> make_demo_model();

}  // namespace ofg
