// The shared SQLite layer: the durability settings every store relies on,
// transactions that roll back unless committed, and error translation.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "common/sqlite_db.hpp"
#include "file_scan.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using p2b::common::Database;
using p2b::common::SqliteError;
using p2b::common::Statement;
using p2b::common::Transaction;

using p2b_test::TempDir;

mode_t file_mode(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

// Sets the umask for one scope: the file-mode tests must hold under any.
class ScopedUmask {
 public:
  explicit ScopedUmask(mode_t m) : old_(::umask(m)) {}
  ~ScopedUmask() { ::umask(old_); }
  ScopedUmask(const ScopedUmask&) = delete;
  ScopedUmask& operator=(const ScopedUmask&) = delete;

 private:
  mode_t old_;
};

int64_t scalar(const Database& db, const std::string& sql) {
  Statement q(db, sql);
  EXPECT_TRUE(q.step());
  return q.column_int(0);
}

TEST(CommonSqlite, OpensWithWalAndFullSync) {
  TempDir dir;
  Database db(dir.file("a.db"));
  Statement mode(db, "PRAGMA journal_mode");
  ASSERT_TRUE(mode.step());
  EXPECT_EQ(mode.column_text(0), "wal");
  EXPECT_EQ(scalar(db, "PRAGMA synchronous"), 2) << "2 is FULL";
  EXPECT_EQ(scalar(db, "PRAGMA busy_timeout"), 5000);
}

TEST(CommonSqlite, TransactionsRollBackUnlessCommitted) {
  TempDir dir;
  Database db(dir.file("a.db"));
  db.exec("CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB)");
  {
    Transaction tx(db);
    db.exec("INSERT INTO t (k) VALUES (1)");
  }
  EXPECT_EQ(scalar(db, "SELECT COUNT(*) FROM t"), 0);
  {
    Transaction tx(db);
    Statement put(db, "INSERT INTO t (k, v) VALUES (?1, ?2)");
    const uint8_t blob[3] = {1, 2, 3};
    put.bind_int(1, 7);
    put.bind_blob(2, blob, sizeof blob);
    put.run();
    EXPECT_EQ(db.changes(), 1);
    put.bind_int(1, 7);
    EXPECT_FALSE(put.run_unless_constraint()) << "a duplicate key is reported, not thrown";
    tx.commit();
  }
  Statement get(db, "SELECT v FROM t WHERE k = 7");
  ASSERT_TRUE(get.step());
  EXPECT_EQ(get.column_blob(0), (std::vector<uint8_t>{1, 2, 3}));
  uint8_t two[2];
  EXPECT_THROW(get.column_blob_exact(0, two, sizeof two), SqliteError);
}

TEST(CommonSqlite, ErrorsCarrySqlitesMessageAndTranslate) {
  TempDir dir;
  EXPECT_THROW(Database(dir.file("no/such/dir/a.db")), SqliteError);
  Database db(dir.file("a.db"));
  try {
    Statement bad(db, "SELECT nope FROM nowhere");
    FAIL() << "prepared a bad statement";
  } catch (const SqliteError& e) {
    EXPECT_NE(std::string(e.what()).find("no such table"), std::string::npos) << e.what();
  }
  struct DomainError : std::runtime_error {
    using std::runtime_error::runtime_error;
  };
  try {
    p2b::common::translate_errors<DomainError>("store: ", [&] { db.exec("NOT SQL"); });
    FAIL() << "no error";
  } catch (const DomainError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("store: NOT SQL: ", 0), 0u) << e.what();
  }
  EXPECT_EQ(p2b::common::translate_errors<DomainError>("x", [] { return 5; }), 5);
}

TEST(CommonSqlite, ANonDatabaseFileIsRefused) {
  TempDir dir;
  const std::string path = dir.file("junk.db");
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  for (int i = 0; i < 4096; ++i) std::fputc('x', f);
  std::fclose(f);
  EXPECT_THROW(Database{path}, SqliteError);
}

TEST(CommonSqlite, StoreFilesAreOwnerOnlyUnderAnyUmask) {
  TempDir dir;
  const ScopedUmask open_umask(0);
  const std::string path = dir.file("a.db");
  Database db(path);
  db.exec("CREATE TABLE t (v BLOB)");
  db.exec("INSERT INTO t VALUES (x'00')");
  for (const std::string& f : p2b_test::store_files(path)) {
    ASSERT_TRUE(fs::exists(f)) << f;
    EXPECT_EQ(file_mode(f), 0600u) << f;
  }
}

TEST(CommonSqlite, AnExistingWideStoreIsNarrowedToOwnerOnly) {
  TempDir dir;
  const std::string path = dir.file("a.db");
  { Database db(path); }
  ASSERT_EQ(::chmod(path.c_str(), 0666), 0);
  Database db(path);
  EXPECT_EQ(file_mode(path), 0600u);
}

TEST(CommonSqlite, CheckpointTruncateLeavesNoDeletedRowOnDisk) {
  TempDir dir;
  const std::string path = dir.file("a.db");
  const std::vector<uint8_t> secret = {0x5e, 0xc7, 0x3e, 0x7a, 0x11, 0xfe, 0x00, 0x42,
                                       0x99, 0x13, 0x37, 0xc0, 0xff, 0xee, 0xba, 0xbe};
  Database db(path);
  db.exec("PRAGMA secure_delete=ON; CREATE TABLE t (v BLOB)");
  {
    Statement ins(db, "INSERT INTO t VALUES (?1)");
    ins.bind_blob(1, secret.data(), secret.size());
    ins.run();
  }
  // The control: the committed row is in the WAL, so the scan can find it.
  EXPECT_TRUE(p2b_test::file_contains(path + "-wal", secret));
  db.exec("DELETE FROM t");
  // Deleting alone leaves the older page version in the WAL.
  EXPECT_TRUE(p2b_test::store_contains(path, secret));
  ASSERT_TRUE(db.checkpoint_truncate());
  EXPECT_EQ(fs::file_size(path + "-wal"), 0u);
  EXPECT_FALSE(p2b_test::store_contains(path, secret));
}

}  // namespace
