// The shared shutdown loop: a stop signal gives a clean stop and exit 0; a
// server that ends by itself, or a second signal during the drain, gives
// exit 3 so a supervisor restarts the service; SIGHUP never stops it; the
// connections still open after the drain are cut.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <ostream>
#include <sstream>
#include <string>
#include <thread>

#include "common/exit_codes.hpp"
#include "common/shutdown.hpp"

namespace {

using p2b::common::StopOutcome;

// Stop signals stay blocked for the whole test process, so kill() on
// ourselves queues them for the waiting thread instead of killing us.
class CommonShutdown : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { p2b::common::block_stop_signals(); }
};

// listen() blocks until stop() was called `stops_needed` times.
struct FakeServer {
  std::atomic<int> stops{0};
  int stops_needed = 1;
  bool result = true;
  std::atomic<bool> released{false};

  p2b::common::Serving serving() {
    return {[this] {
              while (stops < stops_needed && !released) {
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
              }
              return result;
            },
            [this] { ++stops; },
            {}};
  }
};

void signal_later(int sig, int ms) {
  std::thread([sig, ms] {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    kill(getpid(), sig);
  }).detach();
}

// Two signals of one kind sent close together may merge into one pending
// signal; so a second one is sent only once the first has been seen to act.
// `seen` is polled a bounded number of times; past that the signal is sent
// anyway, so a broken service fails the test's checks instead of hanging it.
class SignalWhen {
 public:
  template <typename Seen>
  SignalWhen(int sig, Seen seen)
      : thread_([sig, seen] {
          for (int i = 0; i < 12000 && !seen(); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
          }
          kill(getpid(), sig);
        }) {}
  ~SignalWhen() { thread_.join(); }
  SignalWhen(const SignalWhen&) = delete;
  SignalWhen& operator=(const SignalWhen&) = delete;

 private:
  std::thread thread_;
};

// A log sink another thread may read while the service writes to it. The
// mutex is recursive because stringbuf's xsputn calls overflow.
class SharedSink : public std::stringbuf {
 public:
  std::size_t count(const std::string& needle) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    const std::string text = str();
    std::size_t n = 0;
    for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
    return n;
  }
  std::string text() {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    return str();
  }

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    return std::stringbuf::xsputn(s, n);
  }
  int_type overflow(int_type c) override {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    return std::stringbuf::overflow(c);
  }

 private:
  std::recursive_mutex mu_;
};

TEST_F(CommonShutdown, ASignalStopsCleanly) {
  for (int sig : {SIGTERM, SIGINT}) {
    FakeServer server;
    std::ostringstream sink;
    p2b::common::Logger log(&sink);
    signal_later(sig, 50);
    const StopOutcome outcome = p2b::common::serve_until_stopped(server.serving(), log);
    EXPECT_EQ(outcome, StopOutcome::clean);
    EXPECT_EQ(p2b::common::finish_stop(outcome, log), p2b::common::kExitClean);
    EXPECT_NE(sink.str().find(sig == SIGINT ? "\"SIGINT\"" : "\"SIGTERM\""), std::string::npos);
    EXPECT_NE(sink.str().find("\"event\":\"stopped\",\"clean\":true"), std::string::npos)
        << sink.str();
  }
}

TEST_F(CommonShutdown, AServerThatEndsUnaskedIsUnclean) {
  FakeServer server;
  server.stops_needed = 0;  // returns at once, no signal
  std::ostringstream sink;
  p2b::common::Logger log(&sink);
  const StopOutcome outcome = p2b::common::serve_until_stopped(server.serving(), log);
  EXPECT_EQ(outcome, StopOutcome::failed);
  EXPECT_EQ(p2b::common::finish_stop(outcome, log), p2b::common::kExitUnclean);
  EXPECT_NE(sink.str().find("\"clean\":false"), std::string::npos) << sink.str();
}

TEST_F(CommonShutdown, AServerThatFailsWhileStoppingIsUnclean) {
  FakeServer server;
  server.result = false;
  std::ostringstream sink;
  p2b::common::Logger log(&sink);
  signal_later(SIGTERM, 50);
  EXPECT_EQ(p2b::common::serve_until_stopped(server.serving(), log), StopOutcome::failed);
}

TEST_F(CommonShutdown, ASecondSignalDuringTheDrainForcesTheExit) {
  FakeServer server;
  server.stops_needed = 1 << 30;  // a drain that never ends by itself
  std::ostringstream sink;
  p2b::common::Logger log(&sink);
  p2b::common::Serving serving = server.serving();
  std::atomic<bool> forced{false};
  serving.force_exit = [&] {
    forced = true;
    server.released = true;  // stands in for _exit(3)
  };
  signal_later(SIGTERM, 50);
  // The second once the first has started the drain (the server was asked to stop).
  SignalWhen second(SIGTERM, [&server] { return server.stops >= 1; });
  const StopOutcome outcome = p2b::common::serve_until_stopped(serving, log);
  EXPECT_TRUE(forced);
  EXPECT_EQ(outcome, StopOutcome::forced);
  EXPECT_EQ(p2b::common::finish_stop(outcome, log), p2b::common::kExitUnclean);
  EXPECT_NE(sink.str().find("stop_forced"), std::string::npos) << sink.str();
}

TEST_F(CommonShutdown, SighupNeverStops) {
  FakeServer server;
  SharedSink buffer;
  std::ostream sink(&buffer);
  p2b::common::Logger log(&sink);
  signal_later(SIGHUP, 50);
  const std::string ignored = "\"event\":\"sighup_ignored\"";
  SignalWhen hup(SIGHUP, [&] { return buffer.count(ignored) >= 1; });
  SignalWhen term(SIGTERM, [&] { return buffer.count(ignored) >= 2; });
  const StopOutcome outcome = p2b::common::serve_until_stopped(server.serving(), log);
  EXPECT_EQ(outcome, StopOutcome::clean);
  const std::string text = buffer.text();
  const auto first = text.find("\"event\":\"sighup_ignored\"");
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_NE(text.find("\"event\":\"sighup_ignored\"", first + 1), std::string::npos) << text;
  EXPECT_LT(first, text.find("\"event\":\"stopping\"")) << text;
}

// A drain that would never end by itself (a client holding its connection):
// once the drain bound has passed, cut() shuts the connections down.
TEST_F(CommonShutdown, ConnectionsStillOpenAfterTheDrainAreCut) {
  FakeServer server;
  server.stops_needed = 1 << 30;
  std::ostringstream sink;
  p2b::common::Logger log(&sink);
  p2b::common::Serving serving = server.serving();
  std::atomic<int> cuts{0};
  serving.drain = std::chrono::milliseconds(300);
  serving.cut = [&] {
    ++cuts;
    server.released = true;  // the cut connection's thread ends, so listen() returns
    return std::size_t{2};
  };
  signal_later(SIGTERM, 50);
  const auto start = std::chrono::steady_clock::now();
  const StopOutcome outcome = p2b::common::serve_until_stopped(serving, log);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(outcome, StopOutcome::clean);
  EXPECT_GE(cuts.load(), 1);
  EXPECT_GE(took, std::chrono::milliseconds(350)) << "cut before the drain was over";
  EXPECT_LT(took, std::chrono::seconds(5));
  EXPECT_NE(sink.str().find("\"event\":\"drain_cut\",\"connections\":2"), std::string::npos)
      << sink.str();
}

}  // namespace
