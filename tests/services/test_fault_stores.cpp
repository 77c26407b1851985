// Integrity of the stores, as real processes on loopback (issue #12, faults
// 3, 4, 5 and the second half of 8): damaged, foreign or shared stores are
// refused at start (exit 4, or 1 for a store in use); damage met while
// running stops the 202s; stored statistics with flipped bytes are never
// signed; the WAL stays bounded and the .db alone is current; and a backup
// taken while running restores to the same model. Every wait is bounded.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "ledger.hpp"
#include "model_support.hpp"
#include "service_fixture.hpp"
#include "test_support.hpp"

namespace {

using namespace p2b_services;

// Runs `binary args...` to its end (at most `timeout_s`), stderr to `log`;
// returns its exit code, or -1 if it had to be killed.
int run_to_exit(const std::string& binary, const std::vector<std::string>& args,
                const fs::path& log, double timeout_s = 20) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, STDOUT_FILENO);
    const int err = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err >= 0) dup2(err, STDERR_FILENO);
    std::vector<char*> argv{const_cast<char*>(binary.c_str())};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<int>(timeout_s * 1000));
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return -1;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

// One SQL statement on a store file, as an operator (or an attacker with
// write access to the disk) would run it with sqlite3.
void sql(const fs::path& db, const std::string& statement) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(h, statement.c_str(), nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err != nullptr ? err : "") << " in " << statement;
  sqlite3_free(err);
  sqlite3_close(h);
}

int64_t sql_int(const fs::path& db, const std::string& query) {
  sqlite3* h = nullptr;
  const std::string uri = "file:" + db.string() + "?mode=ro";
  if (sqlite3_open_v2(uri.c_str(), &h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) !=
      SQLITE_OK) {
    sqlite3_close(h);
    return -1;
  }
  sqlite3_stmt* q = nullptr;
  int64_t v = -1;
  if (sqlite3_prepare_v2(h, query.c_str(), -1, &q, nullptr) == SQLITE_OK &&
      sqlite3_step(q) == SQLITE_ROW) {
    v = sqlite3_column_int64(q, 0);
  }
  sqlite3_finalize(q);
  sqlite3_close(h);
  return v;
}

void overwrite(const fs::path& p, std::uintmax_t from, std::uintmax_t to) {
  std::FILE* f = std::fopen(p.c_str(), "r+b");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fseek(f, static_cast<long>(from), SEEK_SET), 0);
  const std::string garbage(to - from, '\xA5');
  ASSERT_EQ(std::fwrite(garbage.data(), 1, garbage.size(), f), garbage.size());
  std::fclose(f);
}

TEST(ServicesFaultStores, ForeignStoresAreRefusedWithExit4) {
  Deployment d("stores-foreign");
  d.start_analyzer();
  d.start_shuffler(1, d.analyzer().url());
  Ledger ledger;
  post_expecting_202(ledger, d.shuffler().port(), envelopes(200), 50);
  ASSERT_TRUE(eventually(30, [&] { return applied_at_least(d.analyzer().port(), 200); }));
  EXPECT_EQ(d.shuffler().stop(), 0);
  EXPECT_EQ(d.analyzer().stop(), 0);

  // Each service given the other's file: refused, naming the file.
  std::vector<std::string> args = d.analyzer_args();
  args[9] = d.spool_path().string();
  ASSERT_EQ(args[8], "--store");
  EXPECT_EQ(run_to_exit(P2B_ANALYZER_BIN, args, d.dir() / "a-foreign.log"), 4);
  std::string log = read_text(d.dir() / "a-foreign.log");
  EXPECT_NE(log.find("\"store_refused\""), std::string::npos) << log;
  EXPECT_NE(log.find(d.spool_path().string() + " is not a analyzer store"), std::string::npos)
      << log;
  args = d.shuffler_args(1, d.analyzer().url());
  const auto store_at = std::find(args.begin(), args.end(), "--spool");
  ASSERT_NE(store_at, args.end());
  *(store_at + 1) = d.store_path().string();
  EXPECT_EQ(run_to_exit(P2B_SHUFFLER_BIN, args, d.dir() / "s-foreign.log"), 4);
  log = read_text(d.dir() / "s-foreign.log");
  EXPECT_NE(log.find(d.store_path().string() + " is not a shuffler spool"), std::string::npos)
      << log;

  // Any other SQLite file.
  const fs::path other = d.dir() / "other.db";
  sql(other, "CREATE TABLE cookies (k TEXT)");
  *(store_at + 1) = other.string();
  EXPECT_EQ(run_to_exit(P2B_SHUFFLER_BIN, args, d.dir() / "s-other.log"), 4);
  // A newer schema.
  sql(d.store_path(), "PRAGMA user_version = 99");
  EXPECT_EQ(run_to_exit(P2B_ANALYZER_BIN, d.analyzer_args(), d.dir() / "a-newer.log"), 4);
  log = read_text(d.dir() / "a-newer.log");
  EXPECT_NE(log.find("schema 99, newer than this build's"), std::string::npos) << log;
  sql(d.store_path(), "PRAGMA user_version = 3");

  // Nothing above changed the real stores: every acknowledged report is there once.
  const LedgerTally t = ledger.reconcile(d.store_path());
  EXPECT_EQ(t.acknowledged, 200U);
  EXPECT_EQ(t.lost, 0U) << t.summary();
  EXPECT_EQ(t.duplicated, 0U) << t.summary();
}

