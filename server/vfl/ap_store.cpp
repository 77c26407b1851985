#include "vfl/ap_store.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstring>

namespace p2b::vfl {

namespace {

constexpr int64_t kSchemaVersion = 1;

// One row each of counters and checkpoint: a counter changes per decision,
// the checkpoint rarely, and SQLite rewrites a whole row (its blob too) on
// any update. A reward is kept as its f64's bits: exact, and the layer
// binds integers. `seq` is unique: no reward is applied twice, whatever
// the service's own checks let through.
constexpr const char* kSchema = R"(
CREATE TABLE IF NOT EXISTS ap_meta (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  next_id INTEGER NOT NULL,
  first_live_id INTEGER NOT NULL,
  applied INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS ap_checkpoint (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  epoch INTEGER NOT NULL,
  mask_id BLOB NOT NULL,
  seq INTEGER NOT NULL,
  state BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS ap_decisions (
  id INTEGER PRIMARY KEY,
  context BLOB NOT NULL,
  reward INTEGER,
  seq INTEGER UNIQUE
);
)";

// Ids, seqs and epochs stay far below 2^63: one per decision or reward.
int64_t as_int(uint64_t v) {
  return static_cast<int64_t>(v);
}

uint64_t as_u64(int64_t v) {
  return static_cast<uint64_t>(v);
}

int64_t bits_of(double r) {
  int64_t b = 0;
  std::memcpy(&b, &r, sizeof b);
  return b;
}

double double_of(int64_t b) {
  double r = 0;
  std::memcpy(&r, &b, sizeof r);
  return r;
}

// A context is d f64 in the host's byte order (the file does not move
// between architectures; a wrong length is damage).
std::vector<double> context_of(const common::Database& db, const common::Statement& st, int col,
                               uint32_t d) {
  const std::vector<uint8_t> raw = st.column_blob(col);
  if (raw.size() != static_cast<std::size_t>(d) * sizeof(double)) {
    db.fail_damaged("a decision's context is " + std::to_string(raw.size()) + " bytes, not " +
                    std::to_string(static_cast<std::size_t>(d) * sizeof(double)));
  }
  std::vector<double> out(d);
  std::memcpy(out.data(), raw.data(), raw.size());
  return out;
}

}  // namespace

// The synchronous level is the connection's and may not change inside a
// transaction: it is raised before this one begins and lowered after it
// ends (committed or rolled back).
class ApStore::Commit {
 public:
  Commit(ApStore* store, bool force)
      : store_(store), durable_(force || store->unsynced_ + 1 >= kSyncEvery) {
    if (durable_) store_->db_->exec("PRAGMA synchronous=FULL");
    tx_ = std::make_unique<common::Transaction>(*store_->db_);
  }
  ~Commit() {
    tx_.reset();
    if (!durable_) return;
    try {
      store_->db_->exec("PRAGMA synchronous=NORMAL");
    } catch (...) {
      // Left at FULL: slower, never less durable.
    }
  }
  Commit(const Commit&) = delete;
  Commit& operator=(const Commit&) = delete;

  void commit() {
    tx_->commit();
    store_->unsynced_ = durable_ ? 0 : store_->unsynced_ + 1;
  }

