// The libpq layer (server/common/pg) against a real throwaway server: binary
// round trips of every type and array, NULLs, errors with their SQLSTATE,
// transactions, migrations (also two at once), redacted connection strings.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <thread>

#include "common/pg/pg.hpp"
#include "pg_cluster.hpp"

namespace p2b_services {
namespace {

using p2b::pg::Connection;
using p2b::pg::Error;
using p2b::pg::Migration;
using p2b::pg::Params;
using p2b::pg::Result;
using p2b::pg::Transaction;

class PgLayer : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    PgCluster::Options options;
    options.fsync = false;  // nothing here is about durability
    cluster_ = PgCluster::start_primary(options).release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  Connection connect() const { return Connection(cluster_->url()); }

  static PgCluster* cluster_;
};

PgCluster* PgLayer::cluster_ = nullptr;

TEST_F(PgLayer, ScalarsRoundTripInBinary) {
  Connection conn = connect();
  conn.exec(
      "CREATE TABLE scalars (i8 int8, i4 int4, b bool, f8 float8, t text, v varchar(20), "
      "by bytea)");
  const int64_t i8s[] = {0,
                         -1,
                         1,
                         std::numeric_limits<int64_t>::min(),
                         std::numeric_limits<int64_t>::max(),
                         0x0102030405060708};
  const int32_t i4s[] = {
      0,         -1, 1, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(),
      0x01020304};
  const double f8s[] = {0.0,
                        -0.5,
                        1e300,
                        std::numeric_limits<double>::infinity(),
                        std::numeric_limits<double>::denorm_min(),
                        3.141592653589793};
  const std::vector<uint8_t> blob = {0, 1, 2, 0x7f, 0x80, 0xff, 0};
  for (int i = 0; i < 6; ++i) {
    const std::string text = "t\xc3\xa9 " + std::to_string(i) + " '\"\\";
    const Result inserted = conn.query("INSERT INTO scalars VALUES ($1, $2, $3, $4, $5, $6, $7)",
                                       Params()
                                           .int8(i8s[i])
                                           .int4(i4s[i])
                                           .boolean(i % 2 == 0)
                                           .float8(f8s[i])
                                           .text(text)
                                           .text("v" + std::to_string(i))
                                           .bytes(blob.data(), static_cast<std::size_t>(i)));
    EXPECT_EQ(inserted.affected(), 1U);
  }
  const Result rows = conn.query("SELECT i8, i4, b, f8, t, v, by FROM scalars ORDER BY i4");
  ASSERT_EQ(rows.rows(), 6);
  ASSERT_EQ(rows.columns(), 7);
  for (int r = 0; r < 6; ++r) {
    // Match each row back to its insert by the int8 column.
    int i = 0;
    while (i < 6 && i8s[i] != rows.int8(r, 0)) ++i;
    ASSERT_LT(i, 6);
    EXPECT_EQ(rows.int4(r, 1), i4s[i]);
    EXPECT_EQ(rows.boolean(r, 2), i % 2 == 0);
    EXPECT_EQ(rows.float8(r, 3), f8s[i]);
    EXPECT_EQ(rows.text(r, 4), "t\xc3\xa9 " + std::to_string(i) + " '\"\\");
    EXPECT_EQ(rows.text(r, 5), "v" + std::to_string(i));
    EXPECT_EQ(rows.bytes(r, 6), std::vector<uint8_t>(blob.begin(), blob.begin() + i));
  }
  const Result nan = conn.query("SELECT $1::float8", Params().float8(std::nan("")));
  EXPECT_TRUE(std::isnan(nan.float8(0, 0)));
}

TEST_F(PgLayer, ArraysInsertAGroupInOneStatement) {
  Connection conn = connect();
  conn.exec("CREATE TABLE grouped (id int8, arm int4, blob bytea, label text)");
  std::vector<std::vector<uint8_t>> blobs;
  std::vector<std::pair<const uint8_t*, std::size_t>> views;
  std::vector<int64_t> ids;
  std::vector<int32_t> arms;
  std::vector<std::string> labels;
  for (int i = 0; i < 500; ++i) {
    blobs.emplace_back(static_cast<std::size_t>(i % 40), static_cast<uint8_t>(i));
    ids.push_back(int64_t{1} << 40 | i);
    arms.push_back(-i);
    labels.push_back("label " + std::to_string(i));
  }
  views.reserve(blobs.size());
  for (const auto& blob : blobs) views.emplace_back(blob.data(), blob.size());
  const Result inserted = conn.query(
      "INSERT INTO grouped SELECT * FROM unnest($1::int8[], $2::int4[], $3::bytea[], $4::text[])",
      Params().int8_array(ids).int4_array(arms).bytea_array(views).text_array(labels));
  EXPECT_EQ(inserted.affected(), 500U);
  const Result rows = conn.query("SELECT id, arm, blob, label FROM grouped ORDER BY id");
  ASSERT_EQ(rows.rows(), 500);
  for (int i = 0; i < 500; ++i) {
    EXPECT_EQ(rows.int8(i, 0), ids[i]);
    EXPECT_EQ(rows.int4(i, 1), arms[i]);
    EXPECT_EQ(rows.bytes(i, 2), blobs[i]);
    EXPECT_EQ(rows.text(i, 3), labels[i]);
  }
  // Empty arrays are arrays too.
  const Result none = conn.query("SELECT cardinality($1::int8[]), cardinality($2::bytea[])",
                                 Params().int8_array({}).bytea_array({}));
  EXPECT_EQ(none.int4(0, 0), 0);
  EXPECT_EQ(none.int4(0, 1), 0);
}

TEST_F(PgLayer, NullsAreSeenAndNeverReadAsValues) {
  Connection conn = connect();
  const Result row =
      conn.query("SELECT $1::int8, $2::bytea, $3::text, 7::int8", Params().null().null().null());
  EXPECT_TRUE(row.is_null(0, 0));
  EXPECT_TRUE(row.is_null(0, 1));
  EXPECT_TRUE(row.is_null(0, 2));
  EXPECT_FALSE(row.is_null(0, 3));
  EXPECT_THROW(row.int8(0, 0), Error);
  EXPECT_THROW(row.bytes(0, 1), Error);
  EXPECT_THROW(row.is_null(1, 0), Error);
  EXPECT_THROW(row.is_null(0, 4), Error);
}

TEST_F(PgLayer, AWrongTypeIsRefusedNotMisread) {
  Connection conn = connect();
  const Result row = conn.query("SELECT 1::int4, 2::int8, sum(3::int8), 'x'::text");
  EXPECT_THROW(row.int8(0, 0), Error);  // an int4 column
  EXPECT_THROW(row.int4(0, 1), Error);  // an int8 column
  EXPECT_THROW(row.int8(0, 2), Error);  // sum(int8) is numeric
  EXPECT_THROW(row.bytes(0, 3), Error);
  EXPECT_EQ(row.int4(0, 0), 1);
}

TEST_F(PgLayer, AUniqueViolationCarriesItsSqlstate) {
  Connection conn = connect();
  conn.exec("CREATE TABLE once (id int8 PRIMARY KEY)");
  conn.query("INSERT INTO once VALUES ($1)", Params().int8(1));
  try {
    conn.query("INSERT INTO once VALUES ($1)", Params().int8(1));
    FAIL() << "a duplicate key was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.sqlstate(), "23505");
    EXPECT_FALSE(error.retryable());
    EXPECT_FALSE(error.connection_lost());
  }
  // The connection goes on after a server error.
  EXPECT_TRUE(conn.healthy());
  EXPECT_EQ(conn.query("SELECT count(*) FROM once").int8(0, 0), 1);
  try {
    conn.exec("SELEC 1");
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.sqlstate(), "42601");
  }
}

