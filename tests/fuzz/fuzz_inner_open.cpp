// The analyzer's opener, p2b::server::open_inner, on untrusted inner layers.
// Mode (first byte % 3): 0 the rest is an inner layer as forwarded; 1 and 2
// the rest is a Report plaintext (kInnerPlainBytes, zero-padded or cut),
// sealed here to the current (1) or retired (2) analyzer key.
#include <cmath>

#include "fuzz_fixture.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const p2b_fuzz::Keys& k = p2b_fuzz::keys();
  p2b_fuzz::Input in{};
  if (!p2b_fuzz::split_mode(data, size, 3, &in)) return 0;
  uint8_t sealed[p2b::kInnerBytes];
  if (in.mode != 0) {
    p2b_fuzz::seal_layer(in, p2b::kInnerPlainBytes, k.analyzer[2 - in.mode], sealed);
    in.data = sealed;
    in.size = sizeof sealed;
  }
  p2b::server::InnerOpened rep{};
  const p2b::server::OpenStatus st = p2b::server::open_inner(in.data, in.size, k.analyzer, 2, &rep);
  p2b_fuzz::require(p2b::server::open_status_str(st) != nullptr, "status string");
  if (st == p2b::server::OpenStatus::ok) {
    // The analyzer aggregates rewards as they come: the opener promises them
    // finite and in [0, 1].
    p2b_fuzz::require(std::isfinite(rep.reward) && rep.reward >= 0.0F && rep.reward <= 1.0F,
                      "accepted report has a reward outside [0, 1]");
  }
  return 0;
}
