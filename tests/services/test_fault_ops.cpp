// Operations faults of issue #12, on both services as real processes: a
// second instance on a port in use exits 1 instead of sharing it; SIGHUP
// reopens the log file (logrotate) and never kills; a client that trickles
// a byte a second cannot hold up SIGTERM past the drain bound; /readyz
// reports the keys and the publisher. Every test that posts reports
// reconciles the ledger: lost 0, duplicated 0. Every wait is bounded.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "ledger.hpp"
#include "proc/run_command.hpp"
#include "service_fixture.hpp"

namespace {

using namespace p2b_services;
using Clock = std::chrono::steady_clock;

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool has_event(const std::string& log, const std::string& event) {
  return log.find("\"event\":\"" + event + "\"") != std::string::npos;
}

// The exit code of a ServiceProcess::stop() status, or -1.
int exit_code(int status) {
  return status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Delivers what the shuffler holds, stops both services, and reconciles.
void drain_stop_and_reconcile(Deployment& d, const Ledger& ledger) {
  EXPECT_TRUE(eventually(30, [&] {
    return metric(d.shuffler().port(), "p2b_shuffler_spool_depth") == 0.0;
  })) << "the spool did not drain";
  EXPECT_EQ(exit_code(d.shuffler().stop()), 0);
  EXPECT_EQ(exit_code(d.analyzer().stop()), 0);
  EXPECT_GT(expect_nothing_lost(ledger, d.store_path()).acknowledged, 0U);
}

// httplib set SO_REUSEPORT, so a second instance bound the same port and
// took part of the traffic. Now it exits 1 and says why; every report still
// reaches the first instance.
TEST(FaultOps, ASecondInstanceOnAPortInUseExitsWithAMessage) {
  Deployment d("fault-ops-port");
  d.start_analyzer();
  d.start_shuffler(1, d.analyzer().url());
  const std::vector<Envelope> all = envelopes(200);
  Ledger ledger;
  EXPECT_EQ(ledger.post_range(d.shuffler().port(), all, 0, 100, 10), 100U);

  const struct {
    const char* binary;
    std::vector<std::string> args;
    int port;
  } seconds[] = {
      {P2B_SHUFFLER_BIN, d.shuffler_args(1, d.analyzer().url()), d.shuffler().port()},
      {P2B_ANALYZER_BIN, d.analyzer_args(), d.analyzer().port()},
  };
  for (const auto& second : seconds) {
    const fs::path log = d.dir() / "second.log";
    fs::remove(log);
    std::vector<std::string> argv = {second.binary};
    argv.insert(argv.end(), second.args.begin(), second.args.end());
    // The last --listen wins; its own store, so only the port is shared.
    for (const std::string& extra :
         {std::string("--listen"), "127.0.0.1:" + std::to_string(second.port),
          std::string("--store"), (d.dir() / "second.db").string(), std::string("--log-file"),
          log.string()}) {
      argv.push_back(extra);
    }
    const auto started = Clock::now();
    EXPECT_EQ(p2b::proc::run_command(argv, true), 1) << second.binary;
    // It gives up rather than retrying: a minute caps only a hang.
    EXPECT_LT(Clock::now() - started, std::chrono::seconds(60));
    const std::string text = read_text(log);
    EXPECT_TRUE(has_event(text, "listen_failed")) << text;
    EXPECT_NE(text.find("in use"), std::string::npos) << text;
    fs::remove(d.dir() / "second.db");
  }
  EXPECT_EQ(ledger.post_range(d.shuffler().port(), all, 100, 100, 10), 100U);
  drain_stop_and_reconcile(d, ledger);
}

// logrotate moves the file, then sends SIGHUP: the shuffler (--log-file)
// writes on in a new file at the old path; the analyzer (stderr) logs the
// signal and ignores it. Both go on serving.
TEST(FaultOps, SighupReopensTheLogFileAndNeverKills) {
  Deployment d("fault-ops-hup");
  const fs::path log = d.dir() / "shuffler-file.log";
  const fs::path rotated = d.dir() / "shuffler-file.log.1";
  d.start_analyzer();
  d.start_shuffler(1, d.analyzer().url(), "1", {"--log-file", log.string(), "--access-log", "all"});
  const std::vector<Envelope> all = envelopes(200);
  Ledger ledger;
  EXPECT_EQ(ledger.post_range(d.shuffler().port(), all, 0, 100, 10), 100U);
  EXPECT_TRUE(has_event(read_text(log), "started"));

  fs::rename(log, rotated);
  for (int i = 0; i < 3; ++i) {  // more than one rotation, and the analyzer too
    ASSERT_EQ(kill(d.shuffler().pid(), SIGHUP), 0);
    ASSERT_EQ(kill(d.analyzer().pid(), SIGHUP), 0);
  }
  EXPECT_TRUE(eventually(5, [&] { return has_event(read_text(log), "log_reopened"); }));
  EXPECT_TRUE(eventually(
      5, [&] { return has_event(read_text(d.dir() / "analyzer.log"), "sighup_ignored"); }));
  EXPECT_EQ(ledger.post_range(d.shuffler().port(), all, 100, 100, 10), 100U);
  const std::string fresh = read_text(log);
  EXPECT_TRUE(has_event(fresh, "http")) << "requests after the HUP are logged in the new file";
  EXPECT_FALSE(has_event(fresh, "started")) << "the new file starts at the HUP";
  EXPECT_TRUE(has_event(read_text(rotated), "started"));
  EXPECT_EQ(read_text(d.dir() / "shuffler.log"), "") << "nothing went to stderr";
  drain_stop_and_reconcile(d, ledger);
}

// A client that sends its request a byte a second, under a request
// deadline of an hour: SIGTERM still ends the service within the drain.
TEST(FaultOps, ATricklingClientCannotHoldUpTheStop) {
  Deployment d("fault-ops-trickle");
  const std::vector<std::string> bounds = {"--drain-timeout", "1", "--request-timeout", "3600"};
  d.start_analyzer(1, 0, bounds);
  d.start_shuffler(1, d.analyzer().url(), "1", bounds);
  const std::vector<Envelope> all = envelopes(100);
  Ledger ledger;
  EXPECT_EQ(ledger.post_range(d.shuffler().port(), all, 0, 100, 10), 100U);
  EXPECT_TRUE(eventually(
      30, [&] { return metric(d.shuffler().port(), "p2b_shuffler_spool_depth") == 0.0; }));

  for (p2b::proc::ServiceProcess* service : {&d.shuffler(), &d.analyzer()}) {
    const int sock = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(sock, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(service->port()));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(connect(sock, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
    std::atomic<bool> done{false};
    std::atomic<std::size_t> sent{0};
    std::thread trickle([sock, &done, &sent] {
      const std::string request =
          "POST /v1/reports HTTP/1.1\r\nHost: x\r\nContent-Length: 208\r\n\r\n" +
          std::string(208, 'x');
      for (std::size_t i = 0; i < request.size() && i < 60 && !done; ++i) {
        if (send(sock, &request[i], 1, MSG_NOSIGNAL) != 1) return;
        ++sent;
        for (int t = 0; t < 10 && !done; ++t) {
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
      }
    });
    // Stop once the trickle has begun (3 bytes in), not after a fixed time.
    for (int i = 0; i < 6000 && sent < 3; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_GE(sent.load(), 3U);
    const auto stopping = Clock::now();
    const int status = service->stop(30);
    const double took = std::chrono::duration<double>(Clock::now() - stopping).count();
    // The service exited while the trickle was still going (it needs 60 s to
    // send 60 bytes): the drain cut it, whatever the machine's load.
    const std::size_t sent_at_exit = sent;
    done = true;
    trickle.join();
    close(sock);
    EXPECT_EQ(exit_code(status), 0) << "a clean stop, not a kill";
    EXPECT_LT(sent_at_exit, 60U) << "the stop waited for the trickling request";
    std::printf("[ figure ] stop with a trickling client and a 1 s drain: %.2f s\n", took);
  }
  const LedgerTally t = ledger.reconcile(d.store_path());
  EXPECT_EQ(t.acknowledged, 100U) << t.summary();
  EXPECT_EQ(t.lost, 0U) << t.summary();
  EXPECT_EQ(t.duplicated, 0U) << t.summary();
}

nlohmann::json readyz(int port, int* status) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_read_timeout(5, 0);
  const auto res = cli.Get("/readyz");
  *status = res ? res->status : -1;
  return res ? nlohmann::json::parse(res->body) : nlohmann::json();
}

// The check of that name in a /readyz body, or null.
nlohmann::json check(const nlohmann::json& body, const std::string& name) {
  for (const nlohmann::json& c : body["checks"]) {
    if (c["name"] == name) return c;
  }
  return nlohmann::json();
}

TEST(FaultOps, ReadyzReportsTheKeysAndThePublisher) {
  Deployment d("fault-ops-ready");
  d.start_analyzer();
  d.start_shuffler(1, d.analyzer().url());
  int status = 0;
  nlohmann::json body = readyz(d.analyzer().port(), &status);
  EXPECT_EQ(status, 200) << body.dump();
  EXPECT_EQ(body["ready"], true);
  EXPECT_EQ(check(body, "keys")["ok"], true) << body.dump();
  EXPECT_NE(check(body, "keys")["detail"].get<std::string>().find("verify "), std::string::npos);
  EXPECT_EQ(check(body, "publisher")["detail"], "served version 0") << body.dump();

  const std::vector<Envelope> all = envelopes(20);
  Ledger ledger;
  // One request, so one batch whenever the 1 s timer fires: version 1 exactly.
  EXPECT_EQ(ledger.post_range(d.shuffler().port(), all, 0, 20, 20), 20U);
  EXPECT_TRUE(eventually(30, [&] {
    return check(readyz(d.analyzer().port(), &status), "publisher")["detail"] != "served version 0";
  }));
  body = readyz(d.analyzer().port(), &status);
  EXPECT_EQ(status, 200);
  EXPECT_EQ(check(body, "publisher")["ok"], true) << body.dump();
  EXPECT_EQ(check(body, "publisher")["detail"], "served version 1") << body.dump();

  body = readyz(d.shuffler().port(), &status);
  EXPECT_EQ(status, 200) << body.dump();
  EXPECT_EQ(check(body, "keys")["ok"], true) << body.dump();
  httplib::Client cli("127.0.0.1", d.shuffler().port());
  const auto health = cli.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->body, "alive");
  drain_stop_and_reconcile(d, ledger);
}

}  // namespace