TEST(PgError, RetryableFollowsTheSqlstate) {
  EXPECT_TRUE(Error("x", "40001").retryable());
  EXPECT_TRUE(Error("x", "40P01").retryable());
  EXPECT_TRUE(Error("x", "08006").connection_lost());
  EXPECT_TRUE(Error("x", "57P01").retryable());
  EXPECT_TRUE(Error("x", "", true).retryable());
  EXPECT_FALSE(Error("x", "23505").retryable());
  EXPECT_FALSE(Error("x").retryable());
  int calls = 0;
  const int value = p2b::pg::with_retries(
      [&] {
        if (++calls < 3) throw Error("serialization", "40001");
        return 42;
      },
      5, std::chrono::milliseconds(1));
  EXPECT_EQ(value, 42);
  EXPECT_EQ(calls, 3);
  calls = 0;
  EXPECT_THROW(p2b::pg::with_retries(
                   [&]() -> int {
                     ++calls;
                     throw Error("dup", "23505");
                   },
                   5),
               Error);
  EXPECT_EQ(calls, 1);
}

TEST_F(PgLayer, ATransactionRollsBackUnlessCommitted) {
  Connection conn = connect();
  conn.exec("CREATE TABLE tx (id int8)");
  {
    Transaction tx(conn);
    conn.query("INSERT INTO tx VALUES ($1)", Params().int8(1));
  }
  EXPECT_EQ(conn.query("SELECT count(*) FROM tx").int8(0, 0), 0);
  {
    Transaction tx(conn, Transaction::Isolation::serializable);
    conn.query("INSERT INTO tx VALUES ($1)", Params().int8(2));
    tx.commit();
  }
  EXPECT_EQ(conn.query("SELECT count(*) FROM tx").int8(0, 0), 1);
  // A commit after a failed statement is a rollback, and says so.
  {
    Transaction tx(conn);
    conn.query("INSERT INTO tx VALUES ($1)", Params().int8(3));
    EXPECT_THROW(conn.exec("SELECT 1 / 0"), Error);
    EXPECT_THROW(tx.commit(), Error);
  }
  EXPECT_EQ(conn.query("SELECT count(*) FROM tx").int8(0, 0), 1);
}

