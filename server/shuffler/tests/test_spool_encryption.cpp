// The SQLite spool at rest (issue #29; docs/security.md, "The spool at
// rest"). A copy of the data directory taken mid-batch, while reports are
// spooled, holds no inner envelope (not even 16 bytes of one), no outer
// envelope, no replay digest as the unkeyed code computes it, and rows in an
// order that says nothing about the order reports came in. A wrong key is
// refused and changes nothing; a damaged sealed row is caught; a plaintext
// spool is sealed in place; a rekey leaves nothing under the old key.
#include <gtest/gtest.h>
#include <sodium.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/exit_codes.hpp"
#include "file_scan.hpp"
#include "plain_spool.hpp"
#include "shuffler/intake.hpp"
#include "shuffler/metrics.hpp"
#include "shuffler/sealed_rows.hpp"
#include "shuffler/spool_command.hpp"
#include "shuffler/sqlite_spool.hpp"
#include "shuffler_test_support.hpp"
#include "wire/envelope_open.hpp"

namespace {

namespace fs = std::filesystem;
namespace rows = p2b::shuffler::sealed_rows;
using p2b::shuffler::SpoolKeyRefused;
using p2b::shuffler::SpoolRecord;
using p2b::shuffler::SqliteSpool;
using shuffler_test::Envelope;
using Bytes = std::vector<uint8_t>;

constexpr std::size_t kWindow = 16;

// Every kWindow-byte window of `b` from `from` on, as strings, into `out`.
void add_windows(const uint8_t* b, std::size_t n, std::unordered_set<std::string>* out,
                 std::size_t from = 0) {
  for (std::size_t i = from; i + kWindow <= n; ++i) {
    out->emplace(reinterpret_cast<const char*>(b + i), kWindow);
  }
}

Bytes read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// How many positions of the files start a window in `needles`.
std::size_t window_hits(const std::vector<std::string>& files,
                        const std::unordered_set<std::string>& needles) {
  std::size_t hits = 0;
  for (const std::string& f : files) {
    const Bytes hay = read_file(f);
    for (std::size_t i = 0; i + kWindow <= hay.size(); ++i) {
      hits += needles.count(std::string(reinterpret_cast<const char*>(hay.data() + i), kWindow));
    }
  }
  return hits;
}

// The data directory as a thief would take it: the database and its WAL
// and shared-memory files, copied byte for byte while the spool is open.
std::string copy_store(const std::string& path, const std::string& to_dir) {
  fs::create_directories(to_dir);
  std::string copy = (fs::path(to_dir) / "spool.db").string();
  for (const std::string& suffix : {"", "-wal", "-shm"}) {
    if (fs::exists(path + suffix)) fs::copy_file(path + suffix, copy + suffix);
  }
  return copy;
}

// Spearman's rho of two rankings of 0..n-1 (no ties).
double spearman(const std::vector<std::size_t>& a, const std::vector<std::size_t>& b) {
  const auto n = static_cast<double>(a.size());
  double d2 = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - static_cast<double>(b[i]);
    d2 += d * d;
  }
  return 1 - 6 * d2 / (n * (n * n - 1));
}

// Rows read with plain SQLite, in B-tree order, each mapped back (with the
// test's key) to the arrival index of its report; also returns how many
// rows failed to open.
std::vector<std::size_t> arrival_of_records(const std::string& db_path,
                                            const std::map<Bytes, std::size_t>& arrival_by_inner) {
  const auto key = shuffler_test::spool_key();
  p2b::common::Database raw(db_path);
  p2b::common::Statement q(raw, "SELECT id, sealed FROM records_sealed");
  std::vector<std::size_t> order;
  rows::Report r;
  while (q.step()) {
    EXPECT_TRUE(rows::open_record(*key, q.column_int(0), q.column_blob(1), &r));
    order.push_back(arrival_by_inner.at(Bytes(r.inner.begin(), r.inner.end())));
  }
  return order;
}

