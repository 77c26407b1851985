// The HTTP layer in-process, on a loopback port: every kind of bad body gets
// its status and JSON, nothing is stored, and the server keeps serving.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include <thread>

#include "shuffler/analyzer_sink.hpp"
#include "shuffler/http_api.hpp"
#include "shuffler/intake.hpp"
#include "shuffler/sqlite_spool.hpp"
#include "shuffler_test_support.hpp"

namespace {

using shuffler_test::body_of;

constexpr std::size_t kMaxBody = 4 * p2b::kEnvelopeBytes;

class ShufflerHttp : public ::testing::Test {
 protected:
  ShufflerHttp()
      : spool(dir.file("spool.db"), shuffler_test::spool_key()),
        intake({ours.shuffler}, spool, metrics, kMaxBody) {
    p2b::shuffler::install_routes(server, intake, metrics, spool, kMaxBody);
    port = server.bind_to_any_port("127.0.0.1");
    thread = std::thread([this] { server.listen_after_bind(); });
  }
  ~ShufflerHttp() override {
    server.stop();
    thread.join();
  }
  ShufflerHttp(const ShufflerHttp&) = delete;
  ShufflerHttp& operator=(const ShufflerHttp&) = delete;

  httplib::Result post(const std::string& body) {
    httplib::Client client("127.0.0.1", port);
    return client.Post("/v1/reports", body, "application/octet-stream");
  }

  shuffler_test::TempDir dir;
  shuffler_test::Deployment ours;
  p2b::shuffler::SqliteSpool spool;
  p2b::shuffler::Metrics metrics;
  p2b::shuffler::ReportIntake intake;
  httplib::Server server;
  int port = -1;
  std::thread thread;
};

TEST_F(ShufflerHttp, RefusesBadBodiesAndStaysUp) {
  ASSERT_GT(port, 0);
  const shuffler_test::Deployment other;
  shuffler_test::Envelope tampered = ours.seal(2);
  tampered[150] ^= 0x80;
  struct Case {
    std::string body;
    int status;
    const char* error;
  };
  const std::vector<Case> cases = {
      {"", 400, "wrong_length"},
      {"garbage", 400, "wrong_length"},
      {body_of({ours.seal(1)}).substr(1), 400, "wrong_length"},
      {std::string(kMaxBody + 1, 'x'), 413, "too_large"},
      {std::string(100 * kMaxBody, 'x'), 413, "too_large"},
      {body_of({other.seal(1)}), 421, "unknown_key"},
      {body_of({ours.seal(1), tampered}), 422, "decrypt_failed"},
      {body_of({ours.seal_garbage()}), 422, "malformed"},
  };
  for (const Case& c : cases) {
    const auto res = post(c.body);
    ASSERT_TRUE(res) << c.error << ": " << httplib::to_string(res.error());
    EXPECT_EQ(res->status, c.status) << c.error;
    const auto body = nlohmann::json::parse(res->body);
    EXPECT_EQ(body["error"], c.error);
    EXPECT_TRUE(body["detail"].is_string());
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
  }
  EXPECT_EQ(spool.depth(), 0U);

  httplib::Client client("127.0.0.1", port);
  const auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(health->body, "alive");

  const auto ok = post(body_of({ours.seal(5), ours.seal(5)}));
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 202);
  EXPECT_EQ(ok->body, R"({"accepted":2,"duplicates":0})");

  const auto m = client.Get("/metrics");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->status, 200);
  for (const char* line : {"p2b_shuffler_received_total 2\n",
                           "p2b_shuffler_rejected_total{reason=\"wrong_length\"} 3\n",
                           "p2b_shuffler_rejected_total{reason=\"too_large\"} 2\n",
                           "p2b_shuffler_rejected_total{reason=\"unknown_key\"} 1\n",
                           "p2b_shuffler_rejected_total{reason=\"decrypt_failed\"} 1\n",
                           "p2b_shuffler_rejected_total{reason=\"malformed\"} 1\n",
                           "p2b_shuffler_duplicates_total{layer=\"outer\"} 0\n",
                           "p2b_shuffler_duplicates_total{layer=\"inner\"} 0\n",
                           "p2b_shuffler_bad_acks_total 0\n", "p2b_shuffler_spool_depth 2\n"}) {
    EXPECT_NE(m->body.find(line), std::string::npos) << line << m->body;
  }
}

TEST_F(ShufflerHttp, UnknownRoutesAnswerJson) {
  httplib::Client client("127.0.0.1", port);
  const auto res = client.Get("/nope");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  EXPECT_EQ(nlohmann::json::parse(res->body)["error"], "not_found");
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
}

TEST(ShufflerHttpSink, PostsBatchesToTheAnalyzerAndReportsItsAnswer) {
  httplib::Server analyzer;
  std::string got_path;
  std::string got_body;
  int answer = 200;
  analyzer.Post(R"(/.*)", [&](const httplib::Request& req, httplib::Response& res) {
    got_path = req.path;
    got_body = req.body;
    res.status = answer;
    res.set_content("{\"ack\":\"00\"}", "application/json");
  });
  const int port = analyzer.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread thread([&] { analyzer.listen_after_bind(); });

  const std::vector<uint8_t> batch = {1, 2, 3, 0, 4};
  std::string detail, body;
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  EXPECT_EQ(p2b::shuffler::make_http_sink(base)->deliver(batch, &body, &detail), 200);
  EXPECT_EQ(got_path, "/v1/batches");
  EXPECT_EQ(got_body, std::string("\x01\x02\x03\x00\x04", 5));
  EXPECT_EQ(body, "{\"ack\":\"00\"}");  // for the batcher to check
  answer = 503;
  EXPECT_EQ(p2b::shuffler::make_http_sink(base + "/prefix/")->deliver(batch, &body, &detail), 503);
  EXPECT_EQ(got_path, "/prefix/v1/batches");
  analyzer.stop();
  thread.join();

  // Nobody listening any more: no status at all, and a reason.
  EXPECT_EQ(p2b::shuffler::make_http_sink(base)->deliver(batch, &body, &detail), -1);
  EXPECT_FALSE(detail.empty());
  EXPECT_THROW(p2b::shuffler::make_http_sink("127.0.0.1:8720"), std::invalid_argument);
}

// An answer far larger than any ack is cut off while it arrives, not
// buffered: the delivery fails and the batch stays in the spool.
TEST(ShufflerHttpSink, AFloodedAnswerIsCutOffAndIsNoAck) {
  httplib::Server analyzer;
  const std::string flood(16u << 20, 'x');
  analyzer.Post(R"(/.*)", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(flood, "application/json");
  });
  const int port = analyzer.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread thread([&] { analyzer.listen_after_bind(); });
  std::string detail, body = "stale";
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  EXPECT_EQ(p2b::shuffler::make_http_sink(base)->deliver({1, 2, 3}, &body, &detail), -1);
  EXPECT_NE(detail.find("answer larger than"), std::string::npos) << detail;
  analyzer.stop();
  thread.join();
}

}  // namespace
