// For targets without a system CSPRNG or crypto library: the app supplies
// p2b_config.random and p2b_config.crypto (or uses seeded mode), and init
// says so with P2B_ERR_BAD_CONFIG otherwise.
#include "../platform.hpp"

namespace p2b::port {

bool default_random(RandomSource* /*out*/) {
  return false;
}
bool default_crypto(CryptoPort* /*out*/) {
  return false;
}

}  // namespace p2b::port
