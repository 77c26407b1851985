// The shared HTTP setup: every refusal and failure answers in the one error
// shape, a service may claim a refusal, and the startup line names the port;
// /healthz and /readyz, the access-log switch, and a port in use refused.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

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

std::vector<nlohmann::json> log_lines(const std::string& text, const std::string& event) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (j["event"] == event) out.push_back(std::move(j));
  }
  return out;
}

TEST_F(CommonHttpServer, HealthzSaysAliveAndReadyzRunsEveryCheck) {
  p2b::common::Readiness readiness;
  std::atomic<bool> storage_ok{true};
  readiness.add("keys", [] { return p2b::common::check_ok("box [\"ab\"]"); });
  readiness.add("storage", [&storage_ok] {
    return storage_ok ? p2b::common::check_ok("depth 3")
                      : p2b::common::check_failed("the spool cannot be read");
  });
  p2b::common::serve_readiness(server, readiness);
  start();
  httplib::Client client("127.0.0.1", port);
  auto res = client.Get("/healthz");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, "alive");

  res = client.Get("/readyz");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
  nlohmann::json body = nlohmann::json::parse(res->body);
  EXPECT_EQ(body["ready"], true);
  ASSERT_EQ(body["checks"].size(), 2u);
  EXPECT_EQ(body["checks"][0],
            (nlohmann::json{{"name", "keys"}, {"ok", true}, {"detail", "box [\"ab\"]"}}));
  EXPECT_EQ(body["checks"][1]["name"], "storage");
  EXPECT_EQ(body["checks"][1]["detail"], "depth 3");

  storage_ok = false;
  res = client.Get("/readyz");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 503);
  body = nlohmann::json::parse(res->body);
  EXPECT_EQ(body["ready"], false);
  EXPECT_EQ(body["checks"][0]["ok"], true);
  EXPECT_EQ(
      body["checks"][1],
      (nlohmann::json{{"name", "storage"}, {"ok", false}, {"detail", "the spool cannot be read"}}));
  res = client.Get("/healthz");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << "alive, though not ready";
}

TEST(CommonAccessLog, TheSwitchLeavesOutBulkRequestsOrAll) {
  const std::vector<std::pair<p2b::common::AccessLog, std::size_t>> modes = {
      {p2b::common::AccessLog::all, 3},
      {p2b::common::AccessLog::standard, 2},
      {p2b::common::AccessLog::off, 0}};
  for (const auto& [mode, expected] : modes) {
    std::ostringstream sink;
    p2b::common::Logger log(&sink);
    p2b::common::HttpCounters counters;
    p2b::common::BoundedServer server(p2b::common::HttpLimits{}, counters);
    p2b::common::configure_server(server, 64, log);
    server.Get("/bulk", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("many bytes", "text/plain");
    });
    p2b::common::install_access_log(server, log, mode, [](const httplib::Request& req) {
      return req.method == "GET" && req.path == "/bulk";
    });
    const int port = p2b::common::bind_and_announce(server, "127.0.0.1", 0, log);
    ASSERT_GT(port, 0);
    std::thread thread([&server] { server.listen_after_bind(); });
    httplib::Client client("127.0.0.1", port);
    for (const char* path : {"/bulk", "/healthz", "/nowhere?kind=x"}) {
      const auto res = client.Get(path);
      EXPECT_TRUE(res) << path;
    }
    server.stop();
    thread.join();
    const std::vector<nlohmann::json> lines = log_lines(sink.str(), "http");
    EXPECT_EQ(lines.size(), expected) << sink.str();
    for (const nlohmann::json& l : lines) {
      EXPECT_EQ(l["level"], "info");
      EXPECT_EQ(l.size(), 7u) << "ts, level, event, method, path, status, bytes: " << l.dump();
      if (mode == p2b::common::AccessLog::standard) {
        EXPECT_NE(l["path"], "/bulk");
      }
    }
    if (mode == p2b::common::AccessLog::all) {
      // One connection per request, each on its own thread: the lines may
      // come in any order.
      const auto line_for = [&lines](const char* path) {
        for (const nlohmann::json& l : lines) {
          if (l["path"] == path) return l;
        }
        return nlohmann::json();
      };
      const nlohmann::json bulk = line_for("/bulk");
      EXPECT_EQ(bulk["status"], 200) << sink.str();
      EXPECT_EQ(bulk["bytes"], 10);
      const nlohmann::json nowhere = line_for("/nowhere");
      EXPECT_EQ(nowhere["status"], 404) << "the query is not logged: " << sink.str();
    }
  }
}

// httplib's SO_REUSEPORT let a second server bind the same port and take
// part of the traffic; now the second bind fails and says why.
TEST(CommonBoundedServer, APortInUseIsRefused) {
  std::ostringstream sink;
  p2b::common::Logger log(&sink);
  p2b::common::HttpCounters counters;
  p2b::common::BoundedServer first(p2b::common::HttpLimits{}, counters);
  p2b::common::BoundedServer second(p2b::common::HttpLimits{}, counters);
  const int port = p2b::common::bind_and_announce(first, "127.0.0.1", 0, log);
  ASSERT_GT(port, 0);
  EXPECT_EQ(p2b::common::bind_and_announce(second, "127.0.0.1", port, log), -1);
  const std::vector<nlohmann::json> failed = log_lines(sink.str(), "listen_failed");
  ASSERT_EQ(failed.size(), 1u) << sink.str();
  EXPECT_EQ(failed[0]["port"], port);
  EXPECT_NE(failed[0]["error"].get<std::string>().find("in use"), std::string::npos) << sink.str();
}

}  // namespace