TEST_F(PgLayer, ASerializationConflictIsRetryable) {
  Connection a = connect();
  Connection b = connect();
  a.exec("CREATE TABLE counter (n int8); INSERT INTO counter VALUES (0)");
  Transaction ta(a, Transaction::Isolation::serializable);
  Transaction tb(b, Transaction::Isolation::serializable);
  a.query("SELECT n FROM counter");
  b.query("SELECT n FROM counter");
  a.exec("UPDATE counter SET n = n + 1");
  ta.commit();
  try {
    b.exec("UPDATE counter SET n = n + 1");
    tb.commit();
    FAIL() << "both serializable updates committed";
  } catch (const Error& error) {
    EXPECT_EQ(error.sqlstate(), "40001");
    EXPECT_TRUE(error.retryable());
  }
}

TEST_F(PgLayer, AStatementIsBoundedByItsTimeout) {
  Connection conn(cluster_->url(), std::chrono::seconds(5), std::chrono::milliseconds(200));
  const auto start = std::chrono::steady_clock::now();
  try {
    conn.exec("SELECT pg_sleep(60)");
    FAIL() << "pg_sleep(60) outlived a 200 ms statement_timeout";
  } catch (const Error& error) {
    EXPECT_EQ(error.sqlstate(), "57014");
  }
  // Ended by the timeout, not the minute's sleep: a wide margin for load.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_TRUE(conn.healthy());
  EXPECT_EQ(conn.query("SELECT 5::int4").int4(0, 0), 5);
}

TEST(PgConnect, AConnectToNothingFailsAsLost) {
  // A port nobody listens on: refused at once.
  try {
    Connection conn("postgresql://p2b:s3cret@127.0.0.1:1/p2b", std::chrono::milliseconds(500));
    FAIL();
  } catch (const Error& error) {
    EXPECT_TRUE(error.connection_lost());
    EXPECT_EQ(std::string(error.what()).find("s3cret"), std::string::npos) << error.what();
  }
}

std::vector<Migration> three_steps() {
  return {{1, "CREATE TABLE m_one (id int8 PRIMARY KEY)"},
          {2, "ALTER TABLE m_one ADD COLUMN note text; CREATE TABLE m_two (id int8)"},
          {3, "INSERT INTO m_two VALUES (3)"}};
}

TEST_F(PgLayer, MigrationsApplyOnceAndInOrder) {
  Connection conn = connect();
  std::vector<Migration> steps = three_steps();
  EXPECT_EQ(p2b::pg::migrate(conn, "layer", {steps[1], steps[0]}), 2);  // any order given
  EXPECT_EQ(p2b::pg::migrate(conn, "layer", steps), 3);
  EXPECT_EQ(p2b::pg::migrate(conn, "layer", steps), 3);  // a re-run changes nothing
  EXPECT_EQ(conn.query("SELECT count(*) FROM m_two").int8(0, 0), 1);
  EXPECT_EQ(conn.query("SELECT version FROM p2b_schema WHERE component = 'layer'").int4(0, 0), 3);
  // Another component has its own version.
  EXPECT_EQ(p2b::pg::migrate(conn, "other", {{1, "CREATE TABLE o_one (id int8)"}}), 1);
  EXPECT_EQ(p2b::pg::migrate(conn, "none", {}), 0);
}

