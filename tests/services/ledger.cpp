#include "ledger.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>

#include <memory>
#include <set>
#include <stdexcept>

namespace p2b_services {

namespace {

using Db = std::unique_ptr<sqlite3, decltype(&sqlite3_close)>;
using Stmt = std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)>;

Stmt prepare(sqlite3* db, const char* sql) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &raw, nullptr) != SQLITE_OK) {
    throw std::runtime_error(std::string("ledger: ") + sqlite3_errmsg(db));
  }
  return Stmt(raw, sqlite3_finalize);
}

bool has_table(sqlite3* db, const char* name) {
  const Stmt s = prepare(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
  sqlite3_bind_text(s.get(), 1, name, -1, SQLITE_STATIC);
  return sqlite3_step(s.get()) == SQLITE_ROW;
}

p2b::server::InnerDigest digest_column(sqlite3_stmt* s, int col) {
  p2b::server::InnerDigest d{};
  if (sqlite3_column_bytes(s, col) == static_cast<int>(d.size())) {
    const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(s, col));
    std::copy(p, p + d.size(), d.begin());
  }
  return d;
}

// Quarantined records keep their inner ciphertext; the ledger's ids are
// digests of it. The table's name and column are the analyzer's
// (server/analyzer/sqlite_store.cpp).
std::set<p2b::server::InnerDigest> quarantined_ids(sqlite3* db) {
  std::set<p2b::server::InnerDigest> out;
  if (!has_table(db, "quarantine")) return out;
  const Stmt s = prepare(db, "SELECT inner FROM quarantine");
  while (sqlite3_step(s.get()) == SQLITE_ROW) {
    p2b::server::InnerCiphertext inner{};
    if (sqlite3_column_bytes(s.get(), 0) != static_cast<int>(inner.size())) continue;
    const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(s.get(), 0));
    std::copy(p, p + inner.size(), inner.begin());
    out.insert(p2b::server::inner_digest(inner));
  }
  return out;
}

}  // namespace

std::string LedgerTally::summary() const {
  return "offered " + std::to_string(offered) + ", acknowledged " + std::to_string(acknowledged) +
         ", applied " + std::to_string(applied) + ", quarantined " + std::to_string(quarantined) +
         ", lost " + std::to_string(lost) + ", duplicated " + std::to_string(duplicated) +
         ", uncounted " + std::to_string(uncounted);
}

void Ledger::offer(const Envelope& e, uint32_t action) {
  entries_[p2b::server::inner_digest(inner_of(e))].action = action;
}

void Ledger::acknowledge(const Envelope& e) {
  const auto it = entries_.find(p2b::server::inner_digest(inner_of(e)));
  if (it == entries_.end()) throw std::logic_error("ledger: acknowledged but never offered");
  it->second.acknowledged = true;
}

int Ledger::post(int port, const std::vector<Envelope>& all, std::size_t from, std::size_t n,
                 uint32_t (*action_of)(std::size_t)) {
  const std::size_t end = std::min(all.size(), from + n);
  for (std::size_t i = from; i < end; ++i) offer(all[i], action_of(i));
  httplib::Client cli("127.0.0.1", port);
  cli.set_connection_timeout(5);
  cli.set_read_timeout(30);
  const auto res =
      cli.Post("/v1/reports", body_of(all, from, end - from), "application/octet-stream");
  if (!res) return -1;
  if (res->status == 202) {
    for (std::size_t i = from; i < end; ++i) acknowledge(all[i]);
  }
  return res->status;
}

std::size_t Ledger::post_range(int port, const std::vector<Envelope>& all, std::size_t from,
                               std::size_t n, std::size_t per_request,
                               uint32_t (*action_of)(std::size_t)) {
  std::size_t acknowledged = 0;
  const std::size_t end = std::min(all.size(), from + n);
  for (std::size_t i = from; i < end; i += per_request) {
    const std::size_t k = std::min(per_request, end - i);
    if (post(port, all, i, k, action_of) == 202) acknowledged += k;
  }
  return acknowledged;
}

void post_expecting_202(Ledger& ledger, int port, const std::vector<Envelope>& all,
                        std::size_t per_request, uint32_t (*action_of)(std::size_t)) {
  EXPECT_EQ(ledger.post_all(port, all, per_request, action_of), all.size())
      << "envelopes in requests that got no 202";
}

LedgerTally expect_nothing_lost(const Ledger& ledger, const std::filesystem::path& store,
                                std::size_t applied, std::size_t quarantined) {
  const LedgerTally t = ledger.reconcile(store);
  EXPECT_EQ(t.lost, 0U) << t.summary();
  EXPECT_EQ(t.duplicated, 0U) << t.summary();
  EXPECT_EQ(t.uncounted, 0U) << t.summary();
  EXPECT_EQ(t.applied, applied == kAllAcknowledged ? t.acknowledged : applied) << t.summary();
  EXPECT_EQ(t.quarantined, quarantined) << t.summary();
  std::printf("[ figure ] ledger: %s\n", t.summary().c_str());
  return t;
}

LedgerTally Ledger::reconcile(const std::filesystem::path& analyzer_db) const {
  sqlite3* raw = nullptr;
  const std::string uri = "file:" + analyzer_db.string() + "?mode=ro";
  const int rc =
      sqlite3_open_v2(uri.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
  const Db db(raw, sqlite3_close);
  if (rc != SQLITE_OK) throw std::runtime_error("ledger: cannot open " + analyzer_db.string());

  std::set<p2b::server::InnerDigest> seen;
  {
    const Stmt s = prepare(db.get(), "SELECT digest FROM seen_inner");
    while (sqlite3_step(s.get()) == SQLITE_ROW) seen.insert(digest_column(s.get(), 0));
  }
  const std::set<p2b::server::InnerDigest> quarantine = quarantined_ids(db.get());
  std::map<uint32_t, uint64_t> arm_count;
  {
    const Stmt s = prepare(db.get(), "SELECT arm, count FROM private_arms");
    while (sqlite3_step(s.get()) == SQLITE_ROW) {
      arm_count[static_cast<uint32_t>(sqlite3_column_int64(s.get(), 0))] =
          static_cast<uint64_t>(sqlite3_column_int64(s.get(), 1));
    }
  }

  LedgerTally t;
  std::map<uint32_t, uint64_t> expected;
  for (const auto& [id, entry] : entries_) {
    ++t.offered;
    if (entry.acknowledged) ++t.acknowledged;
    const bool held = quarantine.count(id) > 0;
    const bool applied = !held && seen.count(id) > 0;
    if (held) ++t.quarantined;
    if (applied) {
      ++t.applied;
      ++expected[entry.action];
    }
    if (entry.acknowledged && !held && !applied) ++t.lost;
  }
  for (const auto& [arm, count] : arm_count) {
    const uint64_t want = expected.count(arm) ? expected.at(arm) : 0;
    if (count > want) t.duplicated += count - want;
  }
  for (const auto& [arm, want] : expected) {
    const uint64_t have = arm_count.count(arm) ? arm_count.at(arm) : 0;
    if (want > have) t.uncounted += want - have;
  }
  return t;
}

}  // namespace p2b_services
