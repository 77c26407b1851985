// The command line and the config file: defaults, overrides, and the exit
// class of every mistake.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "shuffler/options.hpp"
#include "shuffler_test_support.hpp"

namespace {

using p2b::shuffler::Options;
using p2b::shuffler::ParseOutcome;

ParseOutcome parse(const std::vector<std::string>& args, Options* o, std::string* err = nullptr) {
  std::vector<const char*> argv = {"p2b-shuffler"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::string ignored;
  return p2b::shuffler::parse_options(static_cast<int>(argv.size()), argv.data(), o,
                                      err != nullptr ? err : &ignored);
}

const std::vector<std::string> kRequired = {"--keys",         "k1",
                                            "--spool",        "s.db",
                                            "--analyzer",     "http://127.0.0.1:8720",
                                            "--analyzer-key", "a.sign.pk",
                                            "--spool-key",    "/etc/p2b/shuffler.spool.key"};

TEST(ShufflerOptions, Defaults) {
  Options o;
  ASSERT_EQ(parse(kRequired, &o), ParseOutcome::ok);
  EXPECT_EQ(o.listen_host, "127.0.0.1");
  EXPECT_EQ(o.listen_port, 8710);
  EXPECT_EQ(o.key_dirs, std::vector<std::string>{"k1"});
  EXPECT_EQ(o.batch_size, 1000U);
  EXPECT_EQ(o.batch_seconds, 10);
  EXPECT_EQ(o.threshold, 10U);
  EXPECT_EQ(o.noisy_threshold, 0);
  EXPECT_EQ(o.max_body, 262144U);
  EXPECT_EQ(o.analyzer_key, "a.sign.pk");
  EXPECT_EQ(o.partition, 0U);
}

TEST(ShufflerOptions, TheStoreNamesItsBackendAndTheScaleOutFlagsParse) {
  Options o;
  ASSERT_EQ(parse(kRequired, &o), ParseOutcome::ok);
  EXPECT_FALSE(o.store_url.is_postgresql());
  EXPECT_EQ(o.store_url.target, "s.db");
  EXPECT_TRUE(o.batch_all);
  EXPECT_EQ(o.partitions, 0U);
  EXPECT_EQ(o.lease_seconds, 30);

  // A PostgreSQL store takes no spool key (its volume is encrypted).
  std::vector<std::string> args(kRequired.begin(), kRequired.end() - 2);
  args[3] = "postgresql://p2b:secret@db/p2b";
  for (const char* a :
       {"--partitions", "8", "--batch-partitions", "0,3,5", "--lease-seconds", "2.5"}) {
    args.emplace_back(a);
  }
  ASSERT_EQ(parse(args, &o), ParseOutcome::ok);
  EXPECT_TRUE(o.store_url.is_postgresql());
  EXPECT_EQ(o.store_url.describe().find("secret"), std::string::npos) << o.store_url.describe();
  EXPECT_EQ(o.partitions, 8U);
  EXPECT_FALSE(o.batch_all);
  EXPECT_EQ(o.batch_partitions, (std::vector<uint32_t>{0, 3, 5}));
  EXPECT_EQ(o.lease_seconds, 2.5);

  args.insert(args.end(), {"--batch-partitions", "none"});
  ASSERT_EQ(parse(args, &o), ParseOutcome::ok);
  EXPECT_FALSE(o.batch_all);
  EXPECT_TRUE(o.batch_partitions.empty());
}

TEST(ShufflerOptions, ScaleOutMistakesAreUsageErrors) {
  Options o;
  std::string err;
  const auto with = [](std::vector<std::string> extra) {
    std::vector<std::string> args = kRequired;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  // A SQLite spool has exactly one partition.
  EXPECT_EQ(parse(with({"--partitions", "4"}), &o, &err), ParseOutcome::usage_error);
  EXPECT_NE(err.find("--partitions"), std::string::npos) << err;
  std::vector<std::string> pg(kRequired.begin(), kRequired.end() - 2);  // no spool key
  pg[3] = "postgresql://db/p2b";
  ASSERT_EQ(parse(pg, &o), ParseOutcome::ok) << "control";
  pg.insert(pg.end(), {"--partitions", "0"});
  EXPECT_EQ(parse(pg, &o), ParseOutcome::usage_error);
  for (const char* bad : {"", "1,,2", "x", "1,", "-1", "all,1"}) {
    EXPECT_EQ(parse(with({"--batch-partitions", bad}), &o), ParseOutcome::usage_error) << bad;
  }
  EXPECT_EQ(parse(with({"--lease-seconds", "0.5"}), &o), ParseOutcome::usage_error);
  EXPECT_EQ(parse(with({"--store", "mysql://db"}), &o), ParseOutcome::usage_error);
}

TEST(ShufflerOptions, EveryFlag) {
  Options o;
  std::vector<std::string> args = kRequired;
  for (const char* a : {"--listen", "0.0.0.0:0", "--keys", "k2", "--batch-size", "5",
                        "--batch-seconds=0.25", "--threshold", "3", "--noisy-threshold", "1.5",
                        "--max-body", "4160", "--partition", "4294967295"}) {
    args.emplace_back(a);
  }
  ASSERT_EQ(parse(args, &o), ParseOutcome::ok);
  EXPECT_EQ(o.listen_host, "0.0.0.0");
  EXPECT_EQ(o.listen_port, 0);
  EXPECT_EQ(o.key_dirs, (std::vector<std::string>{"k1", "k2"}));
  EXPECT_EQ(o.batch_size, 5U);
  EXPECT_EQ(o.batch_seconds, 0.25);
  EXPECT_EQ(o.threshold, 3U);
  EXPECT_EQ(o.noisy_threshold, 1.5);
  EXPECT_EQ(o.max_body, 4160U);
  EXPECT_EQ(o.partition, 4294967295U);
}

TEST(ShufflerOptions, FlagsOverrideTheConfigFile) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("shuffler.conf");
  std::ofstream(path) << "# comment\n\nkeys = [\"a\", \"b\"]\nspool = \"file.db\"\n"
                         "analyzer = \"http://h:1/\"\nanalyzer-key = \"a.pk\"\nbatch_size = 7\n"
                         "spool-key = \"/k/shuffler.spool.key\"\n"
                         "threshold = 4\npartition = 2\n";
  Options o;
  ASSERT_EQ(parse({"--config", path, "--threshold", "6"}, &o), ParseOutcome::ok);
  EXPECT_EQ(o.key_dirs, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(o.store, "file.db");
  EXPECT_EQ(o.batch_size, 7U);
  EXPECT_EQ(o.threshold, 6U);
  EXPECT_EQ(o.analyzer_key, "a.pk");
  EXPECT_EQ(o.partition, 2U);
  ASSERT_EQ(parse({"--config", path, "--keys", "c"}, &o), ParseOutcome::ok);
  EXPECT_EQ(o.key_dirs, std::vector<std::string>{"c"});
}

TEST(ShufflerOptions, MistakesAreUsageErrors) {
  const std::vector<std::vector<std::string>> bad = {
      {"--bogus", "1"},      {"--listen", "nohost"},      {"--listen", "h:70000"},
      {"--batch-size", "0"}, {"--batch-size", "-3"},      {"--batch-seconds", "0"},
      {"--threshold", "x"},  {"--noisy-threshold", "-1"}, {"--noisy-threshold", "nan"},
      {"--max-body", "100"}, {"--analyzer", "ftp://x"},   {"stray"},
      {"--threshold"},       {"--partition", "-1"},       {"--partition", "4294967296"},
      {"--partition", "x"},  {"--analyzer-key", ""},
  };
  for (const auto& extra : bad) {
    std::vector<std::string> args = kRequired;
    args.insert(args.end(), extra.begin(), extra.end());
    Options o;
    std::string err;
    EXPECT_EQ(parse(args, &o, &err), ParseOutcome::usage_error) << extra[0];
    EXPECT_FALSE(err.empty());
  }
  Options o;
  EXPECT_EQ(parse({"--spool", "s", "--analyzer", "http://h:1"}, &o), ParseOutcome::usage_error);
  // Without the analyzer's verify key no ack could be checked.
  EXPECT_EQ(parse({"--keys", "k", "--spool", "s", "--analyzer", "http://h:1"}, &o),
            ParseOutcome::usage_error);
  EXPECT_EQ(parse({"--help"}, &o), ParseOutcome::help);
}

// Both are usage errors (exit 2) since the services share exit codes
// (docs/operations.md); an unreadable file was an I/O error (exit 1) before.
TEST(ShufflerOptions, AnUnreadableConfigAndABadLineAreUsageErrors) {
  shuffler_test::TempDir dir;
  Options o;
  EXPECT_EQ(parse({"--config", dir.file("missing.conf")}, &o), ParseOutcome::usage_error);
  const std::string path = dir.file("bad.conf");
  std::ofstream(path) << "colour = blue\n";
  EXPECT_EQ(parse({"--config", path}, &o), ParseOutcome::usage_error);
}

// No SQLite spool is written in clear: without a key (a flag, or the systemd
// credential) the shuffler does not start, and says how to make one.
TEST(ShufflerOptions, ASqliteSpoolNeedsItsKeyAndAPostgresqlStoreTakesNone) {
  std::vector<std::string> keyless(kRequired.begin(), kRequired.end() - 2);
  Options o;
  std::string err;
  ASSERT_EQ(unsetenv("CREDENTIALS_DIRECTORY"), 0);
  EXPECT_EQ(parse(keyless, &o, &err), ParseOutcome::usage_error);
  EXPECT_NE(err.find("p2b-keygen --shuffler-spool"), std::string::npos) << err;

  shuffler_test::TempDir creds;
  std::ofstream(creds.file("shuffler.spool.key")) << "not read while parsing";
  const std::string creds_dir =
      std::filesystem::path(creds.file("shuffler.spool.key")).parent_path().string();
  ASSERT_EQ(setenv("CREDENTIALS_DIRECTORY", creds_dir.c_str(), 1), 0);
  EXPECT_EQ(parse(keyless, &o, &err), ParseOutcome::ok) << err;
  EXPECT_EQ(o.spool_key, creds.file("shuffler.spool.key"));
  ASSERT_EQ(parse(kRequired, &o), ParseOutcome::ok);
  EXPECT_EQ(o.spool_key, "/etc/p2b/shuffler.spool.key") << "the flag wins";
  ASSERT_EQ(unsetenv("CREDENTIALS_DIRECTORY"), 0);

  std::vector<std::string> pg = kRequired;
  pg[3] = "postgresql://db/p2b";
  EXPECT_EQ(parse(pg, &o, &err), ParseOutcome::usage_error);
  EXPECT_NE(err.find("--spool-key is for a SQLite spool"), std::string::npos) << err;
  EXPECT_EQ(parse(keyless, &o, &err), ParseOutcome::usage_error) << "the credential is gone";
  keyless[3] = "postgresql://db/p2b";
  EXPECT_EQ(parse(keyless, &o, &err), ParseOutcome::ok) << err;
  EXPECT_TRUE(o.spool_key.empty());
}

TEST(ShufflerOptions, TheExampleConfigsParse) {
  Options sqlite;
  ASSERT_EQ(parse({"--config", P2B_EXAMPLES_DIR "/shuffler-sqlite.conf"}, &sqlite),
            ParseOutcome::ok);
  EXPECT_FALSE(sqlite.store_url.is_postgresql());
  EXPECT_EQ(sqlite.store_url.target, "/var/lib/p2b/shuffler.db");
  EXPECT_EQ(sqlite.spool_key, "/etc/p2b/shuffler-spool/shuffler.spool.key");

  Options pg;
  std::string err;
  const std::string pg_conf = std::string(P2B_EXAMPLES_DIR) + "/shuffler-postgresql.conf";
  ASSERT_EQ(parse({"--config", pg_conf, "--batch-partitions", "none"}, &pg, &err), ParseOutcome::ok)
      << err;
  EXPECT_TRUE(pg.store_url.is_postgresql());
  EXPECT_EQ(pg.partitions, 8U);
}

}  // namespace
