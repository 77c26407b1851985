// Does serving the model slow down batch application? Applies signed
// batches to an in-process analyzer (SQLite store, HTTP routes on loopback
// as p2b-analyzer serves them, log to a file) and prints the p50, p99 and
// max of Analyzer::receive_batch, first alone, then while `downloaders`
// threads fetch GET /v1/model in a loop over keep-alive connections, at
// `rate` downloads a second in all (0: as fast as they can). A fixed rate
// gives the same CPU load to the builds compared, so what differs is the
// waiting. docs/benchmarks.md has the figures.
//
//   model_serving [downloaders=8] [batches=200] [records=200] [rate=0]
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "analyzer_test_support.hpp"
#include "common/bounded_server.hpp"
#include "http_api.hpp"

namespace {

namespace an = p2b::analyzer;
using Clock = std::chrono::steady_clock;

constexpr uint32_t kDim = 32;
constexpr uint32_t kCodes = 64;
constexpr uint32_t kActions = 10;

struct Figures {
  double p50_ms, p99_ms, max_ms;
};

Figures figures(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  const auto at = [&ms](double q) {
    return ms[std::min(ms.size() - 1,
                       static_cast<std::size_t>(q * static_cast<double>(ms.size())))];
  };
  return {at(0.50), at(0.99), ms.back()};
}

std::vector<double> apply_all(an::Analyzer& analyzer, const std::vector<std::vector<uint8_t>>& bs,
                              std::size_t from, std::size_t n) {
  std::vector<double> ms;
  ms.reserve(n);
  for (std::size_t i = from; i < from + n; ++i) {
    const auto start = Clock::now();
    const an::BatchOutcome out = analyzer.receive_batch(bs[i]);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    if (out.result != an::BatchResult::applied) std::fprintf(stderr, "batch %zu not applied\n", i);
  }
  return ms;
}

void print(const char* what, const Figures& f) {
  std::printf("%-28s p50 %7.2f ms   p99 %7.2f ms   max %7.2f ms\n", what, f.p50_ms, f.p99_ms,
              f.max_ms);
}

}  // namespace

int main(int argc, char** argv) {
  const int downloaders = argc > 1 ? std::stoi(argv[1]) : 8;
  const std::size_t batches = argc > 2 ? std::stoul(argv[2]) : 200;
  const int records = argc > 3 ? std::stoi(argv[3]) : 200;
  const double rate = argc > 4 ? std::stod(argv[4]) : 0;

  const analyzer_test::Deployment dep(kDim, kCodes);
  const analyzer_test::TempDir tmp;
  std::ofstream log_file(tmp.file("analyzer.log"));
  an::Logger log(&log_file);
  an::Metrics metrics;
  const std::unique_ptr<an::SqliteModelStore> store =
      analyzer_test::open_store(tmp.file("analyzer.db"));
  an::Analyzer analyzer(analyzer_test::settings(kActions), dep.codebook, dep.key_ring(),
                        store.get(), &metrics, &log);

  // Sealed up front: the timed loop is the analyzer's work only.
  std::mt19937_64 rng(1);
  std::vector<std::vector<uint8_t>> signed_batches;
  for (std::size_t i = 0; i < 2 * batches + 1; ++i) {
    signed_batches.push_back(analyzer_test::signed_bytes(analyzer_test::make_batch(
        dep, analyzer_test::random_tuples(rng, records, kCodes, kActions))));
  }
  analyzer.receive_batch(signed_batches.back());  // a first model to serve

  p2b::common::HttpCounters counters;
  p2b::common::HttpLimits limits;
  p2b::common::BoundedServer server(limits, counters);
  an::install_routes(&server, &analyzer, &metrics, &log);
  const int port = server.bind("127.0.0.1", 0);
  if (port <= 0) return 1;
  std::thread serving([&server] { server.listen_after_bind(); });

  const Figures alone = figures(apply_all(analyzer, signed_batches, 0, batches));

  std::atomic<bool> stop{false};
  std::atomic<uint64_t> downloads{0}, bytes{0}, failures{0};
  std::vector<std::thread> clients;
  clients.reserve(static_cast<std::size_t>(downloaders));
  std::vector<std::vector<double>> download_ms(static_cast<std::size_t>(downloaders));
  std::atomic<bool> measuring{false};
  const auto period = std::chrono::duration<double>(rate > 0 ? downloaders / rate : 0);
  for (int i = 0; i < downloaders; ++i) {
    clients.emplace_back([&, i] {
      httplib::Client cli("127.0.0.1", port);
      cli.set_keep_alive(true);
      auto next = Clock::now();
      while (!stop) {
        const auto sent = Clock::now();
        const auto res = cli.Get("/v1/model");
        if (measuring) {
          download_ms[static_cast<std::size_t>(i)].push_back(
              std::chrono::duration<double, std::milli>(Clock::now() - sent).count());
        }
        if (res && res->status == 200) {
          downloads.fetch_add(1);
          bytes.fetch_add(res->body.size());
        } else {
          failures.fetch_add(1);
        }
        next += std::chrono::duration_cast<Clock::duration>(period);
        if (rate > 0) std::this_thread::sleep_until(next);
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const uint64_t before = downloads.load();
  const auto start = Clock::now();
  measuring = true;
  const Figures loaded = figures(apply_all(analyzer, signed_batches, batches, batches));
  measuring = false;
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const uint64_t during = downloads.load() - before;
  stop = true;
  for (std::thread& t : clients) t.join();
  server.stop();
  serving.join();

  std::printf(
      "model_serving: %zu batches of %d records each phase, dim %u, %u actions, "
      "bundle %.1f KiB\n",
      batches, records, kDim, kActions,
      static_cast<double>(bytes.load()) /
          static_cast<double>(std::max<uint64_t>(1, downloads.load())) / 1024.0);
  print("batch application, alone", alone);
  print("with downloads", loaded);
  std::vector<double> all_downloads;
  for (const std::vector<double>& d : download_ms) {
    all_downloads.insert(all_downloads.end(), d.begin(), d.end());
  }
  if (!all_downloads.empty()) print("download, during batches", figures(all_downloads));
  std::printf("%-28s %d threads, %.0f downloads/s, %llu failed\n", "downloads", downloaders,
              static_cast<double>(during) / seconds,
              static_cast<unsigned long long>(failures.load()));
  std::printf("p99 ratio (with / alone)     %.2f\n", loaded.p99_ms / alone.p99_ms);
  return 0;
}
