// The active party of O3M vertical federation as a service
// (docs/vertical-services.md): per decision it asks every passive party at
// once for its masked vectors (a boxed P2BR request each, one deadline for
// all), opens their P2BV answers, sums them with its own Q^0 x^0 through
// ActiveParty and decides on the shared model. Server code: no exception
// crosses this API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "p2b/shared_model.hpp"
#include "vfl/active_party.hpp"
#include "vfl/features_file.hpp"
#include "vfl/mask_bundle.hpp"
#include "vfl/masked_message.hpp"
#include "vfl/party_service.hpp"
#include "vfl/published_mask.hpp"
#include "vfl/state_file.hpp"

namespace p2b::vfl {

struct PartyLink {
  std::string url;  // http://HOST:PORT
  uint8_t box_pk[32] = {};
};

struct ApConfig {
  uint32_t d = 0;
  std::string bundle_path;
  std::string features_path;
  std::string state_path;
  std::size_t max_rows = 10'000'000;
  uint8_t box_pk[32] = {};
  uint8_t box_sk[32] = {};
  uint8_t pmg_sign_pk[32] = {};
  std::vector<PartyLink> parties;  // parties 1..M-1, in order
  SharedConfig model;              // dim is set from d; precision f64 keeps it lossless
  bool allow_partial = false;
  int party_timeout_ms = 2000;
};

struct ApStats {
  uint64_t decisions = 0;
  uint64_t partial = 0;
  uint64_t refused = 0;
  uint64_t rewards = 0;
  uint64_t decide_ns = 0;                // wall time of answered decisions, all of it
  std::vector<uint64_t> party_bytes;     // P2BV bytes received, per party (index 0 unused)
  std::vector<uint64_t> party_messages;  // P2BV messages accepted, per party
};

class ApService {
 public:
  ApService() = default;
  ~ApService();
  ApService(const ApService&) = delete;
  ApService& operator=(const ApService&) = delete;

  bool start(const ApConfig& cfg, std::string* err);

  // POST /v1/decide {"user_token":hex32,"item_ids":[u32,...]}
  ServiceReply decide(const std::string& body);
  // POST /v1/reward {"decision_id":u64,"reward":number}
  ServiceReply reward(const std::string& body);
  // POST /v1/mask: opens the own bundle again; a newer epoch replaces the
  // block and starts a fresh model (the old one learned in the old basis).
  ServiceReply reload_mask();

  ApStats stats() const;
  uint64_t epoch() const;
  std::string mask_id_hex() const;
  uint32_t parties() const { return static_cast<uint32_t>(cfg_.parties.size()) + 1; }

 private:
  BundleStatus open_bundle(uint64_t last_epoch, OpenedBundle* out, std::string* err) const;
  bool next_round(uint64_t* round, std::string* err);
  ServiceReply decide_locked(const std::string& body);
  ServiceReply reward_locked(const std::string& body);
  ServiceReply reload_locked();
  void publish_mask();  // copies the block's epoch and id for epoch() and mask_id_hex()

  ApConfig cfg_;
  FeatureTable features_;
  mutable std::mutex mu_;  // one decision at a time: rounds reach each party in order
  MaskBlock block_;
  // What /readyz and the logs show, under its own lock: a readiness check
  // must not wait for a decision in flight (mu_ is held across it).
  PublishedMask shown_;
  std::unique_ptr<ActiveParty> ap_;
  ServiceState state_;                   // round_id: the ceiling reserved on disk
  uint64_t last_round_ = 0;              // the last round_id used
  std::vector<uint64_t> last_accepted_;  // per party: the last P2BV round_id accepted
  std::vector<BoxKey> party_keys_;       // per party (index j for party j + 1): shared box keys
  ApStats stats_;
};

}  // namespace p2b::vfl
