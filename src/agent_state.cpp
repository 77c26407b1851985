#include "agent_state.hpp"

#include <cstddef>
#include <cstring>
#include <type_traits>

#include "config_digest_hash.hpp"

namespace p2b {

static_assert(std::is_standard_layout<AgentState>::value,
              "the Agent base must share the state's address");
static_assert(offsetof(AgentState, magic) == 0 && offsetof(AgentState, layout_version) == 4,
              "Agent::check reads the magic and layout version from the arena's first words");

void AgentState::setup(const Config& cfg, const ArenaLayout& layout, const KeyFingerprints& fps) {
  char* arena = reinterpret_cast<char*>(this);
  const Shape shape = shape_of(cfg);
  layout_version = kLayoutVersion;
  policy = cfg.policy;
  alpha = cfg.alpha;
  ridge_lambda = cfg.ridge_lambda;
  ts_scale = cfg.ts_scale;
  config_digest = p2b::config_digest(cfg);
  if (cfg.deterministic) {
    rng.init_seeded(cfg.seed);
  } else {
    rng.init_source(cfg.random);
  }
  crypto = cfg.crypto;
  min_model_version = cfg.min_model_version;
  accept_baseline_models = cfg.accept_baseline_models;
  std::memcpy(shuffler_pk, cfg.shuffler_public_key, kPublicKeyBytes);
  std::memcpy(analyzer_pk, cfg.analyzer_public_key, kPublicKeyBytes);
  std::memcpy(verify_pk, cfg.analyzer_verify_key, kPublicKeyBytes);
  fp = fps;
  std::memcpy(accepted_shuffler_fp[0], fps.shuffler, kFingerprintBytes);
  arms.init(shape, arena, layout);
  arms.reset_all(static_cast<real>(cfg.ridge_lambda));
  codebook.init(shape, cfg.round_digits, cfg.centroids, arena, layout);
  pending.init(shape, arena, layout);
  reporter.init(cfg, arena, layout);
}

}  // namespace p2b