std::vector<std::size_t> arrival_of_replay_rows(
    const std::string& db_path, const std::map<Bytes, std::size_t>& arrival_by_digest) {
  const auto key = shuffler_test::spool_key();
  p2b::common::Database raw(db_path);
  p2b::common::Statement q(raw, "SELECT epoch, tag, sealed FROM seen_sealed");
  std::vector<std::size_t> order;
  while (q.step()) {
    p2b::shuffler::EpochId epoch{};
    rows::LookupTag tag{};
    q.column_blob_exact(0, epoch.data(), epoch.size());
    q.column_blob_exact(1, tag.data(), tag.size());
    rows::Sighting s;
    EXPECT_TRUE(rows::open_seen(*key, epoch, tag, q.column_blob(2), &s));
    order.push_back(arrival_by_digest.at(Bytes(s.outer.begin(), s.outer.end())));
  }
  return order;
}

// The rank of each value of `v` (0 for the smallest).
std::vector<std::size_t> ranks(const std::vector<std::size_t>& v) {
  std::vector<std::size_t> idx(v.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&v](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<std::size_t> r(v.size());
  for (std::size_t i = 0; i < idx.size(); ++i) r[idx[i]] = i;
  return r;
}

// Under the null (row order independent of arrival) rho over n rows has a
// standard deviation of 1/sqrt(n-1): 0.058 for 300 rows. 0.3 is over five
// of them (a chance failure below one in a million), while any order that
// follows arrival, even loosely, gives rho near 1.
constexpr std::size_t kReports = 300;
constexpr double kRhoBound = 0.3;

TEST(ShufflerSpoolEncryption, ACopyTakenMidBatchHoldsNoReportNoDigestAndNoArrivalOrder) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("data/spool.db");
  fs::create_directories(fs::path(path).parent_path());
  shuffler_test::Deployment ours;
  SqliteSpool spool(path, shuffler_test::spool_key());
  p2b::shuffler::Metrics metrics;
  p2b::shuffler::ReportIntake intake({ours.shuffler}, spool, metrics, p2b::kEnvelopeBytes);

  std::unordered_set<std::string> needles;
  std::map<Bytes, std::size_t> arrival_by_inner, arrival_by_digest;
  for (std::size_t i = 0; i < kReports; ++i) {
    // One report per request: each is its own commit, in arrival order.
    const Envelope env = ours.seal(static_cast<uint32_t>(i % 7));
    ASSERT_EQ(intake.handle(shuffler_test::body_of({env})).status, 202);
    p2b::server::OuterOpened opened{};
    ASSERT_EQ(p2b::server::open_outer(env.data(), env.size(), &ours.shuffler, 1, &opened),
              p2b::server::OpenStatus::ok);
    p2b::server::InnerCiphertext inner{};
    std::copy(opened.inner, opened.inner + inner.size(), inner.begin());
    // The digests as the unkeyed code computes them (intake.cpp).
    Bytes digest(32);
    crypto_generichash(digest.data(), digest.size(), env.data(), env.size(), nullptr, 0);
    const p2b::server::InnerDigest inner_digest = p2b::server::inner_digest(inner);
    // Both layers open with the fingerprint of the public key they are
    // sealed to, the same in every report: the shuffler's is the spool's
    // epoch column, by design. Every other window of them is looked for.
    add_windows(inner.data(), inner.size(), &needles, p2b::kFingerprintBytes);
    add_windows(env.data(), env.size(), &needles, p2b::kFingerprintBytes);
    add_windows(digest.data(), digest.size(), &needles);
    add_windows(inner_digest.data(), inner_digest.size(), &needles);
    arrival_by_inner[Bytes(inner.begin(), inner.end())] = i;
    arrival_by_digest[digest] = i;
  }
  ASSERT_EQ(spool.unbatched(), kReports);

  const std::string copy = copy_store(path, dir.file("stolen"));
  ASSERT_GT(fs::file_size(copy + "-wal"), 0U) << "the copy is mid-batch, its WAL in use";
  EXPECT_EQ(window_hits(p2b_test::store_files(copy), needles), 0U);

  // Control: the same scan finds the reports in a spool written in clear.
  std::vector<SpoolRecord> plain;
  for (uint32_t i = 0; i < 20; ++i) plain.push_back(shuffler_test::record(1, i));
  shuffler_test::make_plain_spool(dir.file("plain.db"), 5, plain);
  std::unordered_set<std::string> plain_needles;
  add_windows(plain[3].inner.data(), plain[3].inner.size(), &plain_needles);
  EXPECT_GT(window_hits(p2b_test::store_files(dir.file("plain.db")), plain_needles), 0U);

  // The order of the rows in the copy, read with plain SQLite.
  const std::vector<std::size_t> records = arrival_of_records(copy, arrival_by_inner);
  const std::vector<std::size_t> replay = arrival_of_replay_rows(copy, arrival_by_digest);
  ASSERT_EQ(records.size(), kReports);
  ASSERT_EQ(replay.size(), kReports);
  std::vector<std::size_t> btree(kReports);
  for (std::size_t i = 0; i < kReports; ++i) btree[i] = i;
  const double rho_records = spearman(btree, ranks(records));
  const double rho_replay = spearman(btree, ranks(replay));
  RecordProperty("rho_records", std::to_string(rho_records));
  RecordProperty("rho_replay", std::to_string(rho_replay));
  EXPECT_LT(std::fabs(rho_records), kRhoBound) << rho_records;
  EXPECT_LT(std::fabs(rho_replay), kRhoBound) << rho_replay;
  // Control: arrival order itself is caught by the same measure.
  EXPECT_GT(spearman(btree, btree), 1 - 1e-9);
}

