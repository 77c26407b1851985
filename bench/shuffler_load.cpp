// Load benchmark for p2b-shuffler (not a test): sustained envelopes per
// second on loopback with durability on (SQLite WAL, synchronous=FULL, a
// commit before every 202), the p50/p99 latency of a request, and the bytes
// each service writes to storage per envelope (/proc/<pid>/io write_bytes).
//
//   shuffler_load [--seconds S] [--clients C] [--per-request N] [--pool P]
//                 [--deliver] [--trace-syncs]   (--help)
//
// Each client thread posts requests of N distinct, valid envelopes as fast as
// it gets answers. Without --deliver the analyzer URL points at a closed
// port, so batches stay in the spool: ingest is measured alone. With it a
// real p2b-analyzer runs too, and its writes are divided by the reports it
// applied once the spool has drained. With --trace-syncs strace counts the
// shuffler's fdatasync/fsync calls per request and its WAL bytes per
// envelope (bench/sync_trace.hpp); tracing slows it, so take rates from an
// untraced run.
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench_deployment.hpp"
#include "cli/tool_cli.hpp"
#include "proc/service_process.hpp"
#include "sync_trace.hpp"

namespace fs = std::filesystem;
using p2b::bench::Envelope;

namespace {

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

void print_writes(const char* who, long long bytes, double per) {
  std::printf("%s wrote %.1f MB: %.0f bytes per envelope (%.1f KiB)\n", who, bytes / 1e6,
              bytes / per, bytes / per / 1024.0);
}

int run(int argc, char** argv) {
  double seconds = 10;
  int clients = 4;
  std::size_t per_request = 50;
  std::size_t pool = 60000;
  bool deliver = false;
  bool trace_syncs = false;
  CLI::App app(
      "Load benchmark for p2b-shuffler: envelopes per second, request latency and "
      "disk writes per envelope.",
      "shuffler_load");
  p2b::tools::add_common_flags(app);
  app.add_option("--seconds", seconds, "how long to post [10]")
      ->check(CLI::Range(0.001, 86400.0))
      ->type_name("S");
  app.add_option("--clients", clients, "client threads [4]")
      ->check(CLI::Range(1, 1024))
      ->type_name("C");
  app.add_option("--per-request", per_request, "envelopes per request [50]")
      ->check(CLI::Range(1, 100000))
      ->type_name("N");
  app.add_option("--pool", pool, "distinct envelopes sealed before the run [60000]")
      ->check(CLI::Range(1, 100000000))
      ->type_name("P");
  app.add_flag("--deliver", deliver,
               "also run p2b-analyzer, deliver every batch and report its writes");
  app.add_flag("--trace-syncs", trace_syncs,
               "count the shuffler's fdatasync calls and WAL bytes with strace (slows it)");
  const int parsed = p2b::tools::parse_command_line(app, argc, argv);
  if (parsed >= 0) return parsed;

  const p2b::bench::Deployment d(fs::temp_directory_path() / "p2b-shuffler-load");
  std::printf("sealing %zu envelopes...\n", pool);
  const std::vector<Envelope> envelopes = d.seal(pool, 2);

  p2b::proc::ServiceProcess analyzer, shuffler;
  std::string analyzer_url = "http://127.0.0.1:9";  // closed: nothing is delivered
  if (deliver) {
    analyzer.start(P2B_ANALYZER_BIN, d.analyzer_args(), d.path("analyzer.log"));
    analyzer_url = analyzer.url();
  }
  std::vector<std::string> args = d.shuffler_args(analyzer_url);
  for (const char* a :
       {"--batch-size", deliver ? "1000" : "1048576", "--batch-seconds", deliver ? "1" : "86400"}) {
    args.emplace_back(a);
  }
  shuffler.start(P2B_SHUFFLER_BIN, args, d.path("shuffler.log"));
  const long long shuffler_w0 = p2b::bench::write_bytes(shuffler.pid());
  const long long analyzer_w0 = deliver ? p2b::bench::write_bytes(analyzer.pid()) : 0;
  std::unique_ptr<p2b::bench::SyncTrace> trace;
  if (trace_syncs) {
    trace = std::make_unique<p2b::bench::SyncTrace>(shuffler.pid(), d.path("strace.log"));
  }

  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::vector<std::vector<double>> latencies(static_cast<std::size_t>(clients));
  std::vector<std::size_t> accepted(static_cast<std::size_t>(clients), 0);
  // When each client stopped: the pool may run out before --seconds.
  std::vector<std::chrono::steady_clock::time_point> finished(static_cast<std::size_t>(clients));
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(clients));
  const auto t0 = std::chrono::steady_clock::now();
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      httplib::Client cli("127.0.0.1", shuffler.port());
      cli.set_keep_alive(true);
      cli.set_tcp_nodelay(true);  // no Nagle stall between headers and body
      while (!stop) {
        const std::size_t first = next.fetch_add(per_request);
        if (first + per_request > envelopes.size()) break;
        std::string body;
        for (std::size_t i = first; i < first + per_request; ++i) {
          body.append(reinterpret_cast<const char*>(envelopes[i].data()), envelopes[i].size());
        }
        const auto s = std::chrono::steady_clock::now();
        const auto res = cli.Post("/v1/reports", body, "application/octet-stream");
        const auto e = std::chrono::steady_clock::now();
        if (!res || res->status != 202) break;
        latencies[static_cast<std::size_t>(c)].push_back(
            std::chrono::duration<double, std::milli>(e - s).count());
        accepted[static_cast<std::size_t>(c)] += per_request;
      }
      finished[static_cast<std::size_t>(c)] = std::chrono::steady_clock::now();
    });
  }
  const auto deadline = t0 + std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::duration<double>(seconds));
  while (std::chrono::steady_clock::now() < deadline && next < envelopes.size()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stop = true;
  for (auto& t : threads) t.join();
  const double elapsed =
      std::chrono::duration<double>(*std::max_element(finished.begin(), finished.end()) - t0)
          .count();

  std::vector<double> all;
  std::size_t total = 0;
  for (int c = 0; c < clients; ++c) {
    all.insert(all.end(), latencies[static_cast<std::size_t>(c)].begin(),
               latencies[static_cast<std::size_t>(c)].end());
    total += accepted[static_cast<std::size_t>(c)];
  }
  const long long ingest_writes = p2b::bench::write_bytes(shuffler.pid()) - shuffler_w0;
  // Checkpoints run off the request path, so give the last one a moment.
  if (trace) std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const p2b::bench::SyncCounts syncs = trace ? trace->stop() : p2b::bench::SyncCounts{};
  const double commits = p2b::bench::scrape(shuffler.port(), "p2b_shuffler_insert_commits_total");
  std::printf("clients %d, %zu envelopes per request, %.1f s\n", clients, per_request, elapsed);
  std::printf("accepted %zu envelopes: %.0f envelopes/s (%.0f requests/s)\n", total,
              static_cast<double>(total) / elapsed, static_cast<double>(all.size()) / elapsed);
  std::printf("request latency: p50 %.2f ms, p99 %.2f ms\n", percentile(all, 0.50),
              percentile(all, 0.99));
  std::printf("spool transactions: %.0f, %.1f requests each (group commit)\n", commits,
              static_cast<double>(all.size()) / std::max(commits, 1.0));
  const double per = static_cast<double>(std::max<std::size_t>(total, 1));
  print_writes("shuffler (ingest)", ingest_writes, per);
  if (trace) {
    std::printf("fdatasync+fsync: %lld, %.2f per request; WAL written: %.0f bytes per envelope\n",
                syncs.syncs,
                static_cast<double>(syncs.syncs) /
                    static_cast<double>(std::max<std::size_t>(all.size(), 1)),
                static_cast<double>(syncs.wal_bytes) / per);
  }
  if (deliver) {
    // Bounded wait for the spool to drain into the analyzer.
    const auto drain_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    double depth = -1;
    while (std::chrono::steady_clock::now() < drain_deadline) {
      depth = p2b::bench::scrape(shuffler.port(), "p2b_shuffler_spool_depth");
      if (depth == 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    const double applied =
        p2b::bench::scrape(analyzer.port(), "p2b_analyzer_records_applied_total");
    print_writes("shuffler (ingest + delivery)",
                 p2b::bench::write_bytes(shuffler.pid()) - shuffler_w0, per);
    std::printf("analyzer applied %.0f reports (spool depth %.0f)\n", applied, depth);
    print_writes("analyzer", p2b::bench::write_bytes(analyzer.pid()) - analyzer_w0,
                 std::max(applied, 1.0));
    if (depth != 0) std::printf("warning: the spool did not drain within 120 s\n");
  }
  shuffler.stop();
  analyzer.stop();
  fs::remove_all(d.dir());
  return total > 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "shuffler_load: error: %s\n", e.what());
    return 1;
  }
}
