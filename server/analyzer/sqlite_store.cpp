#include "sqlite_store.hpp"

#include <sodium.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
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

}  // namespace

SqliteModelStore::SqliteModelStore(const std::string& path) {
  store_call([&] {
    db_ = std::make_unique<common::Database>(path);
    db_->exec(kSchema);
    db_->exec(quarantine_table::kSchema);
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
    const uint32_t d = stats->dim();
    Statement arms(*db_, std::string("SELECT arm, count, gram, reward FROM ") + t.arms);
    while (arms.step()) {
      const int64_t arm = arms.column_int(0);
      const int64_t count = arms.column_int(1);
      const std::vector<uint8_t> gram = arms.column_blob(2);
      const std::vector<uint8_t> reward = arms.column_blob(3);
      if (arm < 0 || arm >= stats->n_actions() || count < 0 ||
          gram.size() != static_cast<std::size_t>(d) * d * sizeof(double) ||
          reward.size() != static_cast<std::size_t>(d) * sizeof(double)) {
        throw StoreError(std::string("corrupt row in ") + t.arms);
      }
      const auto a = static_cast<uint32_t>(arm);
      std::memcpy(stats->gram(a), gram.data(), gram.size());
      std::memcpy(stats->reward_sum(a), reward.data(), reward.size());
      stats->set_count(a, static_cast<uint64_t>(count));
    }
    *model = SignedModel{};
    Statement m(*db_, std::string("SELECT version, created_unix, bundle FROM ") + t.model);
    if (m.step()) {
      if (m.column_int(0) <= 0) throw StoreError(std::string("corrupt row in ") + t.model);
      model->version = static_cast<uint64_t>(m.column_int(0));
      model->created_unix = static_cast<uint64_t>(m.column_int(1));
      model->bundle = m.column_blob(2);
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

bool SqliteModelStore::inner_seen(const server::InnerDigest& digest) {
  return store_call([&]() -> bool {
    Statement q(*db_, "SELECT 1 FROM seen_inner WHERE digest = ?");
    q.bind_blob(1, digest.data(), digest.size());
    return q.step();
  });
}

void SqliteModelStore::commit(const Commit& c) {
  store_call([&]() -> void {
    const Tables t = tables(c.kind);
    const uint32_t d = c.stats->dim();
    Transaction tx(*db_);
    // Versions advance by exactly one: anything else means another writer
    // shares this file, and its state must not be overwritten.
    Statement current(*db_, std::string("SELECT version FROM ") + t.model);
    const int64_t before = current.step() ? current.column_int(0) : 0;
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
      Statement seen(*db_, "INSERT INTO seen_inner(digest) VALUES (?)");
      for (const server::InnerDigest& digest : c.inner_digests) {
        seen.bind_blob(1, digest.data(), digest.size());
        seen.run();
      }
    }
    quarantine_table::write(*db_, c);
    for (const uint32_t arm : c.touched_arms) {
      Statement put(*db_, std::string("INSERT OR REPLACE INTO ") + t.arms +
                              "(arm, count, gram, reward) VALUES (?, ?, ?, ?)");
      put.bind_int(1, static_cast<int64_t>(arm));
      put.bind_int(2, static_cast<int64_t>(c.stats->count(arm)));
      put.bind_blob(3, c.stats->gram(arm), static_cast<std::size_t>(d) * d * sizeof(double));
      put.bind_blob(4, c.stats->reward_sum(arm), static_cast<std::size_t>(d) * sizeof(double));
      put.step();
    }
    Statement put(*db_, std::string("INSERT OR REPLACE INTO ") + t.model +
                            "(id, version, created_unix, bundle) VALUES (1, ?, ?, ?)");
    put.bind_int(1, static_cast<int64_t>(c.model->version));
    put.bind_int(2, static_cast<int64_t>(c.model->created_unix));
    put.bind_blob(3, c.model->bundle.data(), c.model->bundle.size());
    put.step();
    tx.commit();
  });
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
