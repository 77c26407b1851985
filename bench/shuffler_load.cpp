// Load benchmark for p2b-shuffler (not a test): sustained envelopes per
// second on loopback with durability on (SQLite WAL, synchronous=FULL, a
// commit before every 202), and the p50/p99 latency of a request.
//
//   shuffler_load [--seconds S] [--clients C] [--per-request N]   (--help)
//
// Each client thread posts requests of N distinct, valid envelopes as fast as
// it gets answers. The analyzer URL points at a closed port, so batches stay
// in the spool: ingest is measured alone.
#include <httplib.h>
#include <sodium.h>

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

#include "../ports/posix/sodium_port.hpp"
#include "cli/tool_cli.hpp"
#include "p2b/envelope.hpp"
#include "proc/service_process.hpp"

namespace fs = std::filesystem;

namespace {

struct Keys {
  uint8_t shuffler_pk[32], shuffler_sk[32], analyzer_pk[32], analyzer_sk[32];
  uint8_t shuffler_fp[16], analyzer_fp[16];
};

void write_file(const fs::path& p, const uint8_t* d, std::size_t n, fs::perms mode) {
  std::ofstream(p, std::ios::binary)
      .write(reinterpret_cast<const char*>(d), static_cast<std::streamsize>(n));
  fs::permissions(p, mode);
}

// Pre-seals `n` distinct envelopes: sealing is the device's cost, not the
// shuffler's, so it stays out of the measurement.
std::vector<std::string> make_envelopes(const Keys& k, std::size_t n) {
  const p2b::CryptoPort port = p2b::port::sodium_crypto();
  const p2b::SealingKeys keys{k.shuffler_pk, k.shuffler_fp, k.analyzer_pk, k.analyzer_fp};
  std::vector<std::string> out;
  out.reserve(n);
  std::array<uint8_t, p2b::kEnvelopeBytes> e{};
  for (std::size_t i = 0; i < n; ++i) {
    const p2b::TupleToSeal t{static_cast<uint32_t>(i % 1024), static_cast<uint32_t>(i % 10), 1.0F,
                             0};
    if (p2b::seal_envelope(port, keys, t, e.data()) != p2b::Status::ok) std::abort();
    out.emplace_back(reinterpret_cast<const char*>(e.data()), e.size());
  }
  return out;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

int run(int argc, char** argv) {
  double seconds = 10;
  int clients = 4;
  std::size_t per_request = 50;
  CLI::App app("Load benchmark for p2b-shuffler: envelopes per second and request latency.",
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
  const int parsed = p2b::tools::parse_command_line(app, argc, argv);
  if (parsed >= 0) return parsed;
  if (sodium_init() < 0) return 1;

  const fs::path dir = fs::temp_directory_path() / "p2b-shuffler-load";
  fs::remove_all(dir);
  fs::create_directories(dir / "keys");
  Keys k{};
  crypto_box_keypair(k.shuffler_pk, k.shuffler_sk);
  crypto_box_keypair(k.analyzer_pk, k.analyzer_sk);
  crypto_generichash(k.shuffler_fp, 16, k.shuffler_pk, 32, nullptr, 0);
  crypto_generichash(k.analyzer_fp, 16, k.analyzer_pk, 32, nullptr, 0);
  write_file(dir / "keys/shuffler.box.pk", k.shuffler_pk, 32, fs::perms(0644));
  write_file(dir / "keys/shuffler.box.sk", k.shuffler_sk, 32, fs::perms(0600));
  // The batch-signing pair and a pinned analyzer key: the shuffler needs
  // both to start, though no batch is delivered here.
  uint8_t sign_pk[crypto_sign_PUBLICKEYBYTES], sign_sk[crypto_sign_SECRETKEYBYTES];
  crypto_sign_keypair(sign_pk, sign_sk);
  write_file(dir / "keys/shuffler.sign.pk", sign_pk, sizeof sign_pk, fs::perms(0644));
  write_file(dir / "keys/shuffler.sign.sk", sign_sk, sizeof sign_sk, fs::perms(0600));
  crypto_sign_keypair(sign_pk, sign_sk);
  write_file(dir / "keys/analyzer.sign.pk", sign_pk, sizeof sign_pk, fs::perms(0644));
  sodium_memzero(sign_sk, sizeof sign_sk);

  // Enough distinct envelopes that no request is a replay.
  const std::size_t pool = 60000;
  std::printf("sealing %zu envelopes...\n", pool);
  const std::vector<std::string> envelopes = make_envelopes(k, pool);

  p2b::proc::ServiceProcess shuffler;
  shuffler.start(P2B_SHUFFLER_BIN,
                 {"--listen", "127.0.0.1:0", "--keys", (dir / "keys").string(), "--spool",
                  (dir / "spool.db").string(), "--analyzer", "http://127.0.0.1:9", "--analyzer-key",
                  (dir / "keys/analyzer.sign.pk").string(), "--batch-size", "1048576",
                  "--batch-seconds", "86400"},
                 (dir / "shuffler.log").string());

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
        for (std::size_t i = first; i < first + per_request; ++i) body += envelopes[i];
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
  shuffler.stop();

  std::vector<double> all;
  std::size_t total = 0;
  for (int c = 0; c < clients; ++c) {
    all.insert(all.end(), latencies[static_cast<std::size_t>(c)].begin(),
               latencies[static_cast<std::size_t>(c)].end());
    total += accepted[static_cast<std::size_t>(c)];
  }
  std::printf("clients %d, %zu envelopes per request, %.1f s\n", clients, per_request, elapsed);
  std::printf("accepted %zu envelopes: %.0f envelopes/s (%.0f requests/s)\n", total,
              static_cast<double>(total) / elapsed, static_cast<double>(all.size()) / elapsed);
  std::printf("request latency: p50 %.2f ms, p99 %.2f ms\n", percentile(all, 0.50),
              percentile(all, 0.99));
  fs::remove_all(dir);
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
