// The shuffler's opener, p2b::server::open_outer, on untrusted envelopes.
// Mode (first byte % 3): 0 the rest is an envelope as received; 1 and 2 the
// rest is an outer plaintext (kOuterPlainBytes, zero-padded or cut), sealed
// here to the current (1) or retired (2) shuffler key, so the protobuf and
// padding checks behind decryption are fuzzed, not only the framing.
#include "fuzz_fixture.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const p2b_fuzz::Keys& k = p2b_fuzz::keys();
  p2b_fuzz::Input in{};
  if (!p2b_fuzz::split_mode(data, size, 3, &in)) return 0;
  uint8_t sealed[p2b::kEnvelopeBytes];
  if (in.mode != 0) {
    p2b_fuzz::seal_layer(in, p2b::kOuterPlainBytes, k.shuffler[2 - in.mode], sealed);
    in.data = sealed;
    in.size = sizeof sealed;
  }
  p2b::server::OuterOpened outer{};
  const p2b::server::OpenStatus st =
      p2b::server::open_outer(in.data, in.size, k.shuffler, 2, &outer);
  p2b_fuzz::require(p2b::server::open_status_str(st) != nullptr, "status string");
  if (st == p2b::server::OpenStatus::ok) {
    // The shuffler forwards whatever it accepted, so the analyzer's opener
    // gets these bytes next.
    p2b::server::InnerOpened inner{};
    (void)p2b::server::open_inner(outer.inner, sizeof outer.inner, k.analyzer, 2, &inner);
  }
  return 0;
}
