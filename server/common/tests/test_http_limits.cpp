// The pieces of BoundedServer without processes: the head scanner, the
// framing checks, the connection stream's deadlines over a socket pair,
// the connection gate's cap, and the flags of the HTTP limits.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "common/connection_gate.hpp"
#include "common/connection_stream.hpp"
#include "common/http_limits.hpp"
#include "common/prometheus_text.hpp"
#include "common/request_framing.hpp"
#include "common/request_head.hpp"

namespace {

using p2b::common::ConnectionStream;
using p2b::common::HttpRefusal;
using p2b::common::RequestHeadScanner;
using Verdict = RequestHeadScanner::Verdict;
using Clock = std::chrono::steady_clock;

Verdict scan_all(const std::string& bytes, std::size_t max_bytes = 1024, std::size_t max_fields = 4,
                 std::size_t* head = nullptr) {
  RequestHeadScanner s(max_bytes, max_fields);
  Verdict v = Verdict::incomplete;
  for (char c : bytes) v = s.scan(&c, 1);  // byte by byte, as a slow client sends
  if (head != nullptr) *head = s.head_bytes();
  return v;
}

TEST(CommonHttpLimits, HeadScannerFindsTheEndWhereHttplibDoes) {
  std::size_t head = 0;
  EXPECT_EQ(scan_all("GET / HTTP/1.1\r\nA: b\r\n\r\nBODY", 1024, 4, &head), Verdict::complete);
  EXPECT_EQ(head, 24U);
  EXPECT_EQ(scan_all("GET / HTTP/1.1\r\n\r\n", 1024, 4, &head), Verdict::complete);
  EXPECT_EQ(head, 18U);
  EXPECT_EQ(scan_all("GET / HTTP/1.1\r\nA: b\r\n"), Verdict::incomplete);
  // A bare "\n" line is skipped by httplib, not the end of the head.
  EXPECT_EQ(scan_all("GET / HTTP/1.1\r\n\nA: b\r\n"), Verdict::incomplete);
  EXPECT_EQ(scan_all("GET / HTTP/1.1\r\n\n\r\n"), Verdict::complete);
  RequestHeadScanner chunked(1024, 4);
  const std::string whole = "GET / HTTP/1.1\r\nA: b\r\n\r\n";
  EXPECT_EQ(chunked.scan(whole.data(), 10), Verdict::incomplete);
  EXPECT_EQ(chunked.scan(whole.data() + 10, whole.size() - 10), Verdict::complete);
}

TEST(CommonHttpLimits, HeadScannerRefusesOverItsBudget) {
  std::string fields = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 4; ++i) fields += "A: b\r\n";
  EXPECT_EQ(scan_all(fields + "\r\n"), Verdict::complete) << "4 fields are allowed";
  EXPECT_EQ(scan_all(fields + "A: b\r\n"), Verdict::too_many_fields);
  EXPECT_EQ(scan_all(fields + "\n"), Verdict::too_many_fields) << "skipped lines count too";
  const std::string line = "GET / HTTP/1.1\r\nA: " + std::string(100, 'x') + "\r\n\r\n";
  EXPECT_EQ(scan_all(line, line.size()), Verdict::complete) << "exactly the budget";
  EXPECT_EQ(scan_all(line, line.size() - 1), Verdict::too_large);
  EXPECT_EQ(scan_all("GET /" + std::string(RequestHeadScanner::kMaxLineBytes, 'a'), 1 << 20),
            Verdict::too_large)
      << "a line longer than httplib takes";
  RequestHeadScanner done(1024, 4);
  EXPECT_EQ(done.scan("A\r\n\r\n", 5), Verdict::complete);
  EXPECT_EQ(done.scan("more", 4), Verdict::complete) << "a verdict is final";
}

httplib::Request request(const std::string& method, const httplib::Headers& headers) {
  httplib::Request req;
  req.method = method;
  req.headers = headers;
  return req;
}

