// The O3M mask (server/vfl: draw_mask, block, mask_block). docs/vertical.md
// claims no differential privacy (epsilon = infinity): the active party
// learns every norm and inner product. What the mask does claim is that,
// under a fresh Haar-random Q, one masked vector says nothing about the
// passive party's block beyond its norm. The audit checks both:
//   - same norm: x^1 = (1, 0) or (0, 1); the active party's view
//     Q^1 x^1 = x~ - Q^0 x^0, first coordinate; claimed epsilon 0;
//   - another norm: x^1 = (1, 0) or (2, 0), the view's norm; no bound
//     claimed, and the audit shows why.
// The broken mask reuses one Q for every run (no fresh mask), which the
// audit must catch on the same-norm game.
#include <cmath>
#include <limits>
#include <stdexcept>

#include "audit/audit_case.hpp"
#include "vfl/mask.hpp"
#include "vfl/party_mask.hpp"

namespace p2b::audit {

namespace {

enum class Statistic { first_coordinate, norm };

struct MaskGame {
  double world0[2];
  double world1[2];
  Statistic statistic;
  bool fresh_mask;
};

std::vector<double> views(const MaskGame& game, int world, std::size_t runs, uint64_t seed) {
  const vfl::Partition partition{2, 2};  // the active party's block, the passive party's
  const double* x1 = world == 1 ? game.world1 : game.world0;
  std::vector<double> out;
  out.reserve(runs);
  for (std::size_t r = 0; r < runs; ++r) {
    // Without fresh masks every run (and both worlds) share one Q.
    const uint64_t stream = game.fresh_mask ? r : 0;
    const uint64_t mask_seed = game.fresh_mask ? seed : 0x03;
    uint8_t bytes[vfl::kMaskSeedBytes];
    for (std::size_t i = 0; i < sizeof bytes; i += 8) {
      const uint64_t word = mix_seed(mask_seed, stream * 4 + i / 8);
      for (std::size_t b = 0; b < 8; ++b) bytes[i + b] = static_cast<uint8_t>(word >> (8 * b));
    }
    vfl::Mask mask;
    vfl::MaskBlock passive;
    double view[4];
    if (vfl::draw_mask(bytes, 4, 1, &mask) != vfl::MaskStatus::ok ||
        !vfl::block(mask, partition, 1, &passive) || !vfl::mask_block(passive, x1, 1, view)) {
      throw std::runtime_error("O3M mask: draw, block or mask failed");
    }
    if (game.statistic == Statistic::first_coordinate) {
      out.push_back(view[0]);
    } else {
      out.push_back(
          std::sqrt(view[0] * view[0] + view[1] * view[1] + view[2] * view[2] + view[3] * view[3]));
    }
  }
  return out;
}

AuditCase make_case(const MaskGame& game, const char* mechanism, const char* variant, Variant kind,
                    const char* unit, double claimed_epsilon) {
  AuditCase c;
  c.mechanism = mechanism;
  c.variant = variant;
  c.kind = kind;
  c.unit = unit;
  c.adversary = "the active party (knows Q^0 and x^0)";
  c.claim_source = claimed_epsilon == 0.0
                       ? "docs/vertical.md: one fresh mask hides all but the norm"
                       : "docs/vertical.md: no DP, epsilon = infinity";
  c.claimed_epsilon = claimed_epsilon;
  c.claimed_delta = 0.0;
  c.sample = [game](int world, std::size_t runs, uint64_t seed) {
    return views(game, world, runs, seed);
  };
  return c;
}

}  // namespace

std::vector<AuditCase> o3m_mask_cases() {
  const char* same_norm = "a passive block's value, same norm ((1,0) or (0,1))";
  const MaskGame fresh{{1.0, 0.0}, {0.0, 1.0}, Statistic::first_coordinate, true};
  MaskGame reused = fresh;
  reused.fresh_mask = false;
  const MaskGame norm{{1.0, 0.0}, {2.0, 0.0}, Statistic::norm, true};
  return {make_case(fresh, "o3m_mask", "as shipped", Variant::shipped, same_norm, 0.0),
          make_case(reused, "o3m_mask", "one Q reused", Variant::broken, same_norm, 0.0),
          make_case(norm, "o3m_mask_norm", "as shipped", Variant::shipped,
                    "a passive block's norm (1 or 2)", std::numeric_limits<double>::infinity())};
}

}  // namespace p2b::audit