TEST_F(PgLayer, AFailedMigrationLeavesTheVersionBefore) {
  Connection conn = connect();
  const std::vector<Migration> steps = {{1, "CREATE TABLE f_one (id int8)"},
                                        {2, "CREATE TABLE f_two (id int8); SELECT 1 / 0"}};
  EXPECT_THROW(p2b::pg::migrate(conn, "failing", steps), Error);
  EXPECT_EQ(conn.query("SELECT version FROM p2b_schema WHERE component = 'failing'").int4(0, 0), 1);
  EXPECT_EQ(conn.query("SELECT to_regclass('f_two') IS NULL").boolean(0, 0), true);
  EXPECT_THROW(p2b::pg::migrate(conn, "failing", {{1, "x"}, {1, "y"}}), Error);
}

TEST_F(PgLayer, ANewerSchemaIsRefused) {
  Connection conn = connect();
  ASSERT_EQ(
      p2b::pg::migrate(conn, "newer",
                       {{1, "CREATE TABLE n_one (id int8)"}, {2, "CREATE TABLE n_two (id int8)"}}),
      2);
  try {
    p2b::pg::migrate(conn, "newer", {{1, "CREATE TABLE n_one (id int8)"}});
    FAIL() << "an old build ran on a newer schema";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("newer"), std::string::npos);
  }
  EXPECT_EQ(conn.query("SELECT version FROM p2b_schema WHERE component = 'newer'").int4(0, 0), 2);
}

TEST_F(PgLayer, ConcurrentMigratorsApplyEachStepOnce) {
  // Each step inserts a row, so a step applied twice shows as a second row;
  // the first step creates the table, so applying it twice would fail.
  const std::vector<Migration> steps = {{1, "CREATE TABLE c_steps (version int PRIMARY KEY)"},
                                        {2, "INSERT INTO c_steps VALUES (2)"},
                                        {3, "INSERT INTO c_steps VALUES (3)"},
                                        {4, "INSERT INTO c_steps VALUES (4)"}};
  for (int round = 0; round < 3; ++round) {
    const std::string component = "concurrent" + std::to_string(round);
    std::vector<Migration> renamed = steps;
    for (Migration& step : renamed) {
      const std::string table = "c_steps" + std::to_string(round);
      const std::size_t at = step.sql.find("c_steps");
      step.sql.replace(at, 7, table);
    }
    std::atomic<int> versions{0};
    std::atomic<int> failures{0};
    std::vector<std::thread> migrators;
    migrators.reserve(2);
    for (int t = 0; t < 2; ++t) {
      migrators.emplace_back([&] {
        try {
          Connection conn = connect();
          versions += p2b::pg::migrate(conn, component, renamed);
        } catch (const std::exception& error) {
          ADD_FAILURE() << error.what();
          ++failures;
        }
      });
    }
    for (std::thread& migrator : migrators) migrator.join();
    EXPECT_EQ(failures, 0);
    EXPECT_EQ(versions, 8);
    Connection conn = connect();
    EXPECT_EQ(conn.query("SELECT count(*) FROM c_steps" + std::to_string(round)).int8(0, 0), 3);
  }
}

TEST(PgConninfo, PasswordsNeverSurviveRedaction) {
  using p2b::pg::redact_conninfo;
  const std::string url = redact_conninfo(
      "postgresql://alice:hunter2@db.example:5433/p2b?sslmode=require&sslpassword=k3y");
  EXPECT_EQ(url.find("hunter2"), std::string::npos) << url;
  EXPECT_EQ(url.find("k3y"), std::string::npos) << url;
  EXPECT_NE(url.find("db.example"), std::string::npos) << url;
  EXPECT_NE(url.find("alice"), std::string::npos) << url;
  EXPECT_NE(url.find("5433"), std::string::npos) << url;
  const std::string query = redact_conninfo("postgresql://db/p2b?password=p%40ss&user=bob");
  EXPECT_EQ(query.find("p@ss"), std::string::npos) << query;
  EXPECT_EQ(query.find("p%40ss"), std::string::npos) << query;
  const std::string pairs = redact_conninfo("host=h password='two words\\' here' user=u");
  EXPECT_EQ(pairs.find("two"), std::string::npos) << pairs;
  EXPECT_EQ(pairs.find("here"), std::string::npos) << pairs;
  EXPECT_NE(pairs.find("user='u'"), std::string::npos) << pairs;
  // What libpq cannot parse could hide a password anywhere: none of it shows.
  const std::string broken = redact_conninfo("host=h password='unterminated");
  EXPECT_EQ(broken.find("unterminated"), std::string::npos) << broken;
}

}  // namespace
}  // namespace p2b_services
