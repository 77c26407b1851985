// p2b-vfl-ap's durable store (--model-store FILE): what a kill -9 must not
// take from the active party. The decision ids it has issued, each pending
// decision's rotated context (what its reward needs), every applied reward
// in the order it was applied, and a checkpoint of the shared model saved
// through SharedModel::save (p2b_shared_model_save) under the mask it was
// learned in. The model after a restart is the checkpoint plus the rewards
// applied since, replayed in their order: learn() is deterministic, so the
// model is bit for bit the one that answered before the crash.
//
// Why SQLite and not the atomic text state file: every decision and every
// reward is one small commit here (a row of 8 d bytes and a counter), while
// the state file rewrites, renames and fsyncs the whole file twice per
// change; and only a transaction can apply a reward, mark its decision
// rewarded and, now and then, replace the checkpoint all at once. Why a
// checkpoint plus rewards, not the whole model per reward: a save is
// 4 d (d + 1) bytes, a reward 8 d; the checkpoint is rewritten once its size
// has been written again in rewards (store_checkpoint_every).
//
// The round_id ceiling and the mask epoch stay in the state file (--store,
// shared with p2b-vfl-party): a round_id must be durable before the parties
// are asked, which is before any decision exists to commit here.
//
// Durable against kill -9 at every commit; against a power loss, every
// acknowledged reward (issue #30): the store runs synchronous=NORMAL, so a
// decision's commit is in the operating system's hands (which a killed
// process cannot take back) before the answer, without an fsync of its own,
// while a reward's commit is fsynced before its 200 (and with it every
// decision before it). Decision ids are reserved in blocks: the counter on
// disk is a bound every issued id is below, moved kIdReserve ahead by a
// commit that is fsynced, so no id is issued twice even after a power loss;
// a restart resumes at the bound. Every kSyncEvery-th commit is fsynced too
// (and the WAL is before each checkpoint), so an operating-system crash or
// a power loss loses at most the last < kSyncEvery decisions not yet
// rewarded (their rewards then fail as unknown ids, loudly), never an
// acknowledged reward, an id or a round_id.
//
// Through the services' SQLite layer (common/sqlite_db.hpp,
// store_open.hpp): WAL, synchronous=FULL, owner-only, one process per
// file, its own application_id. Every failure throws common::SqliteError
// (common::StoreRefused when opening); ApService turns it into an answer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/sqlite_db.hpp"
#include "common/store_open.hpp"

namespace p2b::vfl {

// "P2VA". `ap_decisions` is this kind's table, should a file lack the id.
inline constexpr common::StoreKind kVflApStore{"vfl active-party store", 0x50325641, "ap_decisions",
                                               false};

// The mask a checkpoint was learned under, its state and what it covers.
struct ApCheckpoint {
  uint64_t epoch = 0;
  std::vector<uint8_t> mask_id;  // kMaskIdBytes
  uint64_t seq = 0;              // the applied rewards it includes: 1..seq
  std::vector<uint8_t> state;    // SharedModel::save's bytes
};

// Decision ids reserved per fsynced commit, and commits between fsyncs:
// an fsync costs 3-6 ms on the disks measured, a round under one; at 256
// it is 2-3 % of a round, and what a power loss may take stays small.
inline constexpr uint64_t kIdReserve = 256;
inline constexpr uint64_t kSyncEvery = 256;

// The counters every answer depends on.
struct ApCounters {
  uint64_t next_id = 1;        // the next decision id to issue (on disk: the reserved bound)
  uint64_t first_live_id = 1;  // ids below it were decided under an older mask
  uint64_t applied = 0;        // rewards applied since the store was created
};

// A reward the checkpoint does not include yet.
struct ApReplay {
  uint64_t id = 0;
  double reward = 0;
  std::vector<double> context;
};

// One row of the per-id ledger: a decision whose reward was applied.
struct ApLedgerRow {
  uint64_t id = 0;
  uint64_t seq = 0;  // its place in the order rewards were applied (1, 2, ...)
  double reward = 0;
};

enum class PendingState { awaiting, rewarded, absent };

class ApStore {
 public:
  explicit ApStore(const std::string& path);
  ApStore(const ApStore&) = delete;
  ApStore& operator=(const ApStore&) = delete;

  // False on a new store (no checkpoint yet). `n->next_id` is the
  // reserved bound: ids from the last run that were not used are skipped.
  bool load(ApCheckpoint* cp, ApCounters* n);
  // The rewards applied after the checkpoint, in the order they were applied.
  std::vector<ApReplay> replay(uint64_t after_seq, uint32_t d) const;

  // A fresh model under a new mask, in one transaction: the checkpoint is
  // `cp`, decisions start again at `n.next_id` (ids only grow) and every
  // row of the old mask is gone (its contexts are in another basis).
  void reset(const ApCheckpoint& cp, const ApCounters& n);
  // Decision `id` with its chosen item's rotated context (d values), in
  // one transaction with, when `id` reaches the reserved bound, the next
  // block's bound (that commit fsynced). Awaiting decisions and rewarded ones
  // the checkpoint covers, `window` ids or more below it, are dropped: a
  // reward for one of them is expired, as the model's pending ring says.
  void record_decision(uint64_t id, const double* context, uint32_t d, uint64_t window,
                       uint64_t checkpoint_seq);
  // Whether decision `id` awaits a reward; its context when it does.
  PendingState find(uint64_t id, uint32_t d, std::vector<double>* context) const;
  // Reward `r` of awaiting decision `id`, as applied reward number `seq`,
  // and (when `cp` is not null) the checkpoint that includes it, in one
  // transaction. False, and nothing written, when the decision no longer
  // awaits one.
  bool apply_reward(uint64_t id, double r, uint64_t seq, const ApCheckpoint* cp);

  // Every applied reward the store still holds, by id (tests, audits).
  std::vector<ApLedgerRow> ledger() const;
  const common::StoreHealth& health() const { return db_->health(); }

 private:
  std::unique_ptr<common::StoreLock> lock_;
  // Opens a transaction fsynced at its commit when one is due (`force`,
  // or kSyncEvery commits since the last), else a commit without fsync.
  class Commit;

  std::unique_ptr<common::Database> db_;
  uint64_t id_bound_ = 1;  // the reserved bound on disk: ids below it may have been issued
  uint64_t unsynced_ = 0;  // commits since the last fsynced one
};

// Rewards to apply between two checkpoints: a checkpoint costs what this
// many reward rows cost, so the rewrites at most double what rewards write,
// and a restart replays at most this many.
uint64_t store_checkpoint_every(std::size_t saved_bytes, uint32_t d);

// The key the active party MACs its saved model under, derived from its box
// secret key: the file cannot be edited, nor another party's adopted.
void model_state_key(const uint8_t box_sk[32], uint8_t out[32]);

}  // namespace p2b::vfl