TEST(CommonHttpLimits, FramingRefusesAnythingThatWouldBeDecoded) {
  using p2b::common::check_framing;
  const auto refused = [](const httplib::Request& req) {
    const auto r = check_framing(req, 100);
    return r ? r->status : 0;
  };
  EXPECT_EQ(refused(request("POST", {{"Content-Length", "100"}})), 0);
  EXPECT_EQ(refused(request("POST", {{"Content-Length", "0"}})), 0);
  EXPECT_EQ(refused(request("POST", {{"Content-Length", "5"}, {"Content-Encoding", "Identity"}})),
            0);
  EXPECT_EQ(refused(request("GET", {})), 0);
  EXPECT_EQ(refused(request("GET", {{"Content-Length", "0"}})), 0);

  EXPECT_EQ(refused(request("POST", {{"Content-Length", "101"}})), 413);
  EXPECT_EQ(refused(request("POST", {})), 411);
  EXPECT_EQ(refused(request("PUT", {})), 411);
  EXPECT_EQ(refused(request("POST", {{"Transfer-Encoding", "chunked"}})), 411);
  EXPECT_EQ(
      refused(request("POST", {{"transfer-encoding", "gzip, chunked"}, {"Content-Length", "5"}})),
      411);
  for (const char* enc : {"gzip", "br", "deflate", "identity, gzip", "x-br"}) {
    EXPECT_EQ(refused(request("POST", {{"Content-Length", "5"}, {"Content-Encoding", enc}})), 415)
        << enc;
  }
  EXPECT_EQ(refused(request("POST", {{"Content-Length", "5"},
                                     {"Content-Encoding", "identity"},
                                     {"content-encoding", "gzip"}})),
            415)
      << "every Content-Encoding counts, not the first";
  for (const char* len : {"+5", "5 ", "0x5", "-1", "99999999999999999999", "5,5"}) {
    EXPECT_EQ(refused(request("POST", {{"Content-Length", len}})), 400) << len;
  }
  EXPECT_EQ(refused(request("POST", {{"Content-Length", "5"}, {"Content-Length", "5"}})), 400);
  EXPECT_EQ(refused(request("GET", {{"Content-Length", "5"}})), 400);

  const auto r =
      check_framing(request("POST", {{"Content-Encoding", "br"}, {"Content-Length", "5"}}), 100);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->reason, HttpRefusal::unsupported_encoding);
  EXPECT_EQ(r->code, "unsupported_encoding");
}

TEST(CommonHttpLimits, CountersRenderEveryReason) {
  p2b::common::HttpCounters c;
  c.refused(HttpRefusal::headers_too_large);
  c.refused(HttpRefusal::headers_too_large);
  c.opened();
  p2b::common::PrometheusText out;
  c.render(out, "p2b_x");
  EXPECT_NE(out.text().find("p2b_x_http_refused_total{reason=\"headers_too_large\"} 2\n"),
            std::string::npos)
      << out.text();
  EXPECT_NE(out.text().find("p2b_x_http_refused_total{reason=\"too_many_connections\"} 0\n"),
            std::string::npos);
  EXPECT_NE(out.text().find("p2b_x_http_connections 1\n"), std::string::npos);
}

class Pair {
 public:
  Pair() { EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds_), 0); }
  ~Pair() {
    ::close(fds_[0]);
    if (fds_[1] >= 0) ::close(fds_[1]);
  }
  Pair(const Pair&) = delete;
  Pair& operator=(const Pair&) = delete;
  int server() const { return fds_[0]; }
  void send(const std::string& s) const {
    ASSERT_EQ(::write(fds_[1], s.data(), s.size()), static_cast<ssize_t>(s.size()));
  }
  void close_client() {
    ::close(fds_[1]);
    fds_[1] = -1;
  }

 private:
  int fds_[2] = {-1, -1};
};

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

