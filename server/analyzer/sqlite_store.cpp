#include "sqlite_store.hpp"

#include <sodium.h>

#include "common/json_log.hpp"
#include "common/store_open.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <utility>

#include "quarantine_table.hpp"

namespace p2b::analyzer {

namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "statistics are stored as f64le");

// Fixed table names per model, never built from input.
struct Tables {
  const char* arms;
  const char* model;
};

Tables tables(ModelKind kind) {
  if (kind == ModelKind::raw_baseline) return {"raw_arms", "raw_model"};
  return {"private_arms", "private_model"};
}

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS applied_batches(
  batch_id BLOB PRIMARY KEY, applied_unix INTEGER NOT NULL, records INTEGER NOT NULL,
  rejected INTEGER NOT NULL, version INTEGER NOT NULL, digest BLOB NOT NULL,
  partition_id INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS seen_inner(digest BLOB PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS private_arms(
  arm INTEGER PRIMARY KEY, count INTEGER NOT NULL, gram BLOB NOT NULL, reward BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS private_model(
  id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL,
  created_unix INTEGER NOT NULL, bundle BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS raw_arms(
  arm INTEGER PRIMARY KEY, count INTEGER NOT NULL, gram BLOB NOT NULL, reward BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS raw_model(
  id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL,
  created_unix INTEGER NOT NULL, bundle BLOB NOT NULL);
)sql";

// Schema versions (PRAGMA user_version): 0 is a store from before it was
// set (meta schema 2); 3 adds a MAC to every statistics row (stats_mac.hpp);
// 4 keys seen_inner by epoch (the analyzer box key fingerprint) first, so
// retiring a key deletes one key range, and records retired epochs.
// Kept apart from kSchema so that new tables stay plain CREATEs there.
constexpr int64_t kSchemaVersion = 4;
constexpr int64_t kMacSchema = 3;
constexpr const char* kMacColumns = R"sql(
ALTER TABLE private_arms ADD COLUMN mac BLOB;
ALTER TABLE private_model ADD COLUMN mac BLOB;
ALTER TABLE raw_arms ADD COLUMN mac BLOB;
ALTER TABLE raw_model ADD COLUMN mac BLOB;
)sql";
// Digests from before epochs keep the empty epoch: they no longer grow, and
// are still checked (has_legacy_seen_), so none of them can be replayed.
constexpr const char* kEpochSeen = R"sql(
CREATE TABLE seen_inner_epochs(epoch BLOB NOT NULL, digest BLOB NOT NULL,
  PRIMARY KEY (epoch, digest)) WITHOUT ROWID;
INSERT INTO seen_inner_epochs(epoch, digest) SELECT x'', digest FROM seen_inner;
DROP TABLE seen_inner;
ALTER TABLE seen_inner_epochs RENAME TO seen_inner;
)sql";
constexpr const char* kRetiredEpochs = R"sql(
CREATE TABLE IF NOT EXISTS retired_epochs(epoch BLOB PRIMARY KEY, retired_unix INTEGER NOT NULL,
  digests_dropped INTEGER NOT NULL);
)sql";

bool seen_has_epochs(const common::Database& db) {
  common::Statement q(db, "SELECT 1 FROM pragma_table_info('seen_inner') WHERE name = 'epoch'");
  return q.step();
}

constexpr ModelKind kKinds[] = {ModelKind::private_reports, ModelKind::raw_baseline};

using common::Statement;
using common::Transaction;

// Every storage failure leaves as the interface's StoreError.
template <typename F>
auto store_call(F&& f) {
  return common::translate_errors<StoreError>("sqlite: ", std::forward<F>(f));
}

std::map<std::string, std::string> identity_fields(const StoreIdentity& id) {
  // 2: batch digests and partitions, and seen_inner. 3: the quarantine and
  // batch_counts, for acks of format 2. Older stores are refused (there were
  // no deployments to migrate).
  return {{"schema", "3"},
          {"dim", std::to_string(id.dim)},
          {"raw_dim", std::to_string(id.raw_dim)},
          {"n_actions", std::to_string(id.n_actions)},
          {"mode", id.mode},
          {"codebook_fp", id.codebook_fp_hex}};
}

struct ArmRow {
  int64_t arm = 0;
  int64_t count = 0;
  std::vector<uint8_t> gram, reward, mac;
};

struct ModelRow {
  int64_t version = 0;
  int64_t created_unix = 0;
  std::vector<uint8_t> bundle, mac;
};

struct StoredRows {
  std::vector<ArmRow> arms;  // in arm order
  std::optional<ModelRow> model;
};

StoredRows read_rows(const common::Database& db, ModelKind kind) {
  const Tables t = tables(kind);
  StoredRows rows;
  Statement arms(
      db, std::string("SELECT arm, count, gram, reward, mac FROM ") + t.arms + " ORDER BY arm");
  while (arms.step()) {
    rows.arms.push_back(ArmRow{arms.column_int(0), arms.column_int(1), arms.column_blob(2),
                               arms.column_blob(3), arms.column_blob(4)});
  }
  Statement m(db, std::string("SELECT version, created_unix, bundle, mac FROM ") + t.model);
  if (m.step()) {
    rows.model = ModelRow{m.column_int(0), m.column_int(1), m.column_blob(2), m.column_blob(3)};
  }
  return rows;
}

bool same_mac(const std::vector<uint8_t>& stored, const StatsMac& want) {
  return stored.size() == want.size() &&
         sodium_memcmp(stored.data(), want.data(), want.size()) == 0;
}

// The first row that fails its MAC under `key`, named for an operator; empty
// if every row passes.
std::string mac_problem(ModelKind kind, const StoredRows& rows, const uint8_t* key) {
  const Tables t = tables(kind);
  std::vector<std::pair<int64_t, StatsMac>> macs;
  for (const ArmRow& r : rows.arms) {
    const StatsMac want = arm_mac(key, t.arms, r.arm, r.count, r.gram, r.reward);
    if (!same_mac(r.mac, want)) return "arm " + std::to_string(r.arm) + " of " + t.arms;
    macs.emplace_back(r.arm, want);
  }
  if (!rows.model) {
    if (rows.arms.empty()) return {};
    return std::string(t.arms) + " without a " + t.model + " row";
  }
  const ModelRow& m = *rows.model;
  if (!same_mac(m.mac, model_mac(key, t.arms, m.version, m.created_unix, m.bundle, macs))) {
    return std::string("the ") + t.model + " row (version " + std::to_string(m.version) +
           ", which binds the set of arm rows)";
  }
  return {};
}

std::vector<std::pair<int64_t, StatsMac>> stored_arm_macs(const common::Database& db,
                                                          ModelKind kind) {
  std::vector<std::pair<int64_t, StatsMac>> macs;
  Statement q(db, std::string("SELECT arm, mac FROM ") + tables(kind).arms + " ORDER BY arm");
  while (q.step()) {
    StatsMac mac{};
    q.column_blob_exact(1, mac.data(), mac.size());
    macs.emplace_back(q.column_int(0), mac);
  }
  return macs;
}

// Rewrites every MAC of `kind` under `key`, inside the caller's transaction.
void write_macs(common::Database& db, ModelKind kind, const uint8_t* key) {
  const Tables t = tables(kind);
  const StoredRows rows = read_rows(db, kind);
  std::vector<std::pair<int64_t, StatsMac>> macs;
  Statement put(db, std::string("UPDATE ") + t.arms + " SET mac = ? WHERE arm = ?");
  for (const ArmRow& r : rows.arms) {
    const StatsMac mac = arm_mac(key, t.arms, r.arm, r.count, r.gram, r.reward);
    put.bind_blob(1, mac.data(), mac.size());
    put.bind_int(2, r.arm);
    put.run();
    macs.emplace_back(r.arm, mac);
  }
  if (!rows.model) return;
  const ModelRow& m = *rows.model;
  const StatsMac mac = model_mac(key, t.arms, m.version, m.created_unix, m.bundle, macs);
  Statement model(db, std::string("UPDATE ") + t.model + " SET mac = ? WHERE id = 1");
  model.bind_blob(1, mac.data(), mac.size());
  model.run();
}

// After a signing-key rotation the rows verify under an older key still in
// --keys: they are re-MACed under the newest, all in one transaction. Rows
// that verify under no key are left for load() to refuse.
void adopt_rotated_key(common::Database& db, ModelKind kind, const StatsMacKeys& keys) {
  const StoredRows rows = read_rows(db, kind);
  if (mac_problem(kind, rows, keys.key(0)).empty()) return;
  for (std::size_t i = 1; i < keys.size(); ++i) {
    if (!mac_problem(kind, rows, keys.key(i)).empty()) continue;
    Transaction tx(db);
    write_macs(db, kind, keys.key(0));
    tx.commit();
    common::service_log().info(
        "statistics_remac", {{"table", tables(kind).arms}, {"from_key", static_cast<uint64_t>(i)}});
    return;
  }
}

// A store bound by an older p2b (meta schema 2) has no batch counts, so it
// could not answer a re-sent batch with a format-2 ack: it is refused before
// anything in it changes.
void refuse_older_meta_schema(common::Database& db, const std::string& path) {
  Statement has_meta(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'");
  if (!has_meta.step()) return;
  Statement schema(db, "SELECT value FROM meta WHERE key = 'schema'");
  if (!schema.step()) return;
  const std::string have = schema.column_text(0);
  if (have == identity_fields(StoreIdentity{}).at("schema")) return;
  throw common::StoreRefused(path + " was created by an older p2b (store schema " + have +
                             "); let the shuffler drain into it with that version, then start "
                             "this one on a new store");
}

}  // namespace

SqliteModelStore::SqliteModelStore(const std::string& path, StatsMacKeys keys)
    : keys_(std::move(keys)) {
  if (keys_.size() == 0) throw StoreError("sqlite: no statistics MAC key");
  store_call([&] {
    lock_ = std::make_unique<common::StoreLock>(path);
    db_ = common::open_store(path, common::kAnalyzerStore);
    const int64_t have = common::schema_version(*db_, kSchemaVersion, common::kAnalyzerStore);
    refuse_older_meta_schema(*db_, path);
    Transaction tx(*db_);
    db_->exec(kSchema);
    db_->exec(quarantine_table::kSchema);
    if (have < kMacSchema) {
      // Rows from before the MAC are adopted as they are, once.
      db_->exec(kMacColumns);
      for (const ModelKind kind : kKinds) write_macs(*db_, kind, keys_.key(0));
    }
    if (have < kSchemaVersion) {
      if (!seen_has_epochs(*db_)) db_->exec(kEpochSeen);
      db_->exec(kRetiredEpochs);
      db_->exec("PRAGMA user_version=" + std::to_string(kSchemaVersion));
    }
    {
      Statement legacy(*db_, "SELECT 1 FROM seen_inner WHERE epoch = x'' LIMIT 1");
      has_legacy_seen_ = legacy.step();
    }
    tx.commit();
    for (const ModelKind kind : kKinds) adopt_rotated_key(*db_, kind, keys_);
  });
}

SqliteModelStore::~SqliteModelStore() = default;

void SqliteModelStore::bind(const StoreIdentity& id) {
  store_call([&]() -> void {
    const std::map<std::string, std::string> want = identity_fields(id);
    Transaction tx(*db_);
    std::map<std::string, std::string> have;
    Statement read(*db_, "SELECT key, value FROM meta");
    while (read.step()) have[read.column_text(0)] = read.column_text(1);
    if (have.empty()) {
      for (const auto& [key, value] : want) {
        Statement put(*db_, "INSERT INTO meta(key, value) VALUES (?, ?)");
        put.bind_text(1, key);
        put.bind_text(2, value);
        put.step();
      }
    } else {
      for (const auto& [key, value] : want) {
        const auto it = have.find(key);
        const std::string stored = it == have.end() ? "(none)" : it->second;
        if (stored != value) {
          std::string why = "the store was created for ";
          why.append(key).append(" = ").append(stored).append(", not ").append(value);
          throw StoreError(why);
        }
      }
    }
    tx.commit();
  });
}

void SqliteModelStore::load(ModelKind kind, Statistics* stats, SignedModel* model) {
  store_call([&]() -> void {
    const Tables t = tables(kind);
    const StoredRows rows = read_rows(*db_, kind);
    // Nothing unverified reaches the statistics that get signed.
    const std::string problem = mac_problem(kind, rows, keys_.key(0));
    if (!problem.empty()) {
      throw common::StoreRefused(db_->path() + ": " + problem +
                                 " fails its MAC: the statistics were changed outside the "
                                 "analyzer, or written under a signing key not in --keys");
    }
    const uint32_t d = stats->dim();
    for (const ArmRow& r : rows.arms) {
      if (r.arm < 0 || r.arm >= stats->n_actions() || r.count < 0 ||
          r.gram.size() != static_cast<std::size_t>(d) * d * sizeof(double) ||
          r.reward.size() != static_cast<std::size_t>(d) * sizeof(double)) {
        throw StoreError(std::string("corrupt row in ") + t.arms);
      }
      const auto a = static_cast<uint32_t>(r.arm);
      std::memcpy(stats->gram(a), r.gram.data(), r.gram.size());
      std::memcpy(stats->reward_sum(a), r.reward.data(), r.reward.size());
      stats->set_count(a, static_cast<uint64_t>(r.count));
    }
    *model = SignedModel{};
    if (rows.model) {
      if (rows.model->version <= 0) throw StoreError(std::string("corrupt row in ") + t.model);
      model->version = static_cast<uint64_t>(rows.model->version);
      model->created_unix = static_cast<uint64_t>(rows.model->created_unix);
      model->bundle = rows.model->bundle;
    }
  });
}

std::optional<AppliedBatch> SqliteModelStore::find_batch(const server::BatchId& id) {
  return store_call([&]() -> std::optional<AppliedBatch> {
    Statement q(*db_, "SELECT digest, version FROM applied_batches WHERE batch_id = ?");
    q.bind_blob(1, id.data(), id.size());
    if (!q.step()) return std::nullopt;
    AppliedBatch b;
    q.column_blob_exact(0, b.digest.data(), b.digest.size());
    b.version = static_cast<uint64_t>(q.column_int(1));
    if (!quarantine_table::read_counts(*db_, id, &b.counts)) {
      throw StoreError("an applied batch has no counts");
    }
    return b;
  });
}

bool SqliteModelStore::inner_seen(const Epoch& epoch, const server::InnerDigest& digest) {
  return store_call([&]() -> bool {
    Statement q(*db_, "SELECT 1 FROM seen_inner WHERE epoch = ? AND digest = ?");
    q.bind_blob(1, epoch.data(), epoch.size());
    q.bind_blob(2, digest.data(), digest.size());
    if (q.step()) return true;
    if (!has_legacy_seen_) return false;
    Statement old(*db_, "SELECT 1 FROM seen_inner WHERE epoch = x'' AND digest = ?");
    old.bind_blob(1, digest.data(), digest.size());
    return old.step();
  });
}

std::set<Epoch> SqliteModelStore::retired_epochs() {
  return store_call([&] {
    std::set<Epoch> out;
    Statement q(*db_, "SELECT epoch FROM retired_epochs");
    while (q.step()) {
      Epoch e{};
      q.column_blob_exact(0, e.data(), e.size());
      out.insert(e);
    }
    return out;
  });
}

uint64_t SqliteModelStore::retire_epoch(const std::string& path, const Epoch& epoch,
                                        uint64_t now_unix) {
  return store_call([&]() -> uint64_t {
    common::StoreLock lock(path);
    if (!std::ifstream(path).good()) throw StoreError(path + ": no such store");
    const std::unique_ptr<common::Database> db = common::open_store(path, common::kAnalyzerStore);
    const int64_t have = common::schema_version(*db, kSchemaVersion, common::kAnalyzerStore);
    if (have < kSchemaVersion) {
      throw common::StoreRefused(path + " has no epochs yet (store schema " + std::to_string(have) +
                                 "): start this version of p2b-analyzer on it once");
    }
    uint64_t dropped = 0;
    {
      Transaction tx(*db);
      Statement count(*db, "SELECT COUNT(*) FROM seen_inner WHERE epoch = ?");
      count.bind_blob(1, epoch.data(), epoch.size());
      if (count.step()) dropped = static_cast<uint64_t>(count.column_int(0));
      Statement del(*db, "DELETE FROM seen_inner WHERE epoch = ?");
      del.bind_blob(1, epoch.data(), epoch.size());
      del.run();
      Statement put(*db,
                    "INSERT OR IGNORE INTO retired_epochs(epoch, retired_unix, digests_dropped) "
                    "VALUES (?, ?, ?)");
      put.bind_blob(1, epoch.data(), epoch.size());
      put.bind_int(2, static_cast<int64_t>(now_unix));
      put.bind_int(3, static_cast<int64_t>(dropped));
      put.run();
      tx.commit();
    }
    // The freed pages go back to the file system. A store made before
    // auto_vacuum=INCREMENTAL is rewritten once (VACUUM) to get it.
    int64_t mode = 0;
    {
      Statement q(*db, "PRAGMA auto_vacuum");
      if (q.step()) mode = q.column_int(0);
    }
    if (mode != 2) {
      db->exec("PRAGMA auto_vacuum=INCREMENTAL");
      db->exec("VACUUM");
    } else {
      db->incremental_vacuum(0);
    }
    db->checkpoint_truncate();
    return dropped;
  });
}

void SqliteModelStore::commit(const Commit& c) {
  store_call([&]() -> void {
    const Tables t = tables(c.kind);
    const uint32_t d = c.stats->dim();
    Transaction tx(*db_);
    // Versions advance by exactly one: anything else means another writer
    // shares this file, and its state must not be overwritten.
    int64_t before = 0;
    {
      // Finalized before COMMIT: a statement left open across it kept a
      // read snapshot that stopped every checkpoint, and the WAL grew forever.
      Statement current(*db_, std::string("SELECT version FROM ") + t.model);
      if (current.step()) before = current.column_int(0);
    }
    if (static_cast<uint64_t>(before) + 1 != c.model->version) {
      throw StoreError("model version moved underneath this analyzer");
    }
    if (c.batch_id) {
      // The primary key refuses a second application of one batch id.
      Statement put(
          *db_,
          "INSERT INTO applied_batches(batch_id, applied_unix, records, rejected, version, "
          "digest, partition_id) VALUES (?, ?, ?, ?, ?, ?, ?)");
      put.bind_blob(1, c.batch_id->data(), c.batch_id->size());
      put.bind_int(2, static_cast<int64_t>(c.model->created_unix));
      put.bind_int(3, static_cast<int64_t>(c.records_applied));
      put.bind_int(4, static_cast<int64_t>(c.records_rejected));
      put.bind_int(5, static_cast<int64_t>(c.model->version));
      put.bind_blob(6, c.batch_digest.data(), c.batch_digest.size());
      put.bind_int(7, static_cast<int64_t>(c.partition));
      put.step();
    }
    {
      // The primary key refuses a digest twice: the caller drops replays.
      if (c.inner_epochs.size() != c.inner_digests.size()) {
        throw StoreError("inner digests without their epochs");
      }
      Statement seen(*db_, "INSERT INTO seen_inner(epoch, digest) VALUES (?, ?)");
      for (std::size_t i = 0; i < c.inner_digests.size(); ++i) {
        seen.bind_blob(1, c.inner_epochs[i].data(), c.inner_epochs[i].size());
        seen.bind_blob(2, c.inner_digests[i].data(), c.inner_digests[i].size());
        seen.run();
      }
    }
    quarantine_table::write(*db_, c);
    const std::string arms_table = t.arms;
    for (const uint32_t arm : c.touched_arms) {
      const auto* gram = reinterpret_cast<const uint8_t*>(c.stats->gram(arm));
      const auto* reward = reinterpret_cast<const uint8_t*>(c.stats->reward_sum(arm));
      const std::vector<uint8_t> gram_bytes(gram, gram + static_cast<std::size_t>(d) * d * 8);
      const std::vector<uint8_t> reward_bytes(reward, reward + static_cast<std::size_t>(d) * 8);
      const auto count = static_cast<int64_t>(c.stats->count(arm));
      const StatsMac mac = arm_mac(keys_.key(0), arms_table, arm, count, gram_bytes, reward_bytes);
      Statement put(*db_, std::string("INSERT OR REPLACE INTO ") + t.arms +
                              "(arm, count, gram, reward, mac) VALUES (?, ?, ?, ?, ?)");
      put.bind_int(1, static_cast<int64_t>(arm));
      put.bind_int(2, count);
      put.bind_blob(3, gram_bytes.data(), gram_bytes.size());
      put.bind_blob(4, reward_bytes.data(), reward_bytes.size());
      put.bind_blob(5, mac.data(), mac.size());
      put.step();
    }
    const StatsMac mac = model_mac(keys_.key(0), arms_table, static_cast<int64_t>(c.model->version),
                                   static_cast<int64_t>(c.model->created_unix), c.model->bundle,
                                   stored_arm_macs(*db_, c.kind));
    Statement put(*db_, std::string("INSERT OR REPLACE INTO ") + t.model +
                            "(id, version, created_unix, bundle, mac) VALUES (1, ?, ?, ?, ?)");
    put.bind_int(1, static_cast<int64_t>(c.model->version));
    put.bind_int(2, static_cast<int64_t>(c.model->created_unix));
    put.bind_blob(3, c.model->bundle.data(), c.model->bundle.size());
    put.bind_blob(4, mac.data(), mac.size());
    put.step();
    tx.commit();
  });
  // After the transaction, so the .db file alone holds every commit (a copy
  // of only it is current) and the WAL stays empty between batches. BUSY
  // (a backup reading) leaves it for the next commit; journal_size_limit
  // bounds the file meanwhile.
  store_call([&] { db_->checkpoint_truncate(); });
}

uint64_t SqliteModelStore::quarantine_size() {
  return store_call([&] { return quarantine_table::size(*db_); });
}

bool SqliteModelStore::in_quarantine(const server::InnerDigest& digest) {
  return store_call([&] { return quarantine_table::contains(*db_, digest); });
}

std::vector<server::BatchId> SqliteModelStore::quarantined_batches() {
  return store_call([&] { return quarantine_table::batches(*db_); });
}

std::vector<QuarantinedRecord> SqliteModelStore::quarantined(const server::BatchId& id) {
  return store_call([&] { return quarantine_table::records(*db_, id); });
}

namespace {

// Created when central DP is first used, so other stores keep their schema.
constexpr const char* kCentralDpSchema = R"sql(
CREATE TABLE IF NOT EXISTS central_dp(
  id INTEGER PRIMARY KEY CHECK (id = 1), epsilon TEXT NOT NULL, delta TEXT NOT NULL,
  horizon INTEGER NOT NULL, seed BLOB NOT NULL);
)sql";

// 17 significant digits read back to the same double.
std::string exact_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

std::optional<CentralDpRecord> SqliteModelStore::central_dp() {
  return store_call([&]() -> std::optional<CentralDpRecord> {
    // Reading changes nothing: a store without central DP keeps its schema.
    Statement exists(*db_,
                     "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'central_dp'");
    if (!exists.step()) return std::nullopt;
    Statement q(*db_, "SELECT epsilon, delta, horizon, seed FROM central_dp");
    if (!q.step()) return std::nullopt;
    CentralDpRecord r;
    r.epsilon = std::strtod(q.column_text(0).c_str(), nullptr);
    r.delta = std::strtod(q.column_text(1).c_str(), nullptr);
    const int64_t horizon = q.column_int(2);
    std::vector<uint8_t> seed = q.column_blob(3);
    if (horizon <= 0 || seed.size() != r.seed.size()) throw StoreError("corrupt row in central_dp");
    r.horizon = static_cast<uint64_t>(horizon);
    std::memcpy(r.seed.data(), seed.data(), seed.size());
    sodium_memzero(seed.data(), seed.size());
    return r;
  });
}

void SqliteModelStore::record_central_dp(const CentralDpRecord& record) {
  store_call([&]() -> void {
    db_->exec(kCentralDpSchema);
    // The primary key refuses a second record.
    Statement put(
        *db_, "INSERT INTO central_dp(id, epsilon, delta, horizon, seed) VALUES (1, ?, ?, ?, ?)");
    put.bind_text(1, exact_text(record.epsilon));
    put.bind_text(2, exact_text(record.delta));
    put.bind_int(3, static_cast<int64_t>(record.horizon));
    put.bind_blob(4, record.seed.data(), record.seed.size());
    put.step();
  });
}

}  // namespace p2b::analyzer