 private:
  ApStore* store_;
  bool durable_;
  std::unique_ptr<common::Transaction> tx_;
};

ApStore::ApStore(const std::string& path) {
  lock_ = std::make_unique<common::StoreLock>(path);
  db_ = common::open_store(path, kVflApStore);
  common::schema_version(*db_, kSchemaVersion, kVflApStore);
  common::Transaction tx(*db_);
  db_->exec(kSchema);
  db_->exec("PRAGMA user_version=" + std::to_string(kSchemaVersion));
  tx.commit();
  // After the schema, which the layer's FULL made durable: see Commit.
  db_->exec("PRAGMA synchronous=NORMAL");
  db_->arm_health_log();
}

bool ApStore::load(ApCheckpoint* cp, ApCounters* n) {
  common::Statement meta(*db_, "SELECT next_id, first_live_id, applied FROM ap_meta");
  common::Statement ck(*db_, "SELECT epoch, mask_id, seq, state FROM ap_checkpoint");
  const bool has_meta = meta.step();
  const bool has_ck = ck.step();
  if (!has_meta && !has_ck) return false;
  if (has_meta != has_ck) db_->fail_damaged("the store has counters or a checkpoint, not both");
  n->next_id = as_u64(meta.column_int(0));
  n->first_live_id = as_u64(meta.column_int(1));
  n->applied = as_u64(meta.column_int(2));
  cp->epoch = as_u64(ck.column_int(0));
  cp->mask_id = ck.column_blob(1);
  cp->seq = as_u64(ck.column_int(2));
  cp->state = ck.column_blob(3);
  if (n->next_id < 1 || n->first_live_id > n->next_id || cp->seq > n->applied) {
    db_->fail_damaged("the store's counters contradict each other");
  }
  id_bound_ = n->next_id;
  return true;
}

std::vector<ApReplay> ApStore::replay(uint64_t after_seq, uint32_t d) const {
  common::Statement st(*db_,
                       "SELECT id, reward, context FROM ap_decisions WHERE seq > ?1 ORDER BY seq");
  st.bind_int(1, as_int(after_seq));
  std::vector<ApReplay> out;
  while (st.step()) {
    ApReplay r;
    r.id = as_u64(st.column_int(0));
    r.reward = double_of(st.column_int(1));
    r.context = context_of(*db_, st, 2, d);
    out.push_back(std::move(r));
  }
  return out;
}

void ApStore::reset(const ApCheckpoint& cp, const ApCounters& n) {
  Commit tx(this, true);
  db_->exec("DELETE FROM ap_decisions");
  common::Statement meta(*db_,
                         "INSERT OR REPLACE INTO ap_meta (one, next_id, first_live_id, applied) "
                         "VALUES (1, ?1, ?2, ?3)");
  meta.bind_int(1, as_int(n.next_id));
  meta.bind_int(2, as_int(n.first_live_id));
  meta.bind_int(3, as_int(n.applied));
  meta.run();
  common::Statement ck(*db_,
                       "INSERT OR REPLACE INTO ap_checkpoint (one, epoch, mask_id, seq, state) "
                       "VALUES (1, ?1, ?2, ?3, ?4)");
  ck.bind_int(1, as_int(cp.epoch));
  ck.bind_blob(2, cp.mask_id.data(), cp.mask_id.size());
  ck.bind_int(3, as_int(cp.seq));
  ck.bind_blob(4, cp.state.data(), cp.state.size());
  ck.run();
  tx.commit();
  id_bound_ = n.next_id;
}

void ApStore::record_decision(uint64_t id, const double* context, uint32_t d, uint64_t window,
                              uint64_t checkpoint_seq) {
  const bool reserve = id >= id_bound_;
  Commit tx(this, reserve);
  // The primary key refuses an id issued before.
  common::Statement put(*db_, "INSERT INTO ap_decisions (id, context) VALUES (?1, ?2)");
  put.bind_int(1, as_int(id));
  put.bind_blob(2, context, static_cast<std::size_t>(d) * sizeof(double));
  put.run();
  if (reserve) {
    common::Statement next(*db_, "UPDATE ap_meta SET next_id = ?1");
    next.bind_int(1, as_int(id + kIdReserve));
    next.run();
  }
  if (id > window) {
    // Rewards after the checkpoint stay until a checkpoint includes them.
    common::Statement drop(
        *db_, "DELETE FROM ap_decisions WHERE id <= ?1 AND (seq IS NULL OR seq <= ?2)");
    drop.bind_int(1, as_int(id - window));
    drop.bind_int(2, as_int(checkpoint_seq));
    drop.run();
  }
  tx.commit();
  if (reserve) id_bound_ = id + kIdReserve;
}

PendingState ApStore::find(uint64_t id, uint32_t d, std::vector<double>* context) const {
  common::Statement st(*db_, "SELECT seq, context FROM ap_decisions WHERE id = ?1");
  st.bind_int(1, as_int(id));
  if (!st.step()) return PendingState::absent;
  // seq is NULL (read as 0) while the decision awaits; applied ones count from 1.
  if (st.column_int(0) != 0) return PendingState::rewarded;
  *context = context_of(*db_, st, 1, d);
  return PendingState::awaiting;
}

bool ApStore::apply_reward(uint64_t id, double r, uint64_t seq, const ApCheckpoint* cp) {
  // Fsynced: a reward answered 200 has been learned from, and the client will
  // not send it again, so it must survive a power loss too. A decision need
  // not: losing one makes its reward fail loudly (unknown id), never silently.
  Commit tx(this, true);
  common::Statement mark(*db_,
                         "UPDATE ap_decisions SET reward = ?2, seq = ?3 WHERE id = ?1 AND seq IS "
                         "NULL");
  mark.bind_int(1, as_int(id));
  mark.bind_int(2, bits_of(r));
  mark.bind_int(3, as_int(seq));
  mark.run();
  if (db_->changes() != 1) return false;  // the transaction rolls back
  common::Statement count(*db_, "UPDATE ap_meta SET applied = ?1");
  count.bind_int(1, as_int(seq));
  count.run();
  if (cp != nullptr) {
    common::Statement ck(*db_, "UPDATE ap_checkpoint SET seq = ?1, state = ?2");
    ck.bind_int(1, as_int(cp->seq));
    ck.bind_blob(2, cp->state.data(), cp->state.size());
    ck.run();
  }
  tx.commit();
  return true;
}

std::vector<ApLedgerRow> ApStore::ledger() const {
  common::Statement st(
      *db_, "SELECT id, seq, reward FROM ap_decisions WHERE seq IS NOT NULL ORDER BY id");
  std::vector<ApLedgerRow> out;
  while (st.step()) {
    out.push_back(
        {as_u64(st.column_int(0)), as_u64(st.column_int(1)), double_of(st.column_int(2))});
  }
  return out;
}

uint64_t store_checkpoint_every(std::size_t saved_bytes, uint32_t d) {
  // A reward row: the context, the id, the reward, the seq and SQLite's own.
  const std::size_t row = static_cast<std::size_t>(d) * sizeof(double) + 40;
  return std::clamp<uint64_t>(saved_bytes / row, 16, 65536);
}

void model_state_key(const uint8_t box_sk[32], uint8_t out[32]) {
  static constexpr char kLabel[] = "p2b vfl active party model state key v1";
  crypto_generichash(out, 32, reinterpret_cast<const uint8_t*>(kLabel), sizeof kLabel - 1, box_sk,
                     32);
}

}  // namespace p2b::vfl