// No sealed table has a rowid or an AUTOINCREMENT that would count arrivals.
TEST(ShufflerSpoolEncryption, NoTableOfReportsOrDigestsHasAColumnThatOrdersArrivals) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("spool.db");
  { SqliteSpool spool(path, shuffler_test::spool_key()); }
  p2b::common::Database raw(path);
  p2b::common::Statement q(raw, "SELECT name, sql FROM sqlite_master WHERE type = 'table'");
  std::size_t sealed_tables = 0;
  while (q.step()) {
    const std::string name = q.column_text(0);
    const std::string sql = q.column_text(1);
    EXPECT_NE(name, "records") << "no plaintext table is left";
    EXPECT_NE(name, "seen");
    if (name.find("_sealed") == std::string::npos) continue;
    ++sealed_tables;
    EXPECT_NE(sql.find("WITHOUT ROWID"), std::string::npos) << sql;
    EXPECT_EQ(sql.find("AUTOINCREMENT"), std::string::npos) << sql;
    for (const char* column : {"time", "seq", "arrival", "created"}) {
      EXPECT_EQ(sql.find(column), std::string::npos) << sql;
    }
  }
  EXPECT_EQ(sealed_tables, 4U);
}

// Every row of every table, and the schema version, to show that a refused
// open wrote nothing. (Not the raw bytes: opening any store sets its
// auto_vacuum mode, common/sqlite_db.cpp, which bumps the header's change
// counter without changing a row.)
std::vector<Bytes> snapshot(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  std::vector<Bytes> all;
  std::vector<std::string> tables;
  sqlite3_stmt* q = nullptr;
  sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", -1,
                     &q, nullptr);
  while (sqlite3_step(q) == SQLITE_ROW) {
    tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(q, 0)));
  }
  sqlite3_finalize(q);
  tables.emplace_back("pragma_user_version");
  for (const std::string& t : tables) {
    all.emplace_back(t.begin(), t.end());
    sqlite3_prepare_v2(db, ("SELECT * FROM " + t).c_str(), -1, &q, nullptr);
    while (sqlite3_step(q) == SQLITE_ROW) {
      Bytes row;
      for (int c = 0; c < sqlite3_column_count(q); ++c) {
        const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(q, c));
        row.insert(row.end(), p, p + sqlite3_column_bytes(q, c));
        row.push_back(0xFF);
      }
      all.push_back(row);
    }
    sqlite3_finalize(q);
  }
  sqlite3_close(db);
  return all;
}

