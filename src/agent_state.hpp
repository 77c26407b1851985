// What an Agent handle points at: the state object at the start of the
// arena, composed of the agent's named parts. Internal to the core.
//
//   arms      K ridge-regression arms and their scratch     (arm_set.hpp)
//   codebook  the arena's copy of the centroids, encoding   (codebook.hpp)
//   pending   decisions awaiting a reward                   (pending_ring.hpp)
//   reporter  window, outbox and privacy ledger             (reporter.hpp)
//
// Each part finds its blocks (placed by arena_layout.hpp) through relative
// pointers, so the arena holds no absolute address.
#pragma once

#include <cstdint>

#include "arena_layout.hpp"
#include "arm_set.hpp"
#include "codebook.hpp"
#include "p2b/agent.hpp"
#include "p2b/key_list.hpp"
#include "pending_ring.hpp"
#include "random.hpp"
#include "reporter.hpp"

namespace p2b {

constexpr uint32_t kAgentMagic = 0x41423250U;  // "P2BA" little-endian
constexpr uint32_t kLayoutVersion = 2;         // 2: reciprocal diagonals and lane groups

// Deriving from the empty Agent keeps this object and its Agent base at the
// same address, so an Agent* handed out by init converts back with a
// static_cast. Members are ordered to keep padding out of the header.
struct AgentState : Agent {
  uint32_t magic = 0;  // magic and layout_version lead: Agent::check reads them
  uint32_t layout_version = 0;
  Policy policy = Policy::linucb;
  bool accept_baseline_models = false;  // apply raw-baseline models (experiments)
  ArmSet arms;
  Codebook codebook;
  double alpha = 0;
  double ridge_lambda = 0;
  double ts_scale = 0;
  uint64_t config_digest = 0;
  Rng rng;
  CryptoPort crypto{};
  // Warm-start models: the version last applied of each kind, so that a
  // raw baseline (accepted only when allowed) never locks out a private
  // model, and the floor set at init.
  uint64_t model_version = 0;           // private (kind 0)
  uint64_t baseline_model_version = 0;  // raw baseline (kind 1)
  uint64_t min_model_version = 0;
  // The key list applied last (0: none) and the shuffler keys it accepts:
  // slot 0 is the current key (shuffler_pk, fp.shuffler), the rest the
  // still-accepted ones, zero when unused. Before any list, only the
  // configured key.
  uint64_t key_list_version = 0;
  uint8_t accepted_shuffler_fp[kKeyListMaxKeys][kFingerprintBytes] = {};
  uint8_t shuffler_pk[kPublicKeyBytes] = {};  // the current outer-layer key
  uint8_t analyzer_pk[kPublicKeyBytes] = {};
  uint8_t verify_pk[kPublicKeyBytes] = {};
  KeyFingerprints fp = {};
  PendingRing pending;
  Reporter reporter;

  static AgentState& of(Agent* agent) { return *static_cast<AgentState*>(agent); }
  static const AgentState& of(const Agent* agent) { return *static_cast<const AgentState*>(agent); }

  // Fills a freshly constructed state at the start of a zeroed arena of
  // `layout`; `cfg` is valid and `fps` its fingerprints. Sets no magic.
  void setup(const Config& cfg, const ArenaLayout& layout, const KeyFingerprints& fps);
};

}  // namespace p2b
