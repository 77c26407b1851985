// The common /metrics families: the latency histogram (bounded labels),
// process_* from /proc/self, build_info, the float and histogram rendering
// of PrometheusText, and a real BoundedServer with ServiceMetrics attached
// answering a scrape, gzip asked for or not.
#include <gtest/gtest.h>
#include <httplib.h>

#include <string>
#include <thread>

#include "common/bounded_server.hpp"
#include "common/latency_histogram.hpp"
#include "common/process_metrics.hpp"
#include "common/prometheus_text.hpp"
#include "common/service_metrics.hpp"
#include "common/version.hpp"
#include "proc/metrics.hpp"

namespace {

namespace common = p2b::common;

TEST(CommonServiceMetrics, RealsAndHistogramsRenderInTheTextFormat) {
  EXPECT_EQ(common::format_real(0.005), "0.005");
  EXPECT_EQ(common::format_real(10), "10");
  EXPECT_EQ(common::format_real(1.0 / 0.0), "+Inf");
  common::PrometheusText out;
  out.real_gauge("g", "A gauge.", 1.5);
  out.info("p_build_info", "Build.", "version", "1.2.3");
  out.histogram("h", "Times.", {0.1, 1}, {{"a=\"x\"", {1, 2}, 0.55, 3}});
  EXPECT_EQ(out.text(),
            "# HELP g A gauge.\n# TYPE g gauge\ng 1.5\n"
            "# HELP p_build_info Build.\n# TYPE p_build_info gauge\n"
            "p_build_info{version=\"1.2.3\"} 1\n"
            "# HELP h Times.\n# TYPE h histogram\n"
            "h_bucket{a=\"x\",le=\"0.1\"} 1\n"
            "h_bucket{a=\"x\",le=\"1\"} 2\n"
            "h_bucket{a=\"x\",le=\"+Inf\"} 3\n"
            "h_sum{a=\"x\"} 0.55\n"
            "h_count{a=\"x\"} 3\n");
}

TEST(CommonServiceMetrics, HistogramLabelsStayBounded) {
  common::LatencyHistogram h;
  h.observe("GET", 200, 0.0001);
  h.observe("GET", 200, 20);  // over every bound: only in +Inf
  h.observe("BREW", 999, 0.3);
  h.observe("FOO", -1, 0.3);
  common::PrometheusText out;
  h.render(out, "p_d");
  const std::string& t = out.text();
  EXPECT_NE(t.find("p_d_bucket{method=\"GET\",code=\"200\",le=\"0.001\"} 1\n"), std::string::npos);
  EXPECT_NE(t.find("p_d_bucket{method=\"GET\",code=\"200\",le=\"10\"} 1\n"), std::string::npos);
  EXPECT_NE(t.find("p_d_bucket{method=\"GET\",code=\"200\",le=\"+Inf\"} 2\n"), std::string::npos);
  // Unknown methods and impossible codes share one series.
  EXPECT_NE(t.find("p_d_count{method=\"other\",code=\"other\"} 2\n"), std::string::npos);
  EXPECT_EQ(t.find("BREW"), std::string::npos);
}

TEST(CommonServiceMetrics, ProcStatParsesACommandWithSpacesAndParentheses) {
  double u = 0, s = 0, start = 0;
  const std::string line =
      "42 (a (b) c) S 1 2 3 4 5 6 7 8 9 10 111 222 13 14 15 16 17 18 333 19 20";
  ASSERT_TRUE(common::parse_proc_stat(line, &u, &s, &start));
  EXPECT_EQ(u, 111);
  EXPECT_EQ(s, 222);
  EXPECT_EQ(start, 333);
  EXPECT_FALSE(common::parse_proc_stat("42 (x) S 1 2", &u, &s, &start));
  EXPECT_FALSE(common::parse_proc_stat("no parenthesis", &u, &s, &start));
}

TEST(CommonServiceMetrics, ProcessSampleReadsThisProcess) {
  const common::ProcessSample s = common::read_process_sample();
  ASSERT_TRUE(s.resident_bytes && s.cpu_seconds && s.open_fds && s.start_time_seconds);
  EXPECT_GT(*s.resident_bytes, 0);
  EXPECT_GE(*s.cpu_seconds, 0);
  EXPECT_GE(*s.open_fds, 3);
  EXPECT_GT(*s.start_time_seconds, 1.5e9);  // after 2017
}

// A BoundedServer with the metrics attached; its own /metrics renders one
// counter, and the common families are appended to it.
class AttachedServer : public ::testing::Test {
 protected:
  void SetUp() override {
    metrics_.attach(server_);
    server_.Get("/metrics", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("# TYPE own_total counter\nown_total 7\n", "text/plain; version=0.0.4");
    });
    server_.Get("/x", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(4096, 'x'), "text/plain");
    });
    port_ = server_.bind("127.0.0.1", 0);
    ASSERT_GT(port_, 0);
    // bind() already listens: a client may connect before the loop runs.
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  void TearDown() override {
    server_.stop();
    thread_.join();
  }

  common::HttpCounters counters_;
  common::BoundedServer server_{common::HttpLimits{}, counters_};
  common::ServiceMetrics metrics_{"p2b_test"};
  int port_ = 0;
  std::thread thread_;
};

TEST_F(AttachedServer, AScrapeHoldsItsOwnAndTheCommonFamilies) {
  httplib::Client client("127.0.0.1", port_);
  ASSERT_EQ(client.Get("/x")->status, 200);
  ASSERT_EQ(client.Get("/nothing-here")->status, 404);
  const auto res = client.Get("/metrics");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  const std::string& t = res->body;
  EXPECT_EQ(p2b::proc::metric_value(t, "own_total"), 7);
  // The scrape counts itself: it is timed before the families are added.
  EXPECT_EQ(p2b::proc::metric_value(t, "p2b_test_http_request_duration_seconds_count"), 3);
  EXPECT_NE(t.find("p2b_test_http_request_duration_seconds_count{method=\"GET\",code=\"404\"} 1"),
            std::string::npos);
  EXPECT_EQ(p2b::proc::metric_value(
                t, "p2b_test_build_info{version=\"" + common::version_string() + "\"}"),
            1);
  EXPECT_GT(p2b::proc::metric_value(t, "process_resident_memory_bytes"), 0);
  EXPECT_GE(p2b::proc::metric_value(t, "process_open_fds"), 3);
  EXPECT_EQ(res->get_header_value("Content-Length"), std::to_string(t.size()));
}

// A scraper that accepts gzip (Prometheus does) still gets the whole text:
// the appended families are never glued to a compressed body.
TEST_F(AttachedServer, AScrapeAskingForGzipGetsTheWholeTextUncompressed) {
  httplib::Client client("127.0.0.1", port_);
  const auto res = client.Get("/metrics", {{"Accept-Encoding", "gzip, deflate, br"}});
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  EXPECT_TRUE(res->get_header_value("Content-Encoding").empty());
  EXPECT_EQ(p2b::proc::metric_value(res->body, "own_total"), 7);
  EXPECT_GT(p2b::proc::metric_value(res->body, "process_cpu_seconds_total"), -1);
  // Other answers are still compressed as the client asked.
  const auto x = client.Get("/x", {{"Accept-Encoding", "gzip"}});
  ASSERT_TRUE(x);
  EXPECT_EQ(x->get_header_value("Content-Encoding"), "gzip");
}

}  // namespace
