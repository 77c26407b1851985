// A service's store at start: the right kind, no damage, a known schema, one
// process; while running: damage fails the store; and the online backup.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/prometheus_text.hpp"
#include "common/sqlite_db.hpp"
#include "common/store_backup.hpp"
#include "common/store_open.hpp"
#include "temp_dir.hpp"

namespace {

using p2b::common::Database;
using p2b::common::kAnalyzerStore;
using p2b::common::kShufflerSpool;
using p2b::common::open_store;
using p2b::common::SqliteError;
using p2b::common::Statement;
using p2b::common::StoreLock;
using p2b::common::StoreRefused;
using p2b::common::Transaction;
using p2b_test::TempDir;

int64_t scalar(const Database& db, const std::string& sql) {
  Statement q(db, sql);
  EXPECT_TRUE(q.step());
  return q.column_int(0);
}

// A store of `kind` with `rows` rows of 200 bytes in table `table`.
void make_store(const std::string& path, const p2b::common::StoreKind& kind, const char* table,
                int rows) {
  auto db = open_store(path, kind);
  db->exec(std::string("CREATE TABLE ") + table + " (id INTEGER PRIMARY KEY, v BLOB)");
  Transaction tx(*db);
  Statement put(*db, std::string("INSERT INTO ") + table + " (v) VALUES (randomblob(200))");
  for (int i = 0; i < rows; ++i) put.run();
  tx.commit();
}

void overwrite(const std::string& path, long offset, const std::string& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "r+b");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fseek(f, offset, SEEK_SET), 0);
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  std::fclose(f);
}

