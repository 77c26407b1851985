// Soak benchmark (not a test): a real p2b-shuffler delivering to a real
// p2b-analyzer for --duration seconds at the highest rate the pair sustains,
// sampling what could grow: each service's RSS, the size of its .db, -wal
// and -shm files, the spool depth, reports applied and bytes written. It
// writes soak.csv, draws soak.png (bench/plot_soak.py) and prints the growth
// of each quantity per million reports, a linear fit over the second half.
//
//   soak [--duration S] [--clients C] [--per-request N] [--pool P]
//        [--sample S] [--max-backlog R] [--out DIR]   (--help)
//
// The rate finds itself: closed-loop clients post as fast as they are
// answered, and pause while the spool holds more than --max-backlog
// records, so ingest cannot outrun delivery. Envelopes are sealed before
// the run (the device's cost, not the services') into DIR/pool.bin, which
// later runs with the same --pool reuse together with DIR/deployment.
#include <httplib.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_deployment.hpp"
#include "cli/tool_cli.hpp"
#include "envelope_pool.hpp"
#include "proc/run_command.hpp"
#include "proc/service_process.hpp"

namespace fs = std::filesystem;
using p2b::bench::Envelope;

namespace {

const char* const kColumns[] = {
    "seconds",      "reports_accepted", "reports_applied", "spool_depth",    "shuffler_rss",
    "analyzer_rss", "shuffler_db",      "shuffler_wal",    "shuffler_shm",   "analyzer_db",
    "analyzer_wal", "analyzer_shm",     "shuffler_writes", "analyzer_writes"};
constexpr std::size_t kColumnCount = sizeof kColumns / sizeof kColumns[0];
using Sample = std::array<double, kColumnCount>;

// Least-squares slope of y against x over the rows from `first` on.
double slope(const std::vector<Sample>& rows, std::size_t first, std::size_t x, std::size_t y) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = first; i < rows.size(); ++i) {
    n += 1;
    sx += rows[i][x];
    sy += rows[i][y];
    sxx += rows[i][x] * rows[i][x];
    sxy += rows[i][x] * rows[i][y];
  }
  const double den = n * sxx - sx * sx;
  return den > 0 ? (n * sxy - sx * sy) / den : 0.0;
}