TEST(ShufflerSpoolEncryption, AWrongKeyOrNoKeyIsRefusedAndChangesNothing) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("spool.db");
  const SpoolRecord a = shuffler_test::record(1, 1);
  {
    SqliteSpool spool(path, shuffler_test::spool_key());
    ASSERT_EQ(spool.insert({a, shuffler_test::record(1, 2)}).accepted, 2U);
  }
  const std::vector<Bytes> before = snapshot(path);
  EXPECT_THROW(SqliteSpool(path, shuffler_test::spool_key(0x11)), SpoolKeyRefused);
  EXPECT_EQ(snapshot(path), before) << "a refused key changes no byte";

  // Without a key the spool opens for maintenance only: counts and the
  // quarantine, never a report.
  {
    SqliteSpool keyless(path, nullptr);
    EXPECT_EQ(keyless.depth(), 2U);
    EXPECT_THROW(keyless.insert({shuffler_test::record(1, 3)}), SpoolKeyRefused);
    EXPECT_THROW(keyless.oldest_unacknowledged(0), SpoolKeyRefused);
  }
  EXPECT_THROW(SqliteSpool(dir.file("new.db"), nullptr), SpoolKeyRefused);

  SqliteSpool spool(path, shuffler_test::spool_key());
  EXPECT_EQ(spool.depth(), 2U);
  EXPECT_EQ(spool.insert({a}).duplicates, 1U);
}

// A damaged replay row cannot say which envelope it held: the record it
// would have matched is refused (fail closed), never stored twice.
TEST(ShufflerSpoolEncryption, ADamagedReplayRowFailsClosed) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("spool.db");
  const SpoolRecord a = shuffler_test::record(1, 1);
  {
    SqliteSpool spool(path, shuffler_test::spool_key());
    ASSERT_EQ(spool.insert({a}).accepted, 1U);
  }
  {
    p2b::common::Database raw(path);
    raw.exec("UPDATE seen_sealed SET sealed = zeroblob(length(sealed))");
  }
  SqliteSpool spool(path, shuffler_test::spool_key());
  const auto counts = spool.insert({a});
  EXPECT_EQ(counts.accepted, 0U);
  EXPECT_EQ(counts.inner_duplicates, 1U);
  EXPECT_EQ(spool.depth(), 1U);
}

TEST(ShufflerSpoolEncryption, APlaintextSpoolIsSealedInPlaceWhenAKeyIsFirstGiven) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("spool.db");
  std::vector<SpoolRecord> records;
  for (uint32_t i = 0; i < 12; ++i) records.push_back(shuffler_test::record(2, i));
  shuffler_test::make_plain_spool(path, 5, records);
  const auto bytes = [](const SpoolRecord& r) { return Bytes(r.inner.begin(), r.inner.end()); };
  const auto digest = [](const SpoolRecord& r) { return Bytes(r.digest.begin(), r.digest.end()); };
  ASSERT_TRUE(p2b_test::store_contains(path, bytes(records[0]))) << "control: in clear";
  ASSERT_TRUE(p2b_test::store_contains(path, digest(records[0]))) << "control: in clear";
  EXPECT_THROW(SqliteSpool(path, nullptr), SpoolKeyRefused) << "no key: no upgrade";
  {
    SqliteSpool spool(path, shuffler_test::spool_key());
    EXPECT_EQ(spool.unbatched(), records.size());
    EXPECT_EQ(spool.insert({records[5]}).duplicates, 1U) << "replay protection survives";
  }
  for (const SpoolRecord& r : records) {
    EXPECT_FALSE(p2b_test::store_contains(path, bytes(r)));
    EXPECT_FALSE(p2b_test::store_contains(path, digest(r)));
    EXPECT_FALSE(
        p2b_test::store_contains(path, Bytes(r.inner_digest.begin(), r.inner_digest.end())));
  }
  EXPECT_THROW(SqliteSpool(path, shuffler_test::spool_key(0x22)), SpoolKeyRefused)
      << "the first key given is the spool's";
}