TEST(CommonStoreOpen, ANewStoreIsStampedAndTheOtherKindIsRefused) {
  TempDir dir;
  const std::string spool = dir.file("spool.db");
  make_store(spool, kShufflerSpool, "records", 1);
  {
    auto db = open_store(spool, kShufflerSpool);
    EXPECT_EQ(scalar(*db, "PRAGMA application_id"), kShufflerSpool.application_id);
    EXPECT_EQ(scalar(*db, "PRAGMA auto_vacuum"), 2) << "2 is INCREMENTAL";
  }
  try {
    open_store(spool, kAnalyzerStore);
    FAIL() << "the analyzer adopted the shuffler's spool";
  } catch (const StoreRefused& e) {
    EXPECT_NE(std::string(e.what()).find(spool), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not a analyzer store"), std::string::npos) << e.what();
  }
}

TEST(CommonStoreOpen, AnyOtherSqliteFileIsRefusedButALegacyStoreIsAdopted) {
  TempDir dir;
  const std::string other = dir.file("other.db");
  { Database(other).exec("CREATE TABLE cookies (k TEXT)"); }
  EXPECT_THROW(open_store(other, kShufflerSpool), StoreRefused);
  EXPECT_THROW(open_store(other, kAnalyzerStore), StoreRefused);
  // A spool from before application_id: its own table name vouches for it.
  const std::string legacy = dir.file("legacy.db");
  { Database(legacy).exec("CREATE TABLE records (id INTEGER PRIMARY KEY)"); }
  EXPECT_THROW(open_store(legacy, kAnalyzerStore), StoreRefused);
  {
    auto db = open_store(legacy, kShufflerSpool);
    EXPECT_EQ(scalar(*db, "PRAGMA application_id"), kShufflerSpool.application_id);
  }
  EXPECT_THROW(open_store(legacy, kAnalyzerStore), StoreRefused);
}

TEST(CommonStoreOpen, ANewerSchemaIsRefused) {
  TempDir dir;
  const std::string path = dir.file("spool.db");
  make_store(path, kShufflerSpool, "records", 1);
  auto db = open_store(path, kShufflerSpool);
  EXPECT_EQ(p2b::common::schema_version(*db, 3, kShufflerSpool), 0);
  db->exec("PRAGMA user_version=4");
  try {
    p2b::common::schema_version(*db, 3, kShufflerSpool);
    FAIL() << "a newer schema was used";
  } catch (const StoreRefused& e) {
    EXPECT_NE(std::string(e.what()).find("schema 4, newer than this build's 3"), std::string::npos)
        << e.what();
  }
}

TEST(CommonStoreOpen, ADamagedPageIsRefusedWithWhatQuickCheckFound) {
  TempDir dir;
  const std::string path = dir.file("spool.db");
  make_store(path, kShufflerSpool, "records", 2000);  // about 100 pages
  int64_t page_size = 0;
  {
    auto db = open_store(path, kShufflerSpool);
    page_size = scalar(*db, "PRAGMA page_size");
  }
  // The middle of the table's b-tree: an interior or leaf page's header.
  overwrite(path, 50 * page_size, std::string(64, '\xA5'));
  try {
    open_store(path, kShufflerSpool);
    FAIL() << "a damaged store was opened";
  } catch (const StoreRefused& e) {
    EXPECT_NE(std::string(e.what()).find("is damaged: quick_check found"), std::string::npos)
        << e.what();
  }
  // A torn header (not a database any more) is damage too.
  overwrite(path, 0, std::string(100, '\0'));
  EXPECT_THROW(open_store(path, kShufflerSpool), StoreRefused);
}

TEST(CommonStoreOpen, OneProcessPerStore) {
  TempDir dir;
  const std::string path = dir.file("spool.db");
  {
    StoreLock first(path);
    try {
      StoreLock second(path);
      FAIL() << "two holders of one store";
    } catch (const SqliteError& e) {
      EXPECT_NE(std::string(e.what()).find("is in use by another process"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_NO_THROW(StoreLock again(path)) << "the lock goes with its holder";
}

TEST(CommonStoreOpen, DamageMetWhileRunningFailsTheStoreOnce) {
  TempDir dir;
  const std::string path = dir.file("spool.db");
  auto db = open_store(path, kShufflerSpool);
  db->exec("CREATE TABLE t (v BLOB)");
  EXPECT_THROW(db->exec("NOT SQL"), SqliteError);
  EXPECT_FALSE(db->health().failed()) << "a plain error is counted, not damage";
  EXPECT_EQ(db->health().errors(), 1U);
  EXPECT_TRUE(db->health().check().ok);
  EXPECT_THROW(db->fail_damaged("a stored blob has the wrong length"), SqliteError);
  EXPECT_TRUE(db->health().failed());
  EXPECT_EQ(db->health().errors(), 2U);
  const p2b::common::CheckResult check = db->health().check();
  EXPECT_FALSE(check.ok);
  EXPECT_NE(check.detail.find("wrong length"), std::string::npos) << check.detail;
  // No write is taken from now on: nothing it acknowledged would be sure.
  EXPECT_THROW(Transaction tx(*db), SqliteError);
  p2b::common::PrometheusText text;
  db->health().render(text, "p2b_x");
  EXPECT_NE(text.text().find("p2b_x_store_errors_total 2"), std::string::npos) << text.text();
  EXPECT_NE(text.text().find("p2b_x_store_failed 1"), std::string::npos) << text.text();
  EXPECT_TRUE(p2b::common::is_damage_code(SQLITE_CORRUPT));
  EXPECT_TRUE(p2b::common::is_damage_code(SQLITE_IOERR_READ));
  EXPECT_TRUE(p2b::common::is_damage_code(SQLITE_NOTADB));
  EXPECT_FALSE(p2b::common::is_damage_code(SQLITE_FULL)) << "a full disk heals";
  EXPECT_FALSE(p2b::common::is_damage_code(SQLITE_BUSY));
}

TEST(CommonStoreOpen, ABackupOfALiveStoreIsOneFileAtTheLatestCommit) {
  TempDir dir;
  const std::string path = dir.file("analyzer.db");
  auto db = open_store(path, kAnalyzerStore);
  db->exec("CREATE TABLE t (v INTEGER)");
  db->exec("INSERT INTO t VALUES (1), (2), (3)");  // in the WAL, not yet in the file
  const std::string copy = dir.file("backup.db");
  p2b::common::backup_store(path, copy);
  EXPECT_FALSE(std::filesystem::exists(copy + "-wal"));
  {
    Database restored(copy);
    EXPECT_EQ(scalar(restored, "SELECT SUM(v) FROM t"), 6);
    EXPECT_EQ(scalar(restored, "PRAGMA application_id"), kAnalyzerStore.application_id);
  }
  EXPECT_EQ(std::filesystem::status(copy).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  EXPECT_THROW(p2b::common::backup_store(path, copy), SqliteError) << "never overwrites";
  EXPECT_THROW(p2b::common::backup_store(dir.file("none.db"), dir.file("b2.db")), SqliteError);
  EXPECT_FALSE(std::filesystem::exists(dir.file("b2.db"))) << "a failed backup leaves nothing";
}

}  // namespace
