// The shared HTTP setup: every refusal and failure answers in the one error
// shape, a service may claim a refusal, and the startup line names the port.
#include <gtest/gtest.h>
#include <httplib.h>

#include <sstream>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/bounded_server.hpp"
#include "common/http_errors.hpp"
#include "common/http_server.hpp"

namespace {

class CommonHttpServer : public ::testing::Test {
 protected:
  void start(p2b::common::RefusalHandler refusal = {}) {
    p2b::common::configure_server(server, 64, log, std::move(refusal));
    server.Post("/echo", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content(req.body, "text/plain");
    });
    server.Get("/throw", [](const httplib::Request&, httplib::Response&) {
      throw std::runtime_error("disk on fire");
    });
    port = p2b::common::bind_and_announce(server, "127.0.0.1", 0, log);
    ASSERT_GT(port, 0);
    thread = std::thread([this] { server.listen_after_bind(); });
  }
  ~CommonHttpServer() override {
    server.stop();
    if (thread.joinable()) thread.join();
  }

  std::ostringstream sink;
  p2b::common::Logger log{&sink};
  p2b::common::HttpCounters counters;
  p2b::common::BoundedServer server{p2b::common::HttpLimits{}, counters};
  int port = -1;
  std::thread thread;
};

nlohmann::json error_of(const httplib::Result& res) {
  EXPECT_TRUE(res);
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
  return nlohmann::json::parse(res->body);
}

TEST(CommonHttpErrors, OneShape) {
  EXPECT_EQ(p2b::common::error_body("no_model", "no \"model\" yet"),
            R"({"error":"no_model","detail":"no \"model\" yet"})");
  EXPECT_EQ(p2b::common::code_for_status(404), "not_found");
  EXPECT_EQ(p2b::common::code_for_status(413), "too_large");
  EXPECT_EQ(p2b::common::code_for_status(400), "bad_request");
  EXPECT_EQ(p2b::common::code_for_status(418), "http_418");
}

TEST_F(CommonHttpServer, RefusalsAndFailuresAnswerInTheErrorShape) {
  start();
  httplib::Client client("127.0.0.1", port);
  auto res = client.Get("/nowhere");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  nlohmann::json body = error_of(res);
  EXPECT_EQ(body["error"], "not_found");
  EXPECT_TRUE(body["detail"].is_string());

  res = client.Post("/echo", std::string(65, 'x'), "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
  EXPECT_EQ(error_of(res)["error"], "too_large");

  res = client.Post("/echo", std::string(64, 'x'), "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);

  res = client.Get("/throw");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 500);
  EXPECT_EQ(error_of(res)["error"], "internal");
  EXPECT_NE(sink.str().find("\"event\":\"request_failed\""), std::string::npos);
  EXPECT_NE(sink.str().find("disk on fire"), std::string::npos);
  EXPECT_NE(sink.str().find("\"event\":\"listening\""), std::string::npos);
}

TEST_F(CommonHttpServer, AServiceMayClaimARefusal) {
  start([](const httplib::Request& req, httplib::Response& res) {
    if (req.path != "/echo") return false;
    p2b::common::set_error(res, res.status, "mine", "claimed");
    return true;
  });
  httplib::Client client("127.0.0.1", port);
  auto res = client.Post("/echo", std::string(100, 'x'), "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
  EXPECT_EQ(error_of(res)["error"], "mine");
  res = client.Get("/nowhere");
  ASSERT_TRUE(res);
  EXPECT_EQ(error_of(res)["error"], "not_found");
}

}  // namespace
