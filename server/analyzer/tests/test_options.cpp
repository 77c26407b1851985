// Command line and config file: defaults, overrides, and refusals (which
// main() turns into exit status 2).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "analyzer_test_support.hpp"
#include "options.hpp"

namespace {

using analyzer_test::TempDir;
namespace an = p2b::analyzer;

an::ParseOutcome parse(std::vector<const char*> args, an::Options* o, std::string* err) {
  args.insert(args.begin(), "p2b-analyzer");
  return an::parse_options(static_cast<int>(args.size()), args.data(), o, err);
}

TEST(AnalyzerOptions, RequiredOnlyGivesTheDefaults) {
  an::Options o;
  std::string err;
  ASSERT_EQ(parse({"--keys", "k", "--shuffler-key", "s.pk", "--codebook", "c", "--store", "s",
                   "--actions", "10", "--central-epsilon", "off"},
                  &o, &err),
            an::ParseOutcome::ok)
      << err;
  EXPECT_EQ(o.listen_host, "127.0.0.1");
  EXPECT_EQ(o.listen_port, 8720);
  EXPECT_EQ(o.key_dirs, std::vector<std::string>{"k"});
  EXPECT_EQ(o.n_actions, 10u);
  EXPECT_EQ(o.lambda, 1.0);
  EXPECT_EQ(o.mode, an::AggregationMode::centroid);
  EXPECT_FALSE(o.raw_enabled);
  EXPECT_EQ(o.min_reports, 0u);
  EXPECT_EQ(o.shuffler_keys, std::vector<std::string>{"s.pk"});
  EXPECT_EQ(o.threshold, 10u);
  EXPECT_EQ(o.noisy_threshold, 0.0);
  EXPECT_EQ(o.max_quarantine, 1000000u);
  EXPECT_EQ(o.central_epsilon, 0.0);
}

// No default: the operator chooses central DP on (an epsilon) or off, on
// the command line or in the config file, and a missing choice says how.
TEST(AnalyzerOptions, TheCentralDpChoiceIsRequired) {
  const std::vector<const char*> base = {"--keys",    "k", "--codebook",     "c",   "--store", "s",
                                         "--actions", "3", "--shuffler-key", "s.pk"};
  an::Options o;
  std::string err;
  ASSERT_EQ(parse(base, &o, &err), an::ParseOutcome::usage_error);
  EXPECT_NE(err.find("--central-epsilon EPS"), std::string::npos) << err;
  EXPECT_NE(err.find("--central-epsilon off"), std::string::npos) << err;
  EXPECT_NE(err.find("docs/analyzer.md"), std::string::npos) << err;
  const auto with = [&base](std::vector<const char*> more) {
    std::vector<const char*> args = base;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  ASSERT_EQ(parse(with({"--central-epsilon", "off"}), &o, &err), an::ParseOutcome::ok) << err;
  EXPECT_EQ(o.central_epsilon, 0.0);
  ASSERT_EQ(parse(with({"--central-epsilon", "1"}), &o, &err), an::ParseOutcome::ok) << err;
  EXPECT_EQ(o.central_epsilon, 1.0);
  // 0 once meant off: now off is said in words, so a 0 is a mistake.
  for (const char* bad : {"0", "OFF", "", "-1", "1e3", "on"}) {
    an::Options r;
    EXPECT_EQ(parse(with({"--central-epsilon", bad}), &r, &err), an::ParseOutcome::usage_error)
        << bad;
  }
  const TempDir tmp;
  for (const char* value : {"off", "1"}) {
    const std::string path = tmp.file(std::string("dp-") + value + ".conf");
    std::ofstream(path)
        << "keys = \"k\"\nshuffler-key = \"s.pk\"\ncodebook = \"c\"\nstore = \"s\"\n"
        << "actions = 3\ncentral-epsilon = \"" << value << "\"\n";
    an::Options c;
    ASSERT_EQ(parse({"--config", path.c_str()}, &c, &err), an::ParseOutcome::ok) << err;
    EXPECT_EQ(c.central_epsilon, std::string(value) == "off" ? 0.0 : 1.0);
  }
}

TEST(AnalyzerOptions, EveryFlag) {
  an::Options o;
  std::string err;
  ASSERT_EQ(parse({"--listen",
                   "0.0.0.0:0",
                   "--keys",
                   "old",
                   "--keys=new",
                   "--codebook",
                   "c",
                   "--store",
                   "s",
                   "--actions",
                   "3",
                   "--lambda",
                   "0.25",
                   "--mode",
                   "paper",
                   "--enable-raw-baseline",
                   "--min-reports",
                   "500",
                   "--shuffler-key",
                   "old.pk",
                   "--shuffler-key=new.pk",
                   "--threshold",
                   "3",
                   "--noisy-threshold",
                   "4.5",
                   "--max-quarantine",
                   "0",
                   "--central-epsilon",
                   "off"},
                  &o, &err),
            an::ParseOutcome::ok)
      << err;
  EXPECT_EQ(o.listen_host, "0.0.0.0");
  EXPECT_EQ(o.listen_port, 0);
  EXPECT_EQ(o.key_dirs, (std::vector<std::string>{"old", "new"}));
  EXPECT_EQ(o.lambda, 0.25);
  EXPECT_EQ(o.mode, an::AggregationMode::paper);
  EXPECT_TRUE(o.raw_enabled);
  EXPECT_EQ(o.min_reports, 500u);
  EXPECT_EQ(o.shuffler_keys, (std::vector<std::string>{"old.pk", "new.pk"}));
  EXPECT_EQ(o.threshold, 3u);
  EXPECT_EQ(o.noisy_threshold, 4.5);
  EXPECT_EQ(o.max_quarantine, 0u);
}

TEST(AnalyzerOptions, ConfigFileWithFlagsOverriding) {
  const TempDir tmp;
  const std::string path = tmp.file("analyzer.conf");
  std::ofstream(path) << "# analyzer\n"
                         "listen = \"127.0.0.1:9000\"\n"
                         "keys = [\"a\", \"b\"]\n"
                         "shuffler-key = \"s.pk\"\n"
                         "codebook = \"cb.p2bc\"\n"
                         "store = \"/var/lib/p2b/analyzer.db\"\n"
                         "actions = 5\n"
                         "\n"
                         "mode = \"paper\"\n"
                         "enable-raw-baseline = true\n"
                         "central-epsilon = \"off\"\n";
  an::Options o;
  std::string err;
  ASSERT_EQ(parse({"--config", path.c_str(), "--actions", "7", "--mode", "default"}, &o, &err),
            an::ParseOutcome::ok)
      << err;
  EXPECT_EQ(o.listen_port, 9000);
  EXPECT_EQ(o.key_dirs, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(o.codebook, "cb.p2bc");
  EXPECT_EQ(o.store, "/var/lib/p2b/analyzer.db");
  EXPECT_EQ(o.n_actions, 7u);
  EXPECT_EQ(o.mode, an::AggregationMode::centroid);
  EXPECT_TRUE(o.raw_enabled);
  // A --keys flag replaces the file's whole list.
  ASSERT_EQ(parse({"--config", path.c_str(), "--keys", "c"}, &o, &err), an::ParseOutcome::ok);
  EXPECT_EQ(o.key_dirs, std::vector<std::string>{"c"});
}

TEST(AnalyzerOptions, Refusals) {
  const TempDir tmp;
  const std::string bad_conf = tmp.file("bad.conf");
  std::ofstream(bad_conf) << "colour = blue\n";
  std::vector<std::vector<const char*>> cases = {
      {},                                                     // nothing
      {"--codebook", "c", "--store", "s", "--actions", "3"},  // no keys
      {"--keys", "k", "--store", "s", "--actions", "3"},      // no codebook
      {"--keys", "k", "--codebook", "c", "--actions", "3"},   // no store
      {"--keys", "k", "--codebook", "c", "--store", "s"},     // no actions
      {"--keys", "k", "--codebook", "c", "--store", "s", "--actions", "0"},
      {"--keys", "k", "--codebook", "c", "--store", "s", "--actions", "1025"},
      {"--keys", "k", "--codebook", "c", "--store", "s", "--actions", "3x"},
      {"--keys", "k", "--codebook", "c", "--store", "s", "--actions", "-3"},
      {"--keys", "k", "--codebook", "c", "--store", "s", "--actions", "3", "--lambda", "0"},
      {"--keys", "k", "--codebook", "c", "--store", "s", "--actions", "3", "--lambda", "nan"},
      {"--keys", "k", "--codebook", "c", "--store", "s", "--actions", "3", "--mode", "fast"},
      {"--keys", "k", "--codebook", "c", "--store", "s", "--actions", "3", "--min-reports", "-1"},
      {"--keys", "k", "--codebook", "c", "--store", "s", "--actions", "3", "--min-reports", "x"},
      {"--keys", "k", "--codebook", "c", "--store", "s", "--actions", "3", "--listen", "8720"},
      {"--keys", "k", "--codebook", "c", "--store", "s", "--actions", "3", "--listen", "h:65536"},
      {"--keys", "k", "--codebook", "c", "--store", "s", "--actions", "3", "--frobnicate"},
      {"--keys", "k", "--codebook", "c", "--store", "s", "--actions", "3", "stray"},
      {"--keys", "k", "--codebook", "c", "--store", "s", "--actions"},
      {"--config", "/nonexistent/analyzer.conf"},
      {"--config", bad_conf.c_str()},
  };
  // Each case above lacks or breaks exactly one thing, so give them all the
  // shuffler key and the central-DP choice; then the cases about them.
  for (std::size_t i = 1; i + 2 < cases.size(); ++i) {
    cases[i].insert(cases[i].begin(), {"--shuffler-key", "s.pk", "--central-epsilon", "off"});
  }
  const std::vector<const char*> base = {
      "--keys",    "k", "--codebook",        "c",  "--store", "s",
      "--actions", "3", "--central-epsilon", "off"};
  cases.push_back(base);  // no shuffler key
  for (const char* l : {"0", "x", "-1", "1073741825"}) {
    std::vector<const char*> c = base;
    c.insert(c.end(), {"--shuffler-key", "s.pk", "--threshold", l});
    cases.push_back(c);
  }
  for (const char* sigma : {"-1", "x", "1e7"}) {
    std::vector<const char*> c = base;
    c.insert(c.end(), {"--shuffler-key", "s.pk", "--noisy-threshold", sigma});
    cases.push_back(c);
  }
  for (const char* n : {"-1", "x", "4294967297"}) {
    std::vector<const char*> c = base;
    c.insert(c.end(), {"--shuffler-key", "s.pk", "--max-quarantine", n});
    cases.push_back(c);
  }
  std::vector<const char*> empty_key = base;
  empty_key.insert(empty_key.end(), {"--shuffler-key", ""});
  cases.push_back(empty_key);
  for (size_t i = 0; i < cases.size(); ++i) {
    an::Options o;
    std::string err;
    EXPECT_EQ(parse(cases[i], &o, &err), an::ParseOutcome::usage_error) << "case " << i;
    EXPECT_FALSE(err.empty()) << "case " << i;
  }
  an::Options o;
  std::string err;
  EXPECT_EQ(parse({"--help"}, &o, &err), an::ParseOutcome::help);
}

TEST(AnalyzerOptions, ModelTtlDefaultsToNoneAndIsBounded) {
  const std::vector<const char*> base = {"--keys",         "k",    "--codebook",        "c",
                                         "--store",        "s",    "--actions",         "3",
                                         "--shuffler-key", "s.pk", "--central-epsilon", "off"};
  an::Options o;
  std::string err;
  ASSERT_EQ(parse(base, &o, &err), an::ParseOutcome::ok) << err;
  EXPECT_EQ(o.model_ttl, 0u);
  std::vector<const char*> args = base;
  args.insert(args.end(), {"--model-ttl", "86400"});
  ASSERT_EQ(parse(args, &o, &err), an::ParseOutcome::ok) << err;
  EXPECT_EQ(o.model_ttl, 86400u);
  for (const char* bad : {"-1", "x", "315360001", "1e3"}) {
    std::vector<const char*> refused = base;
    refused.insert(refused.end(), {"--model-ttl", bad});
    an::Options r;
    EXPECT_EQ(parse(refused, &r, &err), an::ParseOutcome::usage_error) << bad;
  }
}

TEST(AnalyzerOptions, RolesAndPublishingNeedPostgresql) {
  const std::vector<const char*> base = {"--keys",    "k", "--codebook",     "c",
                                         "--actions", "3", "--shuffler-key", "s.pk"};
  // Off unless a case chooses.
  const auto with = [&base](std::vector<const char*> more) {
    std::vector<const char*> args = base;
    args.insert(args.end(), more.begin(), more.end());
    if (std::find(more.begin(), more.end(), std::string("--central-epsilon")) == more.end()) {
      args.insert(args.end(), {"--central-epsilon", "off"});
    }
    return args;
  };
  an::Options o;
  std::string err;
  ASSERT_EQ(parse(with({"--store", "sqlite:a.db"}), &o, &err), an::ParseOutcome::ok) << err;
  EXPECT_FALSE(o.store_url.is_postgresql());
  EXPECT_EQ(o.store_url.target, "a.db");
  EXPECT_EQ(o.role, an::Role::all);
  ASSERT_EQ(parse(with({"--store", "postgresql://p2b:secret@db/p2b", "--role", "worker",
                        "--publish-seconds", "2.5", "--publish-reports", "500"}),
                  &o, &err),
            an::ParseOutcome::ok)
      << err;
  EXPECT_TRUE(o.store_url.is_postgresql());
  EXPECT_EQ(o.role, an::Role::worker);
  EXPECT_EQ(o.publish_seconds, 2.5);
  EXPECT_EQ(o.publish_reports, 500u);
  EXPECT_EQ(o.store_url.describe().find("secret"), std::string::npos) << "no password in logs";
  // Central DP runs on PostgreSQL too: the publisher adds the noise.
  ASSERT_EQ(parse(with({"--store", "postgresql://db/p2b", "--central-epsilon", "1"}), &o, &err),
            an::ParseOutcome::ok)
      << err;
  EXPECT_EQ(o.central_epsilon, 1.0);
  const std::vector<std::vector<const char*>> refused = {
      with({"--store", "a.db", "--role", "worker"}),
      with({"--store", "a.db", "--role", "publisher"}),
      with({"--store", "a.db", "--publish-seconds", "5"}),
      with({"--store", "postgresql://db/p2b", "--role", "boss"}),
      with({"--store", "postgresql://db/p2b", "--enable-raw-baseline"}),
      with({"--store", "postgresql://db/p2b", "--publish-seconds", "0"}),
      with({"--store", "mysql://db/p2b"}),
  };
  for (std::size_t i = 0; i < refused.size(); ++i) {
    an::Options r;
    EXPECT_EQ(parse(refused[i], &r, &err), an::ParseOutcome::usage_error) << "case " << i;
  }
}

TEST(AnalyzerOptions, TheExampleConfigsParse) {
  const std::string pg_conf = std::string(P2B_EXAMPLES_DIR) + "/analyzer-postgresql.conf";
  an::Options sqlite;
  std::string err;
  ASSERT_EQ(parse({"--config", P2B_EXAMPLES_DIR "/analyzer-sqlite.conf"}, &sqlite, &err),
            an::ParseOutcome::ok)
      << err;
  EXPECT_FALSE(sqlite.store_url.is_postgresql());
  EXPECT_EQ(sqlite.role, an::Role::all);
  EXPECT_EQ(sqlite.central_epsilon, 1.0) << "shipped with central DP on";

  for (const char* role : {"worker", "publisher"}) {
    an::Options pg;
    ASSERT_EQ(
        parse({"--config", pg_conf.c_str(), "--keys", "worker-keys", "--role", role}, &pg, &err),
        an::ParseOutcome::ok)
        << role << ": " << err;
    EXPECT_TRUE(pg.store_url.is_postgresql());
    EXPECT_EQ(pg.central_epsilon, 1.0) << "shipped with central DP on";
  }
}

}  // namespace
