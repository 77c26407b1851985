// p2b_agent_apply_model on untrusted warm-start bundles. Mode (first byte %
// 4): bit 0 clear, the rest is a bundle as downloaded; set, the rest is the
// signed body ("P2BM" | header | columns) and the signature by the fixed
// analyzer key is appended here, so the parser behind verification is
// fuzzed. Bit 1 set: p2b_agent_apply_model_at at a fixed time, on an agent
// that accepts raw-baseline models, so the kind and not-after paths run too.
//
// Beyond "no crash": a rejected bundle must leave the agent exactly as it was
// (compared through its saved state), and an applied one must refuse itself a
// second time (anti-rollback) and leave an agent that still decides, learns
// and saves a state it can restore.
#include "fuzz_fixture.hpp"

namespace {

// Allocated at its exact size, so ASan sees any read past the signature.
std::vector<uint8_t> sign(const p2b_fuzz::Input& in) {
  std::vector<uint8_t> bundle(in.size + crypto_sign_BYTES);
  std::memcpy(bundle.data(), in.data, in.size);
  crypto_sign_detached(bundle.data() + in.size, nullptr, in.data, in.size,
                       p2b_fuzz::keys().sign_sk);
  return bundle;
}

constexpr uint64_t kNow = 1795000000;

p2b_config experiment_config() {
  p2b_config cfg = p2b_fuzz::agent_config();
  cfg.accept_baseline_models = 1;
  return cfg;
}

// The version of whichever kind was applied.
uint64_t applied_version(const p2b_agent* ag) {
  uint64_t priv = 0;
  uint64_t raw = 0;
  p2b_fuzz::require(p2b_agent_model_version_of(ag, P2B_MODEL_PRIVATE, &priv) == P2B_OK &&
                        p2b_agent_model_version_of(ag, P2B_MODEL_RAW_BASELINE, &raw) == P2B_OK,
                    "model_version_of");
  return priv > raw ? priv : raw;
}

void exercise(p2b_agent* ag) {
  const float x[p2b_fuzz::kDim] = {0.4F, 0.3F, 0.2F, 0.1F};
  uint32_t action = 0;
  uint64_t id = 0;
  if (p2b_agent_decide(ag, x, p2b_fuzz::kDim, &action, &id) == P2B_OK) {
    p2b_fuzz::require(action < p2b_fuzz::kActions, "decide returned an action out of range");
    p2b_fuzz::require(p2b_agent_reward(ag, id, 1.0F) == P2B_OK, "reward after decide");
  }
  float mean[p2b_fuzz::kActions];
  float width[p2b_fuzz::kActions];
  (void)p2b_agent_scores(ag, x, p2b_fuzz::kDim, mean, width, p2b_fuzz::kActions);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static p2b_fuzz::FixedAgent production(p2b_fuzz::agent_config());
  static p2b_fuzz::FixedAgent experiment(experiment_config());
  static p2b_fuzz::FixedAgent spare(p2b_fuzz::agent_config());
  static const std::vector<uint8_t> fresh = p2b_test::saved(production.init());
  p2b_fuzz::Input in{};
  if (!p2b_fuzz::split_mode(data, size, 4, &in)) return 0;
  const bool timed = (in.mode & 2U) != 0;
  std::vector<uint8_t> signed_bundle;
  if ((in.mode & 1U) != 0) {
    signed_bundle = sign(in);
    in.data = signed_bundle.data();
    in.size = signed_bundle.size();
  }
  p2b_agent* ag = timed ? experiment.init() : production.init();
  const auto apply = [&] {
    return timed ? p2b_agent_apply_model_at(ag, in.data, in.size, kNow)
                 : p2b_agent_apply_model(ag, in.data, in.size);
  };
  const p2b_status st = apply();
  if (st != P2B_OK) {
    p2b_fuzz::require(p2b_is_error(st) != 0, "apply_model: non-error status other than OK");
    p2b_fuzz::require(p2b_test::saved(ag) == fresh, "a rejected model changed the agent");
    return 0;
  }
  p2b_fuzz::require(applied_version(ag) > 0, "applied model has no version");
  p2b_fuzz::require(apply() == P2B_ERR_MODEL_ROLLBACK, "the same model applied twice");
  p2b_fuzz::require_restorable(ag, spare, "an applied model gives a state restore refuses");
  exercise(ag);
  p2b_fuzz::require_restorable(ag, spare,
                               "learning on an applied model gives a state restore refuses");
  return 0;
}
