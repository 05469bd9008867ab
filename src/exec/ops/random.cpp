// The random number generators. They have no kernel (a verified model must not depend on a
// random draw); they are known here so that passes see their traits: never folded, never merged.
#include "exec/interp.h"

namespace ofg::exec {

void register_random_ops(Registry& r) {
  for (std::string_view op : {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial",
                              "Bernoulli"})
    r.declare(op).traits(kRandom).no_rule();
}

}  // namespace ofg::exec