// The spool key (docs/operations.md, "The spool key"): a SQLite spool
// without one, with a key file inside the spool's directory, or with
// another spool's key does not start (exit 2, a configuration error), and
// the log says why without the key's bytes; the spool is left as it was.
TEST(ServicesFaultStores, TheShufflerRefusesAMissingMisplacedOrWrongSpoolKey) {
  Deployment d("stores-spool-key");
  std::vector<std::string> args = d.shuffler_args(1, "http://127.0.0.1:9");
  const auto key_at = std::find(args.begin(), args.end(), "--spool-key");
  ASSERT_NE(key_at, args.end());
  std::vector<std::string> keyless = args;
  keyless.erase(keyless.begin() + (key_at - args.begin()),
                keyless.begin() + (key_at - args.begin()) + 2);
  EXPECT_EQ(run_to_exit(P2B_SHUFFLER_BIN, keyless, d.dir() / "no-key.log"), 2);
  EXPECT_NE(read_text(d.dir() / "no-key.log").find("p2b-keygen --shuffler-spool"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(d.spool_path())) << "nothing was created";

  const fs::path inside = d.dir() / "keys" / "shuffler.spool.key";
  fs::copy_file(d.spool_key_path(), inside);
  *(key_at + 1) = inside.string();
  EXPECT_EQ(run_to_exit(P2B_SHUFFLER_BIN, args, d.dir() / "inside.log"), 2);
  EXPECT_NE(read_text(d.dir() / "inside.log").find("lies inside the spool's directory"),
            std::string::npos);

  // A spool made under the deployment's key, then started with another.
  d.start_shuffler(1, "http://127.0.0.1:9");
  Ledger ledger;
  post_expecting_202(ledger, d.shuffler().port(), envelopes(20), 10);
  EXPECT_EQ(d.shuffler().stop(), 0);
  const fs::path other = d.dir().string() + ".other-spool.key";
  fs::remove(other);
  fs::copy_file(d.spool_key_path(), other);
  {
    std::fstream f(other, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(0);
    f.put('\x42');
  }
  fs::permissions(other, fs::perms::owner_read | fs::perms::owner_write);
  *(key_at + 1) = other.string();
  EXPECT_EQ(run_to_exit(P2B_SHUFFLER_BIN, args, d.dir() / "wrong.log"), 2);
  const std::string log = read_text(d.dir() / "wrong.log");
  EXPECT_NE(log.find("\"spool_key_refused\""), std::string::npos) << log;
  EXPECT_NE(log.find("sealed under another key"), std::string::npos) << log;
  // The right key still opens every report.
  d.start_shuffler(1, "http://127.0.0.1:9");
  EXPECT_EQ(metric(d.shuffler().port(), "p2b_shuffler_spool_depth"), 20.0);
  EXPECT_EQ(d.shuffler().stop(), 0);
}

TEST(ServicesFaultStores, ASecondInstanceOnTheSameStoreIsRefused) {
  Deployment d("stores-second");
  d.start_analyzer();
  d.start_shuffler(1, d.analyzer().url());
  // Port 0 for the second ones: the store, not the port, must refuse them.
  EXPECT_EQ(run_to_exit(P2B_ANALYZER_BIN, d.analyzer_args(), d.dir() / "a2.log"), 1);
  std::string log = read_text(d.dir() / "a2.log");
  EXPECT_NE(log.find("is in use by another process"), std::string::npos) << log;
  EXPECT_EQ(
      run_to_exit(P2B_SHUFFLER_BIN, d.shuffler_args(1, d.analyzer().url()), d.dir() / "s2.log"), 1);
  log = read_text(d.dir() / "s2.log");
  EXPECT_NE(log.find("is in use by another process"), std::string::npos) << log;
  // The first ones were not disturbed.
  Ledger ledger;
  post_expecting_202(ledger, d.shuffler().port(), envelopes(100), 50);
  ASSERT_TRUE(eventually(30, [&] { return applied_at_least(d.analyzer().port(), 100); }));
  EXPECT_EQ(d.shuffler().stop(), 0);
  EXPECT_EQ(d.analyzer().stop(), 0);
  const LedgerTally t = ledger.reconcile(d.store_path());
  EXPECT_EQ(t.lost, 0U) << t.summary();
  EXPECT_EQ(t.duplicated, 0U) << t.summary();
  // A kill -9 leaves no stale lock: the kernel drops it with the process.
  d.start_analyzer();
  d.analyzer().kill_hard();
  d.start_analyzer();
  EXPECT_EQ(d.analyzer().stop(), 0);
}

// The fault 5: two flipped bytes in a stored gram were signed and
// served as a valid model.
TEST(ServicesFaultStores, FlippedBytesInStoredStatisticsAreNeverSigned) {
  Deployment d("stores-flipped");
  d.start_analyzer();
  d.start_shuffler(1, d.analyzer().url());
  Ledger ledger;
  post_expecting_202(ledger, d.shuffler().port(), envelopes(300), 50);
  ASSERT_TRUE(eventually(30, [&] { return applied_at_least(d.analyzer().port(), 300); }));
  EXPECT_EQ(d.shuffler().stop(), 0);
  EXPECT_EQ(d.analyzer().stop(), 0);
  const LedgerTally t = ledger.reconcile(d.store_path());
  EXPECT_EQ(t.lost, 0U) << t.summary();
  EXPECT_EQ(t.duplicated, 0U) << t.summary();

  sql(d.store_path(),
      "UPDATE private_arms SET gram = CAST(substr(gram, 1, 40) || x'7f7f' || substr(gram, 43) "
      "AS BLOB) WHERE arm = 3");
  EXPECT_EQ(run_to_exit(P2B_ANALYZER_BIN, d.analyzer_args(), d.dir() / "flipped.log"), 4)
      << "refused, with the exit code of a damaged store; nothing listens, nothing is served";
  const std::string log = read_text(d.dir() / "flipped.log");
  EXPECT_NE(log.find("arm 3 of private_arms fails its MAC"), std::string::npos) << log;
  EXPECT_EQ(log.find("\"listening\""), std::string::npos) << log;
}

// The fault 4: a damaged spool page was a black hole: 202s, an ok
// /healthz, no delivery, no metric.
TEST(ServicesFaultStores, DamageFoundWhileRunningStopsThe202sAndShows) {
  Deployment d("stores-damaged-spool");
  // Nobody listens at the analyzer's address: every batch stays in the spool.
  d.start_shuffler(1, "http://127.0.0.1:9", "0.2");
  Ledger ledger;
  // Well past SQLite's 2 MiB page cache, so reads go to the file.
  const std::vector<Envelope> all = envelopes(30000);
  post_expecting_202(ledger, d.shuffler().port(), all, 500);
  ASSERT_TRUE(eventually(
      30, [&] { return metric(d.shuffler().port(), "p2b_shuffler_forward_failures_total") >= 1; }));
  const std::uintmax_t size = fs::file_size(d.spool_path());
  ASSERT_GT(size, 6U << 20);
  overwrite(d.spool_path(), size / 10, size - size / 10);

  // Further reports meet the damage (their replay check reads the pages)
  // or the batcher does; from then on nothing more is acknowledged.
  const std::vector<Envelope> more = envelopes(2000);
  std::size_t acked_after = 0;
  bool refused = false;
  for (std::size_t from = 0; from < more.size() && !refused; from += 10) {
    const int status = ledger.post(d.shuffler().port(), more, from, 10);
    if (status == 202) ++acked_after;
    refused = status == 503;
  }
  ASSERT_TRUE(refused) << "a damaged spool still answered 202 to " << acked_after << " requests";
  httplib::Client cli("127.0.0.1", d.shuffler().port());
  const auto res = cli.Post("/v1/reports", body_of(more, 1990, 10), "application/octet-stream");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 503);
  EXPECT_NE(res->body.find("\"store_unavailable\""), std::string::npos) << res->body;
  EXPECT_EQ(metric(d.shuffler().port(), "p2b_shuffler_store_failed"), 1);
  EXPECT_GE(metric(d.shuffler().port(), "p2b_shuffler_store_errors_total"), 1);
  std::this_thread::sleep_for(std::chrono::seconds(1));  // the batcher keeps trying
  EXPECT_EQ(count_of(read_text(d.dir() / "shuffler.log"), "\"store_failed\""), 1U)
      << "one error line for the change of state, not one per try";
  d.shuffler().stop();

  // The next start finds the damage and refuses.
  EXPECT_EQ(run_to_exit(P2B_SHUFFLER_BIN, d.shuffler_args(1, "http://127.0.0.1:9"),
                        d.dir() / "restart.log"),
            4);
  const std::string log = read_text(d.dir() / "restart.log");
  EXPECT_NE(log.find(d.spool_path().string() + " is damaged"), std::string::npos) << log;
  std::printf(
      "[ figure ] damaged spool: %zu requests acknowledged after the damage before the "
      "first 503\n",
      acked_after);
}

// The fault 3: the WAL grew 37.5 KB a batch and the .db held
// nothing written since start.
TEST(ServicesFaultStores, TheAnalyzersWalStaysBoundedAndItsDbAloneIsCurrent) {
  Deployment d("stores-wal");
  d.start_analyzer();
  // A batch per 30-envelope request, whatever the pace: a timer would form
  // fewer, larger batches when deliveries are slow.
  d.start_shuffler(1, d.analyzer().url(), "3600", {"--batch-size", "30"});
  Ledger ledger;
  const std::vector<Envelope> all = envelopes(6000);
  std::uintmax_t largest_wal = 0;
  double batches = 0;
  for (std::size_t from = 0; from < all.size(); from += 30) {
    ASSERT_EQ(ledger.post(d.shuffler().port(), all, from, 30), 202);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::error_code ec;
    const std::uintmax_t wal = fs::file_size(d.store_path().string() + "-wal", ec);
    if (!ec) largest_wal = std::max(largest_wal, wal);
  }
  ASSERT_TRUE(eventually(60, [&] { return applied_at_least(d.analyzer().port(), all.size()); }));
  batches = metric(d.analyzer().port(), "p2b_analyzer_batches_applied_total");
  EXPECT_GE(batches, 20) << "enough batches to see growth";
  // journal_size_limit is 4 MiB; a truncating checkpoint follows each commit.
  EXPECT_LE(largest_wal, 4U << 20);
  // A copy of only the .db, taken while the analyzer runs, is the latest.
  const double version = metric(d.analyzer().port(), "p2b_analyzer_model_version");
  const fs::path copy = d.dir() / "copy.db";
  fs::copy_file(d.store_path(), copy);
  EXPECT_EQ(static_cast<double>(sql_int(copy, "SELECT version FROM private_model")), version);
  std::printf("[ figure ] %.0f batches, model version %.0f: largest analyzer WAL seen %ju bytes\n",
              batches, version, largest_wal);
  EXPECT_EQ(d.shuffler().stop(), 0);
  EXPECT_EQ(d.analyzer().stop(), 0);
  const LedgerTally t = ledger.reconcile(d.store_path());
  EXPECT_EQ(t.acknowledged, all.size());
  EXPECT_EQ(t.lost, 0U) << t.summary();
  EXPECT_EQ(t.duplicated, 0U) << t.summary();
}

TEST(ServicesFaultStores, ABackupTakenWhileRunningRestoresToTheSameModel) {
  Deployment a("stores-backup-a");
  a.start_analyzer();
  a.start_shuffler(1, a.analyzer().url(), "0.2");
  Ledger ledger_a;
  const std::vector<Envelope> all = envelopes(2000);
  const std::vector<Envelope> first(all.begin(), all.begin() + 1000);
  const std::vector<Envelope> second(all.begin() + 1000, all.end());
  post_expecting_202(ledger_a, a.shuffler().port(), first, 50);
  ASSERT_TRUE(eventually(30, [&] { return applied_at_least(a.analyzer().port(), 1000); }));
  // Keep the shuffler sending while the backup runs: the copy is one commit.
  std::thread more([&] {
    for (std::size_t from = 0; from < 300; from += 10) {
      ledger_a.post(a.shuffler().port(), second, from, 10);
    }
  });
  const fs::path backup = a.dir() / "backup.db";
  const int backup_exit = run_to_exit(
      P2B_ANALYZER_BIN, {"backup", a.store_path().string(), backup.string()}, a.dir() / "bk.log");
  more.join();
  ASSERT_EQ(backup_exit, 0) << read_text(a.dir() / "bk.log");
  EXPECT_FALSE(fs::exists(backup.string() + "-wal")) << "the backup is one file";
  ASSERT_TRUE(eventually(30, [&] { return applied_at_least(a.analyzer().port(), 1300); }));
  const int64_t backed_up = sql_int(backup, "SELECT version FROM private_model");
  ASSERT_GE(backed_up, 1);

  // Restore into a new deployment: it serves the model of the version it holds.
  Deployment b("stores-backup-b");
  fs::copy_file(backup, b.store_path());
  b.start_analyzer();
  const std::vector<uint8_t> restored = fetch_model(b.analyzer().port());
  ASSERT_FALSE(restored.empty());
  EXPECT_EQ(metric(b.analyzer().port(), "p2b_analyzer_model_version"),
            static_cast<double>(backed_up));
  {
    // Byte-identical to the bundle the original stored for that version.
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open_v2(backup.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* q = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(h, "SELECT bundle FROM private_model", -1, &q, nullptr),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_step(q), SQLITE_ROW);
    const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(q, 0));
    EXPECT_EQ(std::vector<uint8_t>(p, p + sqlite3_column_bytes(q, 0)), restored);
    sqlite3_finalize(q);
    sqlite3_close(h);
  }
  // The restored analyzer goes on like the original: the reports the backup
  // missed, sent again (devices re-send; replays of applied ones are
  // dropped), and the rest of `second`, give both the same statistics.
  b.start_shuffler(1, b.analyzer().url(), "0.2");
  Ledger ledger_b;
  post_expecting_202(ledger_b, b.shuffler().port(), first, 50);
  post_expecting_202(ledger_b, b.shuffler().port(), second, 50);
  post_expecting_202(ledger_a, a.shuffler().port(),
                     std::vector<Envelope>(second.begin() + 300, second.end()), 50);
  ASSERT_TRUE(eventually(60, [&] { return applied_at_least(a.analyzer().port(), 2000); }));
  ASSERT_TRUE(eventually(60, [&] {
    const std::vector<uint8_t> m = fetch_model(b.analyzer().port());
    if (m.empty()) return false;
    const std::vector<double> sb = model_statistics(m);
    const std::vector<double> sa = model_statistics(fetch_model(a.analyzer().port()));
    for (std::size_t i = 0; i < sa.size(); ++i) {
      if (std::fabs(sa[i] - sb[i]) > 1e-9 * (1 + std::fabs(sa[i]))) return false;
    }
    return true;
  })) << "the restored analyzer does not reach the original's statistics";
  for (Deployment* d : {&a, &b}) {
    EXPECT_EQ(d->shuffler().stop(), 0);
    EXPECT_EQ(d->analyzer().stop(), 0);
  }
  const LedgerTally ta = ledger_a.reconcile(a.store_path());
  EXPECT_EQ(ta.acknowledged, all.size());
  EXPECT_EQ(ta.lost, 0U) << ta.summary();
  EXPECT_EQ(ta.duplicated, 0U) << ta.summary();
  const LedgerTally tb = ledger_b.reconcile(b.store_path());
  EXPECT_EQ(tb.lost, 0U) << tb.summary();
  EXPECT_EQ(tb.duplicated, 0U) << tb.summary();
}

}  // namespace
