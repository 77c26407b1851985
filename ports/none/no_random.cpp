// For targets without a system CSPRNG: the app must supply p2b_config.random
// or choose seeded mode, and init says so with P2B_ERR_BAD_CONFIG otherwise.
#include "../default_random.hpp"

namespace p2b::port {

bool default_random(RandomSource* /*out*/) {
  return false;
}

}  // namespace p2b::port
