// Exact rewrites of Resize's coordinate mode for targets that accept only some modes: another
// (coordinate_transformation_mode, nearest_mode) pair that maps every output element to the same
// input coordinates, given the node's static shapes and scales.
#pragma once
#include <functional>
#include <string>

#include "convert/adapter.h"

namespace ofg::targets {

// True when the target takes this pair (nearest_mode matters for mode "nearest" only).
using ResizeModeAllowed = std::function<bool(const std::string& coordinate_mode, const std::string& nearest_mode)>;

// Rewrites c.n's modes to the first equivalent pair `allowed` takes; sets c.what when it changed
// the node. Returns null when done or when nothing needed changing, else why no pair fits.
// The equivalences used, each only where it is exact:
//   pytorch_half_pixel == half_pixel      on axes with more than one output element or scale 1;
//   half_pixel_symmetric == half_pixel    when each output size is exactly scale * input size;
//   mode nearest with an integer upscale s on every axis (output == s * input): asymmetric+floor,
//   half_pixel / pytorch_half_pixel / half_pixel_symmetric with round_prefer_floor or
//   round_prefer_ceil, and tf_half_pixel_for_nn+floor all read input index floor(x / s).
const char* resize_to_allowed_modes(convert::AdaptCtx& c, const ResizeModeAllowed& allowed);

}  // namespace ofg::targets