// A key file with the given bytes and mode.
std::string write_key(const std::string& path, uint8_t fill, mode_t mode = 0600) {
  fs::create_directories(fs::path(path).parent_path());
  const Bytes key(p2b::shuffler::kSpoolKeyBytes, fill);
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(key.data()), static_cast<std::streamsize>(key.size()));
  EXPECT_EQ(::chmod(path.c_str(), mode), 0);
  return path;
}

TEST(ShufflerSpoolKey, AKeyFileInsideTheDataDirectoryOrReadableByOthersIsRefused) {
  shuffler_test::TempDir dir;
  const std::string spool = dir.file("data/spool.db");
  fs::create_directories(dir.file("data"));
  const std::string inside = write_key(dir.file("data/keys/shuffler.spool.key"), 0x5A);
  EXPECT_THROW(p2b::shuffler::load_spool_key(inside, spool), SpoolKeyRefused);
  const std::string wide = write_key(dir.file("etc/wide.key"), 0x5A, 0644);
  EXPECT_THROW(p2b::shuffler::load_spool_key(wide, spool), SpoolKeyRefused);
  const std::string shorter = dir.file("etc/short.key");
  std::ofstream(shorter) << "short";
  ::chmod(shorter.c_str(), 0600);
  EXPECT_THROW(p2b::shuffler::load_spool_key(shorter, spool), SpoolKeyRefused);
  // A symlink out of the data directory is judged by where it points.
  const std::string good = write_key(dir.file("etc/shuffler.spool.key"), 0x5A);
  fs::create_symlink(dir.file("data/keys/shuffler.spool.key"), dir.file("etc/link.key"));
  EXPECT_THROW(p2b::shuffler::load_spool_key(dir.file("etc/link.key"), spool), SpoolKeyRefused);
  const p2b::shuffler::SpoolKey loaded = p2b::shuffler::load_spool_key(good, spool);
  EXPECT_EQ(loaded.check_value(), shuffler_test::spool_key(0x5A)->check_value());

  ASSERT_EQ(setenv("CREDENTIALS_DIRECTORY", dir.file("etc").c_str(), 1), 0);
  EXPECT_EQ(p2b::shuffler::spool_key_credential(), dir.file("etc/shuffler.spool.key"));
  ASSERT_EQ(unsetenv("CREDENTIALS_DIRECTORY"), 0);
  EXPECT_EQ(p2b::shuffler::spool_key_credential(), "");
}

int spool_command(std::vector<std::string> args) {
  args.insert(args.begin(), "spool");
  std::vector<const char*> argv;
  argv.reserve(args.size());
  for (const std::string& a : args) argv.push_back(a.c_str());
  return p2b::shuffler::spool_command_main(static_cast<int>(argv.size()), argv.data());
}

// Every sealed value of the spool, read with plain SQLite.
std::vector<Bytes> sealed_values(const std::string& path) {
  p2b::common::Database raw(path);
  std::vector<Bytes> all;
  for (const char* table : {"records_sealed", "batched_sealed", "seen_sealed"}) {
    p2b::common::Statement q(raw, std::string("SELECT sealed FROM ") + table);
    while (q.step()) all.push_back(q.column_blob(0));
  }
  return all;
}