int run(int argc, char** argv) {
  double duration = 600;
  double sample_every = 5;
  int clients = 8;
  std::size_t per_request = 10;
  std::size_t pool = 2000000;
  double max_backlog = 20000;
  std::string out_dir = "soak-out";
  CLI::App app(
      "Soak benchmark: p2b-shuffler and p2b-analyzer under sustained load, sampling "
      "memory, store files and writes.",
      "soak");
  p2b::tools::add_common_flags(app);
  app.add_option("--duration", duration, "seconds of load [600]")
      ->check(CLI::Range(1.0, 86400.0))
      ->type_name("S");
  app.add_option("--clients", clients, "closed-loop client threads [8]")
      ->check(CLI::Range(1, 256))
      ->type_name("C");
  app.add_option("--per-request", per_request, "envelopes per request [10]")
      ->check(CLI::Range(1, 10000))
      ->type_name("N");
  app.add_option("--pool", pool, "distinct envelopes sealed before the run [2000000]")
      ->check(CLI::Range(1000, 100000000))
      ->type_name("P");
  app.add_option("--sample", sample_every, "seconds between samples [5]")
      ->check(CLI::Range(0.5, 3600.0))
      ->type_name("S");
  app.add_option("--max-backlog", max_backlog, "clients pause above this spool depth [20000]")
      ->check(CLI::Range(1.0, 1e9))
      ->type_name("R");
  app.add_option("--out", out_dir, "directory for soak.csv, soak.png and the pool [soak-out]")
      ->type_name("DIR");
  const int parsed = p2b::tools::parse_command_line(app, argc, argv);
  if (parsed >= 0) return parsed;

  const fs::path out = fs::absolute(out_dir);
  fs::create_directories(out);
  const std::vector<Envelope> envelopes = p2b::bench::load_or_seal(out, pool);
  // Fresh stores every run, with the keys the pool was sealed for.
  const fs::path run_dir = out / "run";
  fs::remove_all(run_dir);
  fs::create_directories(run_dir);
  const fs::path dep = out / "deployment";
  auto in_run = [&](const char* name) { return (run_dir / name).string(); };

  p2b::proc::ServiceProcess analyzer, shuffler;
  analyzer.start(P2B_ANALYZER_BIN,
                 {"--listen", "127.0.0.1:0", "--keys", (dep / "keys").string(), "--store",
                  in_run("analyzer.db"), "--codebook", (dep / "codebook.p2bc").string(),
                  "--actions", std::to_string(p2b::bench::kActions), "--shuffler-key",
                  (dep / "keys/shuffler.sign.pk").string()},
                 in_run("analyzer.log"));
  shuffler.start(
      P2B_SHUFFLER_BIN,
      {"--listen", "127.0.0.1:0", "--keys", (dep / "keys").string(), "--spool",
       in_run("shuffler.db"), "--spool-key", (dep / "keys/shuffler.spool.key").string(),
       "--analyzer", analyzer.url(), "--analyzer-key", (dep / "keys/analyzer.sign.pk").string(),
       "--batch-size", "1000", "--batch-seconds", "1"},
      in_run("shuffler.log"));
  const long long shuffler_w0 = p2b::bench::write_bytes(shuffler.pid());
  const long long analyzer_w0 = p2b::bench::write_bytes(analyzer.pid());

  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> accepted{0};
  std::atomic<bool> stop{false};
  std::atomic<bool> paused{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(clients));
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&] {
      httplib::Client cli("127.0.0.1", shuffler.port());
      cli.set_keep_alive(true);
      cli.set_tcp_nodelay(true);
      while (!stop) {
        if (paused) {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
          continue;
        }
        const std::size_t first = next.fetch_add(per_request);
        if (first + per_request > envelopes.size()) break;
        std::string body;
        for (std::size_t i = first; i < first + per_request; ++i) {
          body.append(reinterpret_cast<const char*>(envelopes[i].data()), envelopes[i].size());
        }
        const auto res = cli.Post("/v1/reports", body, "application/octet-stream");
        if (res && res->status == 202) {
          accepted += per_request;
        } else {
          ++failures;
        }
      }
    });
  }

  std::vector<Sample> rows;
  std::ofstream csv(out / "soak.csv");
  for (std::size_t i = 0; i < kColumnCount; ++i) csv << (i ? "," : "") << kColumns[i];
  csv << "\n";
  const auto t0 = std::chrono::steady_clock::now();
  auto take_sample = [&] {
    Sample s{};
    s[0] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    s[1] = static_cast<double>(accepted.load());
    s[2] = p2b::bench::scrape(analyzer.port(), "p2b_analyzer_records_applied_total");
    s[3] = p2b::bench::scrape(shuffler.port(), "p2b_shuffler_spool_depth");
    s[4] = 1024.0 * static_cast<double>(p2b::bench::rss_kib(shuffler.pid()));
    s[5] = 1024.0 * static_cast<double>(p2b::bench::rss_kib(analyzer.pid()));
    std::size_t col = 6;
    for (const char* db : {"shuffler.db", "analyzer.db"}) {
      for (const char* suffix : {"", "-wal", "-shm"}) {
        s[col++] = static_cast<double>(p2b::bench::file_bytes(in_run(db) + suffix));
      }
    }
    s[12] = static_cast<double>(p2b::bench::write_bytes(shuffler.pid()) - shuffler_w0);
    s[13] = static_cast<double>(p2b::bench::write_bytes(analyzer.pid()) - analyzer_w0);
    rows.push_back(s);
    for (std::size_t i = 0; i < kColumnCount; ++i) csv << (i ? "," : "") << std::fixed << s[i];
    csv << "\n" << std::flush;
    std::printf("%6.0f s  accepted %9.0f  applied %9.0f  depth %6.0f  RSS %.0f/%.0f MB\n", s[0],
                s[1], s[2], s[3], s[4] / 1e6, s[5] / 1e6);
    std::fflush(stdout);
  };

  const auto end = t0 + std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::duration<double>(duration));
  auto next_sample = t0;
  bool exhausted = false;
  while (std::chrono::steady_clock::now() < end) {
    const double depth = p2b::bench::scrape(shuffler.port(), "p2b_shuffler_spool_depth");
    paused = depth < 0 || depth > max_backlog;
    if (std::chrono::steady_clock::now() >= next_sample) {
      take_sample();
      next_sample += std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::duration<double>(sample_every));
    }
    if (next.load() >= envelopes.size()) {
      exhausted = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  stop = true;
  for (auto& t : threads) t.join();
  const double load_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // The last sample once the spool has drained (at most 60 s), so that
  // applied and the store sizes are settled.
  for (int i = 0; i < 240; ++i) {
    if (p2b::bench::scrape(shuffler.port(), "p2b_shuffler_spool_depth") == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  take_sample();
  shuffler.stop();
  analyzer.stop();

  const std::size_t half = rows.size() / 2;
  const Sample& last = rows.back();
  std::printf(
      "\n%.0f s of load, %d clients x %zu envelopes: %.0f reports accepted (%.0f/s), "
      "%.0f applied after the spool drained, %d failed requests%s\n",
      load_seconds, clients, per_request, last[1], last[1] / load_seconds, last[2], failures.load(),
      exhausted ? "; the pool ran out (raise --pool)" : "");
  std::printf("writes per report accepted: shuffler %.0f bytes, analyzer %.0f bytes\n",
              last[12] / std::max(last[1], 1.0), last[13] / std::max(last[1], 1.0));
  std::printf(
      "growth per million reports accepted (linear fit over the second half, %zu "
      "samples):\n",
      rows.size() - half);
  for (std::size_t y = 2; y < kColumnCount; ++y) {
    // Columns 2 and 3 count reports; the others are bytes, shown in MB.
    const double unit = y <= 3 ? 1.0 : 1e6;
    std::printf("  %-16s %12.1f%s at the end, %+12.1f%s per 1M reports\n", kColumns[y],
                last[y] / unit, y <= 3 ? "   " : " MB", 1e6 * slope(rows, half, 1, y) / unit,
                y <= 3 ? "   " : " MB");
  }
  csv.close();
  std::fflush(stdout);  // before the plotter's own output
  const fs::path plot = fs::path(P2B_SOURCE_DIR) / "bench/plot_soak.py";
  if (p2b::proc::run_command({"/usr/bin/python3", plot.string(), (out / "soak.csv").string(),
                              (out / "soak.png").string()}) != 0) {
    std::printf("(no plot: %s failed)\n", plot.c_str());
  }
  std::printf("wrote %s and %s\n", (out / "soak.csv").c_str(), (out / "soak.png").c_str());
  return failures.load() == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "soak: error: %s\n", e.what());
    return 1;
  }
}
