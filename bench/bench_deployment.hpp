// Shared by the service benchmarks (shuffler_load, soak): a deployment on
// disk (key files as p2b-keygen writes them and a codebook), envelopes
// sealed by the device's own code, and what /proc says about a process.
#pragma once

#include <httplib.h>
#include <sodium.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../ports/posix/sodium_port.hpp"
#include "p2b/codebook_format.hpp"
#include "p2b/envelope.hpp"
#include "proc/metrics.hpp"

namespace p2b::bench {

namespace fs = std::filesystem;

// Small enough that every crowd passes the shuffler's default threshold of
// 10 in a batch of 1000, and every code is one the analyzer's codebook has.
constexpr uint32_t kCodes = 16;
constexpr uint32_t kDim = 10;
constexpr uint32_t kActions = 10;

using Envelope = std::array<uint8_t, kEnvelopeBytes>;

inline void write_file(const fs::path& p, const uint8_t* d, std::size_t n, fs::perms mode) {
  std::ofstream(p, std::ios::binary)
      .write(reinterpret_cast<const char*>(d), static_cast<std::streamsize>(n));
  fs::permissions(p, mode);
}

// Fresh keys and a random codebook under `dir` (which is emptied first).
class Deployment {
 public:
  explicit Deployment(fs::path dir) : dir_(std::move(dir)) {
    if (sodium_init() < 0) std::abort();
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "keys");
    box_pair("shuffler", shuffler_pk_.data(), shuffler_fp_.data());
    box_pair("analyzer", analyzer_pk_.data(), analyzer_fp_.data());
    sign_pair("shuffler");
    sign_pair("analyzer");
    write_codebook();
    // The shuffler's spool key, outside the spool's own directory.
    fs::create_directories(dir_ / "spool");
    uint8_t spool_key[32];
    randombytes_buf(spool_key, sizeof spool_key);
    write_file(dir_ / "keys" / "shuffler.spool.key", spool_key, sizeof spool_key, fs::perms(0600));
    sodium_memzero(spool_key, sizeof spool_key);
  }

  const fs::path& dir() const { return dir_; }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Distinct envelopes for crowds 0..kCodes-1, sealed on `threads` threads:
  // sealing is the device's cost, so it stays out of every measurement.
  std::vector<Envelope> seal(std::size_t n, unsigned threads) const {
    std::vector<Envelope> out(n);
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        const CryptoPort port = port::sodium_crypto();
        const SealingKeys keys{shuffler_pk_.data(), shuffler_fp_.data(), analyzer_pk_.data(),
                               analyzer_fp_.data()};
        for (std::size_t i = t; i < n; i += threads) {
          const TupleToSeal tuple{static_cast<uint32_t>(i % kCodes),
                                  static_cast<uint32_t>(i % kActions), (i % 3) == 0 ? 1.0F : 0.0F,
                                  0};
          if (seal_envelope(port, keys, tuple, out[i].data()) != Status::ok) std::abort();
        }
      });
    }
    for (auto& th : pool) th.join();
    return out;
  }

  std::vector<std::string> shuffler_args(const std::string& analyzer_url) const {
    return {"--listen",       "127.0.0.1:0",
            "--keys",         path("keys"),
            "--spool",        path("spool/shuffler.db"),
            "--spool-key",    path("keys/shuffler.spool.key"),
            "--analyzer",     analyzer_url,
            "--analyzer-key", path("keys/analyzer.sign.pk")};
  }
  std::vector<std::string> analyzer_args() const {
    return {"--listen",       "127.0.0.1:0",
            "--keys",         path("keys"),
            "--store",        path("analyzer.db"),
            "--codebook",     path("codebook.p2bc"),
            "--actions",      std::to_string(kActions),
            "--shuffler-key", path("keys/shuffler.sign.pk")};
  }

 private:
  void box_pair(const std::string& who, uint8_t* pk, uint8_t* fp) {
    uint8_t sk[crypto_box_SECRETKEYBYTES];
    crypto_box_keypair(pk, sk);
    crypto_generichash(fp, kFingerprintBytes, pk, crypto_box_PUBLICKEYBYTES, nullptr, 0);
    write_file(dir_ / "keys" / (who + ".box.pk"), pk, crypto_box_PUBLICKEYBYTES, fs::perms(0644));
    write_file(dir_ / "keys" / (who + ".box.sk"), sk, sizeof sk, fs::perms(0600));
    sodium_memzero(sk, sizeof sk);
  }
  void sign_pair(const std::string& who) {
    uint8_t pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
    crypto_sign_keypair(pk, sk);
    write_file(dir_ / "keys" / (who + ".sign.pk"), pk, sizeof pk, fs::perms(0644));
    write_file(dir_ / "keys" / (who + ".sign.sk"), sk, sizeof sk, fs::perms(0600));
    sodium_memzero(sk, sizeof sk);
  }
  // Random points on the simplex, as the tests' codebooks.
  void write_codebook() {
    std::mt19937_64 rng(3);
    std::exponential_distribution<double> exp1(1.0);
    std::vector<float> c;
    c.reserve(static_cast<std::size_t>(kCodes) * kDim);
    for (uint32_t i = 0; i < kCodes; ++i) {
      std::array<double, kDim> e{};
      double sum = 0;
      for (double& v : e) sum += (v = exp1(rng));
      for (double v : e) c.push_back(static_cast<float>(v / sum));
    }
    const CryptoPort port = port::sodium_crypto();
    std::size_t n = 0;
    if (encoded_codebook_size(c.data(), kCodes, kDim, 1, &n) != Status::ok) std::abort();
    std::vector<uint8_t> bytes(n);
    if (encode_codebook(port, c.data(), kCodes, kDim, 1, bytes.data(), n, &n) != Status::ok) {
      std::abort();
    }
    write_file(dir_ / "codebook.p2bc", bytes.data(), n, fs::perms(0644));
  }

  fs::path dir_;
  std::array<uint8_t, crypto_box_PUBLICKEYBYTES> shuffler_pk_{}, analyzer_pk_{};
  std::array<uint8_t, kFingerprintBytes> shuffler_fp_{}, analyzer_fp_{};
};

// One "key: value" field of a /proc file, as a number; -1 if absent.
inline long long proc_field(const std::string& file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size() + 1, key + ":") == 0) {
      return std::atoll(line.c_str() + key.size() + 1);
    }
  }
  return -1;
}

// Bytes the process caused to be sent to storage (page-cache pages it
// dirtied, so WAL appends, checkpoints and the -shm all count).
inline long long write_bytes(int pid) {
  return proc_field("/proc/" + std::to_string(pid) + "/io", "write_bytes");
}

inline long long rss_kib(int pid) {
  return proc_field("/proc/" + std::to_string(pid) + "/status", "VmRSS");
}

inline long long file_bytes(const std::string& path) {
  std::error_code ec;
  const auto n = fs::file_size(path, ec);
  return ec ? 0 : static_cast<long long>(n);
}

// A metric of a running service on loopback; -1 when it cannot be read.
inline double scrape(int port, const std::string& name) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_read_timeout(5, 0);
  const auto res = cli.Get("/metrics");
  return res && res->status == 200 ? proc::metric_value(res->body, name) : -1.0;
}

}  // namespace p2b::bench