TEST(CommonHttpLimits, StreamReadsTheHeadAheadAndServesItBack) {
  Pair p;
  ConnectionStream s(p.server(), [] { return false; });
  p.send("GET / HTTP/1.1\r\nA: b\r\n\r\nBODY");
  s.set_deadline(Clock::now() + std::chrono::seconds(2));
  ASSERT_EQ(s.wait_for_request(std::chrono::milliseconds(100)), ConnectionStream::Wait::ready);
  ASSERT_EQ(s.read_head(1024, 8), ConnectionStream::Head::complete);
  std::string all(64, '\0');
  ssize_t got = 0;
  for (int i = 0; i < 64 && got < 28; ++i) got += s.read(&all[static_cast<std::size_t>(got)], 1);
  all.resize(static_cast<std::size_t>(got));
  EXPECT_EQ(all, "GET / HTTP/1.1\r\nA: b\r\n\r\nBODY");
  std::string ip = "x";
  int port = 1;
  s.get_remote_ip_and_port(ip, port);
  EXPECT_TRUE(ip.empty()) << "the client's address is never reported";
}

TEST(CommonHttpLimits, StreamCutsATricklingHeadAtTheDeadline) {
  Pair p;
  ConnectionStream s(p.server(), [] { return false; });
  std::atomic<bool> stop{false};
  std::thread trickle([&] {
    // About 8 s of trickle, so that a stream ignoring its deadline is
    // told apart from a slow machine by a wide margin.
    const std::string head = "GET / HTTP/1.1\r\nX: " + std::string(400, 'a');
    for (std::size_t i = 0; i < head.size() && !stop; ++i) {
      p.send(head.substr(i, 1));
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  const auto start = Clock::now();
  s.set_deadline(start + std::chrono::milliseconds(300));
  EXPECT_EQ(s.read_head(1024, 8), ConnectionStream::Head::timed_out);
  EXPECT_TRUE(s.deadline_passed());
  EXPECT_GE(seconds_since(start), 0.29);
  EXPECT_LT(seconds_since(start), 5.0);
  char c = 0;
  EXPECT_EQ(s.read(&c, 1), -1) << "every read after the deadline fails";
  stop = true;
  trickle.join();
}

TEST(CommonHttpLimits, StreamWaitsForIdleAndStops) {
  Pair p;
  std::atomic<bool> stopping{false};
  ConnectionStream s(p.server(), [&] { return stopping.load(); });
  auto start = Clock::now();
  EXPECT_EQ(s.wait_for_request(std::chrono::milliseconds(200)), ConnectionStream::Wait::timed_out);
  EXPECT_GE(seconds_since(start), 0.19);
  EXPECT_LT(seconds_since(start), 5.0);  // not waiting on: a wide margin for load
  stopping = true;
  start = Clock::now();
  EXPECT_EQ(s.wait_for_request(std::chrono::seconds(60)), ConnectionStream::Wait::stopping);
  EXPECT_LT(seconds_since(start), 30.0) << "the stop is seen long before the 60 s wait ends";
  p.close_client();
  stopping = false;
  EXPECT_EQ(s.wait_for_request(std::chrono::seconds(1)), ConnectionStream::Wait::closed);
}

TEST(CommonHttpLimits, StreamRefusesAHeadOverBudget) {
  Pair p;
  ConnectionStream s(p.server(), [] { return false; });
  s.set_deadline(Clock::now() + std::chrono::seconds(2));
  p.send("GET / HTTP/1.1\r\n" + std::string(3000, 'a'));
  EXPECT_EQ(s.read_head(2048, 8), ConnectionStream::Head::too_large);
}

TEST(CommonHttpLimits, GateGivesEachConnectionAThreadUpToTheCap) {
  p2b::common::ConnectionGate gate(2);
  std::atomic<bool> release{false};
  std::atomic<int> running{0}, shed{0};
  const auto task = [&] {
    if (p2b::common::ConnectionGate::shedding()) {
      ++shed;
      return;
    }
    ++running;
    for (int i = 0; i < 500 && !release; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  };
  gate.enqueue(task);
  gate.enqueue(task);
  gate.enqueue(task);  // over the cap: run at once on this thread, shedding
  EXPECT_EQ(shed.load(), 1);
  EXPECT_FALSE(p2b::common::ConnectionGate::shedding());
  for (int i = 0; i < 200 && running < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(running.load(), 2) << "two blocked tasks ran side by side";
  release = true;
  gate.shutdown();  // waits for both
  gate.enqueue(task);
  gate.shutdown();
  EXPECT_EQ(running.load(), 3);
  EXPECT_EQ(shed.load(), 1);
}

}  // namespace
