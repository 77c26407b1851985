// The passive party of O3M vertical federation as a service
// (docs/vertical-services.md): it holds its feature block and its mask block
// Q^j and answers the active party's P2BR requests with a P2BV message of
// Q^j x^j for the requested items, and nothing else. Server code: no
// exception crosses this API.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

#include "vfl/features_file.hpp"
#include "vfl/mask_bundle.hpp"
#include "vfl/published_mask.hpp"
#include "vfl/state_file.hpp"

namespace p2b::vfl {

struct PartyConfig {
  uint32_t party_index = 1;  // >= 1: party 0 is the active party
  uint32_t d = 0;
  std::string bundle_path;
  std::string features_path;
  std::string state_path;
  std::size_t max_rows = 10'000'000;
  uint8_t box_pk[32] = {};
  uint8_t box_sk[32] = {};
  uint8_t pmg_sign_pk[32] = {};
  uint8_t ap_box_pk[32] = {};
};

// One HTTP answer: status, content type and body.
struct ServiceReply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::string code;  // the error code, empty on success (for logs and counters)
};

struct PartyStats {
  uint64_t answered = 0;
  uint64_t refused = 0;
  uint64_t busy_ns = 0;     // time spent answering, from the request body to the sealed reply
  uint64_t persist_ns = 0;  // of which reserving rounds in the state file (once per block)
};

class PartyService {
 public:
  PartyService() = default;
  ~PartyService();
  PartyService(const PartyService&) = delete;
  PartyService& operator=(const PartyService&) = delete;

  // Reads the state, opens the bundle (an epoch below the state's last is a
  // rollback) and loads the features. False with a reason.
  bool start(const PartyConfig& cfg, std::string* err);

  // POST /v1/masked: one P2BR request in, one P2BV message out.
  ServiceReply masked(const std::string& body);
  // POST /v1/mask: opens the bundle file again; a newer epoch replaces the
  // block, anything else leaves it as it was and says why.
  ServiceReply reload_mask();

  PartyStats stats() const;
  uint64_t epoch() const;
  std::string mask_id_hex() const;
  std::size_t feature_rows() const { return features_.rows(); }
  bool user_only() const { return features_.user_only(); }

 private:
  BundleStatus open_bundle(uint64_t last_epoch, OpenedBundle* out, std::string* err) const;
  ServiceReply masked_locked(const std::string& body);
  ServiceReply reload_locked();
  void publish_mask();  // copies the block's epoch and id for epoch() and mask_id_hex()

  PartyConfig cfg_;
  FeatureTable features_;
  mutable std::mutex mu_;  // one request at a time: rounds are answered in order
  MaskBlock block_;
  // What /readyz and the logs show, under its own lock: a readiness check
  // must not wait for a decision in flight (mu_ is held across it).
  PublishedMask shown_;
  ServiceState state_;       // round_id: the ceiling reserved on disk (vfl/round_reserve.hpp)
  uint64_t last_round_ = 0;  // the last round_id answered (after a start: the ceiling)
  PartyStats stats_;
};

}  // namespace p2b::vfl
