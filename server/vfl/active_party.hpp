// The active party of O3M vertical federation: it holds its own feature block
// and mask block Q^0, sums its Q^0 x^0 with the passive parties' masked
// vectors Q^j x^j into the rotated context Qx of every item, and runs the
// shared-parameter model (p2b_core) on those. It never sees a raw passive
// block, only masked sums; what it can still infer is in docs/vertical.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "p2b/shared_model.hpp"
#include "vfl/mask.hpp"

namespace p2b::vfl {

enum class RoundStatus {
  ok,
  no_round,         // a part or a decision without begin()
  wrong_shape,      // item count or width does not match the round or the mask
  unknown_party,    // not a passive party of this mask (0 is the active party itself)
  duplicate_part,   // this party's part for this round arrived already
  missing_parties,  // decide() before every passive part, with allow_partial off
  model_error,      // the shared model refused (see model_status)
};
const char* round_status_name(RoundStatus s);

struct ActiveConfig {
  SharedConfig model;  // its dim must be the mask's d; f64 keeps central and rotated runs equal
  MaskBlock own;       // party 0's block
  // Decide with absent parties' parts taken as zero. Off by default: a
  // partial context is another model's input, and the decision says so.
  bool allow_partial = false;
};

struct Decision {
  uint32_t item = 0;
  uint64_t id = 0;
  uint32_t parts_missing = 0;  // > 0 only with allow_partial
};

class ActiveParty {
 public:
  static RoundStatus create(const ActiveConfig& cfg, std::unique_ptr<ActiveParty>* out,
                            std::string* err);

  // Starts a round of `k_items` items with the active party's own features
  // (k_items x d_0, row-major). Drops any round in progress.
  RoundStatus begin(uint32_t k_items, const double* own_x);
  // A passive party's masked vectors: k_prime = k_items (item features) or
  // 1 (user features, added to every item); k_prime x d, row-major.
  RoundStatus add_part(uint32_t party_index, uint32_t k_prime, const double* masked);
  RoundStatus decide(Decision* out);
  // Learns item `item` of the current round with reward r, without deciding:
  // replay of logged choices, and teacher-forced comparisons with a central
  // model. Ends the round.
  RoundStatus teach(uint32_t item, double r);
  Status reward(uint64_t id, double r);
  // Learns the rotated context `x` (d values) of a decision with reward r:
  // the service keeps its pending decisions in its own store
  // (vfl/ap_store.hpp), so a reward survives a restart of the process.
  Status learn(const double* x, double r);
  // The model's state (SharedModel::save, MACed under `key`), and back.
  Status save_model(const uint8_t* key, std::vector<uint8_t>* out) const;
  Status restore_model(const uint8_t* key, const std::vector<uint8_t>& in);

  const std::vector<double>& rotated_contexts() const { return rotated_; }
  const SharedModel& model() const { return *model_; }
  Status model_status() const { return last_model_status_; }
  uint32_t dim() const { return own_.d; }
  uint32_t parties() const { return static_cast<uint32_t>(own_.partition.size()); }

 private:
  ActiveParty() = default;
  MaskBlock own_;
  bool allow_partial_ = false;
  std::vector<unsigned char> arena_;
  SharedModel* model_ = nullptr;
  bool in_round_ = false;
  uint32_t k_items_ = 0;
  std::vector<double> rotated_;  // k_items x d
  std::vector<bool> arrived_;    // per party
  Status last_model_status_ = Status::ok;
};

}  // namespace p2b::vfl
