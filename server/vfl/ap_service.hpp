// The active party of O3M vertical federation as a service
// (docs/vertical-services.md): per decision it asks every passive party at
// once for its masked vectors (vfl/party_exchange.hpp), sums their P2BV
// answers with its own Q^0 x^0 through
// ActiveParty and decides on the shared model. Every decision and every
// reward is committed to its store (vfl/ap_store.hpp) before it is
// answered, so a kill -9 loses no acknowledged reward, applies none twice
// and never issues a decision id again. Server code: no exception crosses
// this API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "p2b/shared_model.hpp"
#include "vfl/active_party.hpp"
#include "vfl/ap_store.hpp"
#include "vfl/features_file.hpp"
#include "vfl/mask_bundle.hpp"
#include "vfl/masked_message.hpp"
#include "vfl/party_exchange.hpp"
#include "vfl/party_service.hpp"
#include "vfl/published_mask.hpp"
#include "vfl/state_file.hpp"

namespace p2b::vfl {

struct ApConfig {
  uint32_t d = 0;
  std::string bundle_path;
  std::string features_path;
  std::string state_path;
  std::string model_store_path;  // the SQLite store of the model and decisions
  std::size_t max_rows = 10'000'000;
  uint8_t box_pk[32] = {};
  uint8_t box_sk[32] = {};
  uint8_t pmg_sign_pk[32] = {};
  std::vector<PartyLink> parties;  // parties 1..M-1, in order
  // dim is set from d; precision f64 keeps it lossless. pending_capacity is
  // how many of the latest decision ids may still be rewarded.
  SharedConfig model;
  bool allow_partial = false;
  int party_timeout_ms = 2000;
};

struct ApStats {
  uint64_t decisions = 0;
  uint64_t partial = 0;
  uint64_t refused = 0;
  uint64_t rewards = 0;
  uint64_t decide_ns = 0;                // wall time of answered decisions, all of it
  uint64_t exchange_ns = 0;              // of which asking the parties, answers opened
  uint64_t store_ns = 0;                 // of which committing the decision to the store
  std::vector<uint64_t> party_bytes;     // P2BV bytes received, per party (index 0 unused)
  std::vector<uint64_t> party_messages;  // P2BV messages accepted, per party
  // From the durable state: rewards applied since the store was created,
  // the model's own count of them, the next decision id, the applied
  // rewards its last checkpoint includes, and a digest of what the model
  // learned (its saved factor and b), equal exactly when the scores are.
  uint64_t rewards_applied = 0;
  uint64_t model_updates = 0;
  uint64_t next_decision_id = 0;
  uint64_t checkpoint_seq = 0;
  std::string model_digest;
};

class ApService {
 public:
  ApService() = default;
  ~ApService();
  ApService(const ApService&) = delete;
  ApService& operator=(const ApService&) = delete;

  bool start(const ApConfig& cfg, std::string* err);
  // After a failed start: the store was refused (damaged, another kind, a
  // model it cannot restore), which a restart cannot mend.
  bool store_refused() const { return store_refused_; }

  // POST /v1/decide {"user_token":hex32,"item_ids":[u32,...]}
  ServiceReply decide(const std::string& body);
  // POST /v1/reward {"decision_id":u64,"reward":number}
  ServiceReply reward(const std::string& body);
  // POST /v1/mask: opens the own bundle again; a newer epoch replaces the
  // block and starts a fresh model (the old one learned in the old basis).
  ServiceReply reload_mask();

  ApStats stats() const;
  // The "storage" readiness check: failed once the store met damage.
  common::CheckResult store_check() const;
  uint64_t epoch() const;
  std::string mask_id_hex() const;
  uint32_t parties() const { return static_cast<uint32_t>(cfg_.parties.size()) + 1; }

 private:
  BundleStatus open_bundle(uint64_t last_epoch, OpenedBundle* out, std::string* err) const;
  bool next_round(uint64_t* round, std::string* err);
  std::vector<PartAnswer> ask_round(const UserToken& user, const std::vector<uint32_t>& items,
                                    uint64_t* round, std::string* err);
  ServiceReply decide_locked(const std::string& body);
  ServiceReply reward_locked(const std::string& body);
  ServiceReply reload_locked();
  void publish_mask();  // copies the block's epoch and id for epoch() and mask_id_hex()
  bool open_model(const MaskBlock& block, std::string* err);
  bool reset_model(const MaskBlock& block, const ApCounters& n, std::string* err);
  bool save_checkpoint(const MaskBlock& block, uint64_t seq, ApCheckpoint* cp,
                       std::string* err) const;

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
  std::unique_ptr<PartyClients> party_clients_;
  ApStats stats_;
  std::unique_ptr<ApStore> store_;
  uint8_t state_key_[32] = {};  // MACs the saved model (model_state_key)
  ApCounters counters_;         // as committed
  uint64_t checkpoint_seq_ = 0;
  uint64_t checkpoint_every_ = 16;
  uint64_t window_ = 0;  // --pending: the latest ids that may be rewarded
  bool store_refused_ = false;
};

}  // namespace p2b::vfl
