// The one client call every service makes to another: an answer within its
// cap comes back whole with its headers and the request's own headers are
// sent; a flood past the cap is no answer and is not held; a peer that
// trickles its answer is cut at the call's deadline, long before it would
// have finished (the test tells the two apart by how much the peer got to
// send, not by a clock).
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <string>
#include <thread>

#include "common/bounded_client.hpp"

namespace {

using p2b::common::bounded_request;
using p2b::common::ClientAnswer;
using p2b::common::ClientCall;

// A trickle of this many bytes, 10 ms apart, takes a minute: a cut within
// the deadline leaves it far from done.
constexpr std::size_t kTrickleBytes = 6000;

class CommonBoundedClient : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Get("/small", [](const httplib::Request& req, httplib::Response& res) {
      res.set_header("X-Echo", req.get_header_value("X-Signed"));
      res.set_content("small answer", "text/plain");
    });
    server_.Get("/flood", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(std::size_t{4} << 20, 'x'), "application/octet-stream");
    });
    server_.Get("/trickle", [this](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("application/octet-stream",
                                       [this](std::size_t, httplib::DataSink& sink) {
                                         if (sent_ >= kTrickleBytes || !sink.is_writable()) {
                                           sink.done();
                                           return true;
                                         }
                                         std::this_thread::sleep_for(std::chrono::milliseconds(10));
                                         if (!sink.write("t", 1)) return false;
                                         ++sent_;
                                         return true;
                                       });
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    // Bound and listening already: a client connecting now waits in the backlog.
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  void TearDown() override {
    server_.stop();
    thread_.join();
  }

  ClientAnswer get(const std::string& path, std::size_t cap, std::chrono::milliseconds deadline,
                   httplib::Headers headers = {}) {
    httplib::Client client("127.0.0.1", port_);
    client.set_read_timeout(std::chrono::seconds(30));
    ClientCall call;
    call.path = path;
    call.headers = std::move(headers);
    call.max_answer_bytes = cap;
    call.deadline = deadline;
    return bounded_request(client, std::move(call));
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<std::size_t> sent_{0};
};

TEST_F(CommonBoundedClient, AnAnswerWithinItsCapComesBackWithItsHeaders) {
  const ClientAnswer a =
      get("/small", 1024, std::chrono::milliseconds(0), {{"X-Signed", "member-signature"}});
  ASSERT_EQ(a.status, 200) << a.error;
  EXPECT_EQ(a.body, "small answer");
  EXPECT_FALSE(a.too_large);
  EXPECT_FALSE(a.deadline_passed);
  const auto echo = a.headers.find("X-Echo");
  ASSERT_NE(echo, a.headers.end());
  EXPECT_EQ(echo->second, "member-signature") << "the call's own headers were sent";
}

TEST_F(CommonBoundedClient, AFloodPastTheCapIsNoAnswer) {
  const ClientAnswer a = get("/flood", 4096, std::chrono::milliseconds(0));
  EXPECT_EQ(a.status, -1);
  EXPECT_TRUE(a.too_large);
  EXPECT_TRUE(a.body.empty()) << "nothing of a refused answer is kept";
  EXPECT_NE(a.error.find("larger than 4096"), std::string::npos) << a.error;
}

TEST_F(CommonBoundedClient, ATricklingAnswerIsCutAtTheDeadline) {
  const ClientAnswer a = get("/trickle", std::size_t{1} << 20, std::chrono::milliseconds(300));
  EXPECT_EQ(a.status, -1);
  EXPECT_TRUE(a.deadline_passed) << a.error;
  EXPECT_FALSE(a.too_large);
  EXPECT_TRUE(a.body.empty());
  EXPECT_NE(a.error.find("slower than 300 ms"), std::string::npos) << a.error;
  // Cut, not waited out: the peer got nowhere near its minute of trickle.
  EXPECT_LT(sent_.load(), kTrickleBytes / 2);
}

TEST_F(CommonBoundedClient, WithoutADeadlineTheSameAnswerIsReadWhole) {
  sent_ = kTrickleBytes - 20;  // a short trickle: 20 bytes
  const ClientAnswer a = get("/trickle", std::size_t{1} << 20, std::chrono::milliseconds(0));
  ASSERT_EQ(a.status, 200) << a.error;
  EXPECT_EQ(a.body, std::string(20, 't'));
}

}  // namespace
