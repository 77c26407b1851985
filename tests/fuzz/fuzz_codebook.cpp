// p2b_codebook_parse on untrusted codebook files, into a fixed-capacity
// buffer. No modes: the fingerprint is checked last, so valid seeds already
// carry mutations through every other check. A file the parser accepts must
// also be accepted by p2b_agent_init, which must then report the same
// fingerprint: the device sets cfg.centroids straight from the parse.
#include "fuzz_fixture.hpp"

namespace {

constexpr size_t kCapacity = 4096;  // floats: k x dim up to 64 x 64

void check_agent_accepts(const float* centroids, const p2b_codebook_info& info) {
  p2b_config cfg = p2b_fuzz::agent_config();
  cfg.dim = info.dim;
  cfg.n_actions = 1;
  cfg.n_codes = info.k;
  cfg.round_digits = info.digits;
  cfg.centroids = centroids;
  size_t bytes = 0;
  p2b_fuzz::require(p2b_agent_footprint(&cfg, &bytes) == P2B_OK, "footprint of a parsed codebook");
  p2b_test::ArenaPtr mem = p2b_test::aligned_arena(bytes);
  p2b_agent* ag = nullptr;
  p2b_fuzz::require(p2b_agent_init(mem.get(), bytes, &cfg, &ag) == P2B_OK,
                    "init refuses a codebook the parser accepted");
  p2b_fingerprints fp;
  p2b_fuzz::require(p2b_agent_fingerprints(ag, &fp) == P2B_OK, "fingerprints");
  p2b_fuzz::require(std::memcmp(fp.codebook, info.fingerprint, sizeof fp.codebook) == 0,
                    "agent and parser disagree on the codebook fingerprint");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)p2b_fuzz::keys();
  static float centroids[kCapacity];
  p2b_codebook_info info{};
  const p2b_status st = p2b_codebook_parse(data, size, centroids, kCapacity, &info);
  if (st != P2B_OK) {
    p2b_fuzz::require(p2b_is_error(st) != 0, "codebook_parse: non-error status other than OK");
    return 0;
  }
  p2b_fuzz::require(static_cast<size_t>(info.k) * info.dim <= kCapacity,
                    "parse wrote past its capacity");
  check_agent_accepts(centroids, info);
  return 0;
}