TEST(ShufflerSpoolRekey, EveryRowIsResealedAndOnlyTheNewKeyOpensTheSpool) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("data/spool.db");
  fs::create_directories(dir.file("data"));
  const std::string old_key = write_key(dir.file("etc/old.key"), 0x5A);
  const std::string new_key = write_key(dir.file("etc/new.key"), 0x77);
  std::vector<SpoolRecord> batched, pending;
  for (uint32_t i = 0; i < 6; ++i) batched.push_back(shuffler_test::record(1, i));
  for (uint32_t i = 0; i < 4; ++i) pending.push_back(shuffler_test::record(2, 100 + i));
  std::optional<p2b::server::Batch> batch_before;
  {
    SqliteSpool spool(path, shuffler_test::spool_key(0x5A));
    ASSERT_EQ(spool.insert(batched).accepted, batched.size());
    const auto all = [](const std::vector<uint32_t>& crowds) {
      std::vector<std::size_t> keep(crowds.size());
      for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = i;
      return keep;
    };
    ASSERT_EQ(
        spool.close_batch(p2b::server::BatchId{}, shuffler_test::lease_of(spool), 100, all).kept,
        batched.size());
    ASSERT_EQ(spool.insert(pending).accepted, pending.size());
    batch_before = spool.oldest_unacknowledged(0);
  }
  ASSERT_TRUE(batch_before.has_value());
  const std::vector<Bytes> old_values = sealed_values(path);
  ASSERT_EQ(old_values.size(), batched.size() + 2 * pending.size() + batched.size());
  for (const Bytes& v : old_values) ASSERT_TRUE(p2b_test::store_contains(path, v)) << "control";

  // Refusals first: each changes nothing.
  const std::vector<Bytes> before = snapshot(path);
  EXPECT_EQ(
      spool_command({"rekey", "--store", path, "--spool-key", new_key, "--new-spool-key", old_key}),
      p2b::common::kExitUsage)
      << "the wrong old key";
  EXPECT_EQ(spool_command({"rekey", "--store", path, "--spool-key", old_key, "--new-spool-key",
                           write_key(dir.file("data/inside.key"), 0x33)}),
            p2b::common::kExitUsage)
      << "a new key inside the data directory";
  EXPECT_EQ(spool_command({"rekey", "--store", path, "--spool-key", old_key}),
            p2b::common::kExitUsage);
  EXPECT_EQ(
      spool_command({"rekey", "--store", path, "--spool-key", old_key, "--new-spool-key", old_key}),
      p2b::common::kExitUsage)
      << "the same key";
  EXPECT_EQ(snapshot(path), before);

  ASSERT_EQ(
      spool_command({"rekey", "--store", path, "--spool-key", old_key, "--new-spool-key", new_key}),
      p2b::common::kExitClean);
  for (const Bytes& v : old_values) EXPECT_FALSE(p2b_test::store_contains(path, v));
  EXPECT_THROW(SqliteSpool(path, shuffler_test::spool_key(0x5A)), SpoolKeyRefused);
  SqliteSpool spool(path, shuffler_test::spool_key(0x77));
  EXPECT_EQ(spool.unbatched(), pending.size());
  EXPECT_EQ(spool.unacknowledged_batches(), 1U);
  const auto batch_after = spool.oldest_unacknowledged(0);
  ASSERT_TRUE(batch_after.has_value());
  EXPECT_EQ(batch_after->id, batch_before->id);
  ASSERT_EQ(batch_after->records.size(), batch_before->records.size());
  for (std::size_t i = 0; i < batch_after->records.size(); ++i) {
    EXPECT_EQ(batch_after->records[i].inner, batch_before->records[i].inner) << "same order";
  }
  const auto again = spool.insert({batched[0], pending[1]});
  EXPECT_EQ(again.duplicates, 2U) << "replay protection survives the rekey";
  EXPECT_EQ(spool.quarantine_size(), 0U);
}

}  // namespace
