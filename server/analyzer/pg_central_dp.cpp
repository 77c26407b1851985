#include "pg_central_dp.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "common/store_open.hpp"
#include "model_store.hpp"

namespace p2b::analyzer::pg_central_dp {

const char* const kSchema = R"sql(
CREATE TABLE central_dp(id int4 PRIMARY KEY CHECK (id = 1), epsilon float8 NOT NULL,
  delta float8 NOT NULL, horizon int8 NOT NULL, seed bytea, chosen_unix int8 NOT NULL);
CREATE TABLE central_dp_ledger(version int8 PRIMARY KEY, nodes int4 NOT NULL,
  charged_unix int8 NOT NULL);
ALTER TABLE models ADD COLUMN released_reports float8;
)sql";

namespace {

struct Choice {
  double epsilon = 0, delta = 0;
  uint64_t horizon = 0;
};

std::string describe(const Choice& c) {
  if (c.epsilon <= 0) return "off";
  char buf[96];
  std::snprintf(buf, sizeof buf, "epsilon %.15g, delta %.15g, horizon %llu", c.epsilon, c.delta,
                static_cast<unsigned long long>(c.horizon));
  return buf;
}

Choice wanted(const CentralDpConfig& want) {
  return want.enabled() ? Choice{want.epsilon, want.delta, want.horizon} : Choice{};
}

bool same(const Choice& a, const Choice& b) {
  if (a.epsilon <= 0 || b.epsilon <= 0) return a.epsilon <= 0 && b.epsilon <= 0;
  return a.epsilon == b.epsilon && a.delta == b.delta && a.horizon == b.horizon;
}

std::optional<Choice> recorded(pg::Connection& conn, const char* lock) {
  const pg::Result r = conn.query(std::string("SELECT epsilon, delta, horizon FROM central_dp ") +
                                  "WHERE id = 1" + lock);
  if (r.rows() == 0) return std::nullopt;
  return Choice{r.float8(0, 0), r.float8(0, 1), static_cast<uint64_t>(r.int8(0, 2))};
}

}  // namespace

void bind(pg::Connection& conn, const CentralDpConfig& want) {
  const Choice w = wanted(want);
  // Two nodes may bind a new database at once: the first insert wins and
  // the second is compared with it.
  conn.query(
      "INSERT INTO central_dp(id, epsilon, delta, horizon, seed, chosen_unix) "
      "VALUES (1, $1, $2, $3, NULL, extract(epoch from now())::int8) ON CONFLICT (id) DO NOTHING",
      pg::Params().float8(w.epsilon).float8(w.delta).int8(static_cast<int64_t>(w.horizon)));
  const std::optional<Choice> have = recorded(conn, " FOR UPDATE");
  if (!have) throw StoreError("the central_dp row vanished");
  if (same(*have, w)) return;
  if (have->epsilon <= 0) {
    conn.query(
        "UPDATE central_dp SET epsilon = $1, delta = $2, horizon = $3, "
        "chosen_unix = extract(epoch from now())::int8 WHERE id = 1",
        pg::Params().float8(w.epsilon).float8(w.delta).int8(static_cast<int64_t>(w.horizon)));
    return;
  }
  throw common::StoreRefused("the database's models carry central DP (" + describe(*have) +
                             "), not " + describe(w) +
                             "; start every node with the same --central-epsilon, "
                             "--central-delta and --central-horizon");
}

void check(pg::Connection& conn, const CentralDpConfig& want) {
  const std::optional<Choice> have = recorded(conn, "");
  const Choice w = wanted(want);
  if (have && same(*have, w)) return;
  throw StoreError("the database's central DP is " + (have ? describe(*have) : "unset") +
                   ", this node's " + describe(w) + ": restart it with the database's settings");
}

dp::NoiseSeed seed_for_publication(pg::Connection& conn) {
  const pg::Result r = conn.query("SELECT seed FROM central_dp WHERE id = 1 FOR UPDATE");
  if (r.rows() == 0) throw StoreError("central DP was never chosen for this database");
  dp::NoiseSeed seed{};
  if (!r.is_null(0, 0)) {
    std::vector<uint8_t> stored = r.bytes(0, 0);
    if (stored.size() != seed.size()) throw StoreError("corrupt seed in central_dp");
    std::copy(stored.begin(), stored.end(), seed.begin());
    sodium_memzero(stored.data(), stored.size());
    return seed;
  }
  seed = new_noise_seed();
  conn.query("UPDATE central_dp SET seed = $1 WHERE id = 1",
             pg::Params().bytes(seed.data(), seed.size()));
  return seed;
}

void charge(pg::Connection& conn, const CentralDpConfig& config, uint64_t version,
            uint64_t now_unix) {
  if (version == 0 || version > config.horizon) {
    throw StoreError("central DP horizon exhausted: publication " + std::to_string(version) +
                     " is past the horizon of " + std::to_string(config.horizon));
  }
  const auto nodes = static_cast<int32_t>(dp::release_nodes(version).size());
  const pg::Result r = conn.query(
      "INSERT INTO central_dp_ledger(version, nodes, charged_unix) VALUES ($1, $2, $3) "
      "ON CONFLICT (version) DO NOTHING",
      pg::Params()
          .int8(static_cast<int64_t>(version))
          .int4(nodes)
          .int8(static_cast<int64_t>(now_unix)));
  if (r.affected() == 0) {
    throw StoreError("central DP publication " + std::to_string(version) + " was charged already");
  }
}

uint64_t charges(pg::Connection& conn) {
  return static_cast<uint64_t>(
      conn.query("SELECT count(*)::int8 FROM central_dp_ledger").int8(0, 0));
}

}  // namespace p2b::analyzer::pg_central_dp
