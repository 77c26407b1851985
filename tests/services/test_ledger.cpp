// The ledger itself: it must be able to fail. A hand-made store that lost one
// acknowledged report and applied another twice is counted as exactly that.
#include "ledger.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "service_fixture.hpp"

namespace {

using namespace p2b_services;

// A store with the analyzer's tables that matter to the ledger.
void make_store(const fs::path& path, const std::vector<p2b::server::InnerDigest>& seen,
                const std::vector<std::pair<uint32_t, int64_t>>& arm_counts,
                const std::vector<p2b::server::InnerCiphertext>& quarantined) {
  fs::remove(path);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "CREATE TABLE seen_inner(digest BLOB PRIMARY KEY) WITHOUT ROWID;"
                         "CREATE TABLE private_arms(arm INTEGER PRIMARY KEY, count INTEGER);"
                         "CREATE TABLE quarantine(inner BLOB);",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  const auto insert_blob = [&](const char* sql, const uint8_t* p, int n) {
    sqlite3_stmt* s = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, sql, -1, &s, nullptr), SQLITE_OK);
    sqlite3_bind_blob(s, 1, p, n, SQLITE_TRANSIENT);
    ASSERT_EQ(sqlite3_step(s), SQLITE_DONE);
    sqlite3_finalize(s);
  };
  for (const auto& d : seen) {
    insert_blob("INSERT INTO seen_inner VALUES (?)", d.data(), static_cast<int>(d.size()));
  }
  for (const auto& q : quarantined) {
    insert_blob("INSERT INTO quarantine VALUES (?)", q.data(), static_cast<int>(q.size()));
  }
  for (const auto& [arm, count] : arm_counts) {
    const std::string sql = "INSERT INTO private_arms VALUES (" + std::to_string(arm) + ", " +
                            std::to_string(count) + ")";
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  }
  sqlite3_close(db);
}

p2b::server::InnerDigest id_of(const Envelope& e) {
  return p2b::server::inner_digest(inner_of(e));
}

TEST(Ledger, CountsLostDuplicatedAndQuarantinedRecords) {
  const fs::path dir = fs::path(P2B_TEST_TMP) / "ledger";
  fs::create_directories(dir);
  const std::vector<Envelope> all = envelopes(5);  // actions 0..4
  Ledger ledger;
  for (std::size_t i = 0; i < all.size(); ++i) ledger.offer(all[i], action_of_index(i));
  for (std::size_t i = 0; i < 4; ++i) ledger.acknowledge(all[i]);  // #4 never got a 202

  // #0 applied once, #1 applied twice (arm 1 counts 2), #2 quarantined,
  // #3 acknowledged and lost, #4 unacknowledged and applied (fine).
  make_store(dir / "a.db", {id_of(all[0]), id_of(all[1]), id_of(all[4])}, {{0, 1}, {1, 2}, {4, 1}},
             {inner_of(all[2])});
  const LedgerTally t = ledger.reconcile(dir / "a.db");
  EXPECT_EQ(t.offered, 5U);
  EXPECT_EQ(t.acknowledged, 4U);
  EXPECT_EQ(t.applied, 3U);
  EXPECT_EQ(t.quarantined, 1U);
  EXPECT_EQ(t.lost, 1U) << t.summary();
  EXPECT_EQ(t.duplicated, 1U) << t.summary();
  EXPECT_EQ(t.uncounted, 0U) << t.summary();

  // Everything applied once: a clean tally.
  make_store(dir / "b.db", {id_of(all[0]), id_of(all[1]), id_of(all[2]), id_of(all[3])},
             {{0, 1}, {1, 1}, {2, 1}, {3, 1}}, {});
  const LedgerTally clean = ledger.reconcile(dir / "b.db");
  EXPECT_EQ(clean.lost, 0U) << clean.summary();
  EXPECT_EQ(clean.duplicated, 0U) << clean.summary();
  EXPECT_EQ(clean.applied, 4U);
}

TEST(Ledger, AnAcknowledgementOfAnUnofferedEnvelopeIsABugInTheTest) {
  Ledger ledger;
  EXPECT_THROW(ledger.acknowledge(seal(1, 1, 1.0F)), std::logic_error);
}

TEST(Ledger, AMissingStoreIsAnError) {
  const Ledger ledger;
  EXPECT_THROW(ledger.reconcile(fs::path(P2B_TEST_TMP) / "no-such-dir" / "x.db"),
               std::runtime_error);
}

}  // namespace
