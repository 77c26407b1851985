#include "common/pg/migrate.hpp"

#include <algorithm>
#include <cstdint>

#include "common/pg/error.hpp"
#include "common/pg/transaction.hpp"

namespace p2b::pg {

namespace {

// Serializes the creation of p2b_schema itself: two processes running
// CREATE TABLE IF NOT EXISTS at once can otherwise both try to create it.
constexpr char kSchemaLockName[] = "p2b_schema";

void lock(Connection& conn, int64_t key) {
  conn.query("SELECT pg_advisory_xact_lock($1)", Params().int8(key));
}

int stored_version(Connection& conn, const std::string& component) {
  const Result result =
      conn.query("SELECT version FROM p2b_schema WHERE component = $1", Params().text(component));
  return result.rows() == 0 ? 0 : result.int4(0, 0);
}

std::vector<const Migration*> ordered(const std::vector<Migration>& migrations) {
  std::vector<const Migration*> out;
  out.reserve(migrations.size());
  for (const Migration& migration : migrations) out.push_back(&migration);
  std::sort(out.begin(), out.end(),
            [](const Migration* a, const Migration* b) { return a->version < b->version; });
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i]->version <= 0 || (i > 0 && out[i]->version == out[i - 1]->version)) {
      throw Error("migrate: migration versions must be positive and distinct");
    }
  }
  return out;
}

}  // namespace

int64_t migration_lock_key(const std::string& component) {
  uint64_t hash = 14695981039346656037ULL;
  for (const char c : "p2b_schema:" + component) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  }
  return static_cast<int64_t>(hash);
}

int migrate(Connection& conn, const std::string& component,
            const std::vector<Migration>& migrations) {
  const std::vector<const Migration*> steps = ordered(migrations);
  const int newest = steps.empty() ? 0 : steps.back()->version;
  {
    Transaction tx(conn);
    lock(conn, migration_lock_key(kSchemaLockName));
    conn.exec(
        "CREATE TABLE IF NOT EXISTS p2b_schema ("
        "component text PRIMARY KEY, version int NOT NULL)");
    tx.commit();
  }
  for (;;) {
    Transaction tx(conn);
    lock(conn, migration_lock_key(component));
    const int current = stored_version(conn, component);
    if (current > newest) {
      throw Error("migrate: the database's " + component + " schema is version " +
                  std::to_string(current) + ", newer than this build's " + std::to_string(newest) +
                  "; refusing to run on it");
    }
    const auto next = std::find_if(steps.begin(), steps.end(), [current](const Migration* step) {
      return step->version > current;
    });
    if (next == steps.end()) return current;  // the transaction rolls back: nothing to write
    conn.exec((*next)->sql);
    conn.query(
        "INSERT INTO p2b_schema (component, version) VALUES ($1, $2) "
        "ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version",
        Params().text(component).int4((*next)->version));
    tx.commit();
  }
}

}  // namespace p2b::pg
