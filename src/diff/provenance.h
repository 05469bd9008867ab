// Reading the provenance map out of an optimize report: {B node name: [A node names]}.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace ofg::diff {

// B node name -> the names of the A nodes it came from (in the report's order).
using Provenance = std::map<std::string, std::vector<std::string>>;

// Finds the "provenance" object in `json`: at the top level of the report, or one level down
// (under "optimize", "passes" or any other key of the top-level object); a top-level object whose
// every value is an array of strings is taken as the map itself. Fails with kInvalidArgument
// (naming what was expected) when the text is not JSON or holds no such object.
Provenance parse_provenance(const std::string& json);

// The report's "folded" object beside its "provenance" ({initializer name: [A nodes constant
// folding turned into it]}); empty when the report has none. Same errors as parse_provenance.
Provenance parse_folded(const std::string& json);

}  // namespace ofg::diff
