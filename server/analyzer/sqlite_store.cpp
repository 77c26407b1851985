#include "sqlite_store.hpp"

#include <sqlite3.h>

#include <cstring>
#include <map>

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
  rejected INTEGER NOT NULL, version INTEGER NOT NULL);
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

// A prepared statement that finalises itself; every error becomes a
// StoreError carrying SQLite's message.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st_, nullptr) != SQLITE_OK) fail();
  }
  ~Statement() { sqlite3_finalize(st_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind(int i, int64_t v) { check(sqlite3_bind_int64(st_, i, v)); }
  void bind(int i, const std::string& v) {
    check(sqlite3_bind_text(st_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  void bind_blob(int i, const void* p, std::size_t n) {
    check(sqlite3_bind_blob64(st_, i, p, n, SQLITE_TRANSIENT));
  }
  // True while a row is available.
  bool step() {
    const int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) fail();
    return false;
  }
  int64_t int_at(int i) const { return sqlite3_column_int64(st_, i); }
  std::string text_at(int i) const {
    const auto* p = sqlite3_column_text(st_, i);
    return p == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(p));
  }
  std::vector<uint8_t> blob_at(int i) const {
    const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(st_, i));
    const int n = sqlite3_column_bytes(st_, i);
    return p == nullptr ? std::vector<uint8_t>() : std::vector<uint8_t>(p, p + n);
  }

 private:
  void check(int rc) {
    if (rc != SQLITE_OK) fail();
  }
  [[noreturn]] void fail() { throw StoreError(std::string("sqlite: ") + sqlite3_errmsg(db_)); }

  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
};

// Rolls back unless committed, so an exception anywhere inside a commit
// leaves the previous state.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) { run("BEGIN IMMEDIATE"); }
  ~Transaction() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit() {
    run("COMMIT");
    done_ = true;
  }

 private:
  void run(const char* sql) {
    if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) {
      throw StoreError(std::string("sqlite: ") + sqlite3_errmsg(db_));
    }
  }
  sqlite3* db_;
  bool done_ = false;
};

std::map<std::string, std::string> identity_fields(const StoreIdentity& id) {
  return {{"schema", "1"},
          {"dim", std::to_string(id.dim)},
          {"raw_dim", std::to_string(id.raw_dim)},
          {"n_actions", std::to_string(id.n_actions)},
          {"mode", id.mode},
          {"codebook_fp", id.codebook_fp_hex}};
}

}  // namespace

SqliteModelStore::SqliteModelStore(const std::string& path) {
  const int rc =
      sqlite3_open_v2(path.c_str(), &db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    const std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw StoreError(path + ": " + why);
  }
  try {
    sqlite3_busy_timeout(db_, 5000);
    Statement wal(db_, "PRAGMA journal_mode=WAL");
    if (!wal.step() || wal.text_at(0) != "wal") throw StoreError("cannot switch to WAL");
    exec("PRAGMA synchronous=FULL");
    exec(kSchema);
  } catch (const StoreError& e) {
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw StoreError(path + ": " + e.what());
  }
}

SqliteModelStore::~SqliteModelStore() {
  sqlite3_close_v2(db_);
}

void SqliteModelStore::exec(const char* sql) {
  char* msg = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &msg) != SQLITE_OK) {
    const std::string why = msg != nullptr ? msg : sqlite3_errmsg(db_);
    sqlite3_free(msg);
    throw StoreError("sqlite: " + why);
  }
}

void SqliteModelStore::bind(const StoreIdentity& id) {
  const std::map<std::string, std::string> want = identity_fields(id);
  Transaction tx(db_);
  std::map<std::string, std::string> have;
  Statement read(db_, "SELECT key, value FROM meta");
  while (read.step()) have[read.text_at(0)] = read.text_at(1);
  if (have.empty()) {
    for (const auto& [key, value] : want) {
      Statement put(db_, "INSERT INTO meta(key, value) VALUES (?, ?)");
      put.bind(1, key);
      put.bind(2, value);
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
}

void SqliteModelStore::load(ModelKind kind, Statistics* stats, SignedModel* model) {
  const Tables t = tables(kind);
  const uint32_t d = stats->dim();
  Statement arms(db_, std::string("SELECT arm, count, gram, reward FROM ") + t.arms);
  while (arms.step()) {
    const int64_t arm = arms.int_at(0);
    const int64_t count = arms.int_at(1);
    const std::vector<uint8_t> gram = arms.blob_at(2);
    const std::vector<uint8_t> reward = arms.blob_at(3);
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
  Statement m(db_, std::string("SELECT version, created_unix, bundle FROM ") + t.model);
  if (m.step()) {
    if (m.int_at(0) <= 0) throw StoreError(std::string("corrupt row in ") + t.model);
    model->version = static_cast<uint64_t>(m.int_at(0));
    model->created_unix = static_cast<uint64_t>(m.int_at(1));
    model->bundle = m.blob_at(2);
  }
}

bool SqliteModelStore::batch_applied(const server::BatchId& id) {
  Statement q(db_, "SELECT 1 FROM applied_batches WHERE batch_id = ?");
  q.bind_blob(1, id.data(), id.size());
  return q.step();
}

void SqliteModelStore::commit(const Commit& c) {
  const Tables t = tables(c.kind);
  const uint32_t d = c.stats->dim();
  Transaction tx(db_);
  // Versions advance by exactly one: anything else means another writer
  // shares this file, and its state must not be overwritten.
  Statement current(db_, std::string("SELECT version FROM ") + t.model);
  const int64_t before = current.step() ? current.int_at(0) : 0;
  if (static_cast<uint64_t>(before) + 1 != c.model->version) {
    throw StoreError("model version moved underneath this analyzer");
  }
  if (c.batch_id) {
    // The primary key refuses a second application of one batch id.
    Statement put(db_,
                  "INSERT INTO applied_batches(batch_id, applied_unix, records, rejected, version) "
                  "VALUES (?, ?, ?, ?, ?)");
    put.bind_blob(1, c.batch_id->data(), c.batch_id->size());
    put.bind(2, static_cast<int64_t>(c.model->created_unix));
    put.bind(3, static_cast<int64_t>(c.records_applied));
    put.bind(4, static_cast<int64_t>(c.records_rejected));
    put.bind(5, static_cast<int64_t>(c.model->version));
    put.step();
  }
  for (const uint32_t arm : c.touched_arms) {
    Statement put(db_, std::string("INSERT OR REPLACE INTO ") + t.arms +
                           "(arm, count, gram, reward) VALUES (?, ?, ?, ?)");
    put.bind(1, static_cast<int64_t>(arm));
    put.bind(2, static_cast<int64_t>(c.stats->count(arm)));
    put.bind_blob(3, c.stats->gram(arm), static_cast<std::size_t>(d) * d * sizeof(double));
    put.bind_blob(4, c.stats->reward_sum(arm), static_cast<std::size_t>(d) * sizeof(double));
    put.step();
  }
  Statement put(db_, std::string("INSERT OR REPLACE INTO ") + t.model +
                         "(id, version, created_unix, bundle) VALUES (1, ?, ?, ?)");
  put.bind(1, static_cast<int64_t>(c.model->version));
  put.bind(2, static_cast<int64_t>(c.model->created_unix));
  put.bind_blob(3, c.model->bundle.data(), c.model->bundle.size());
  put.step();
  tx.commit();
}

}  // namespace p2b::analyzer
