// Shared fixtures for the analyzer's tests: a deployment (codebook and keys
// as a device would have them), sealed inner records, batches and an
// analyzer over a throw-away SQLite file.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>
#include <sodium.h>
#include <stdlib.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "analyzer.hpp"
#include "batch_opener.hpp"
#include "http_api.hpp"
#include "p2b/codebook_format.hpp"
#include "p2b/envelope.hpp"
#include "sqlite_store.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"
#include "wire/batch_format.hpp"
#include "wire/envelope_open.hpp"

namespace analyzer_test {

namespace an = p2b::analyzer;

using TempDir = p2b_test::TempDir;

// The codebook and keys one test deployment shares with its devices. The
// codebook equals the one p2b_test::make_agent gives an agent (seed 7, q = 1),
// so such an agent accepts this analyzer's models.
struct Deployment {
  uint32_t dim, n_codes;
  std::vector<float> centroids;
  std::vector<uint8_t> codebook_file;
  an::Codebook codebook;
  p2b::server::BoxKey shuffler{}, analyzer{};

  Deployment(uint32_t d, uint32_t k) : dim(d), n_codes(k) {
    const auto& keys = p2b_test::test_keys();  // also starts libsodium
    centroids = p2b_test::random_codebook(k, d, 7);
    const p2b::CryptoPort port = p2b_test::sodium_port();
    std::size_t size = 0;
    if (p2b::encoded_codebook_size(centroids.data(), k, d, 1, &size) != p2b::Status::ok) {
      std::abort();
    }
    codebook_file.resize(size);
    std::size_t written = 0;
    if (p2b::encode_codebook(port, centroids.data(), k, d, 1, codebook_file.data(), size,
                             &written) != p2b::Status::ok) {
      std::abort();
    }
    codebook = an::parse_codebook_bytes(codebook_file.data(), codebook_file.size());
    p2b::server::make_box_key(keys.shuffler_pk, keys.shuffler_sk, &shuffler);
    p2b::server::make_box_key(keys.analyzer_pk, keys.analyzer_sk, &analyzer);
  }

  an::KeyRing key_ring() const {
    return an::KeyRing::from_keys({analyzer}, p2b_test::test_keys().sign_sk);
  }

  // The pinned shuffler key the test batches are signed with.
  static p2b::server::VerifyKey shuffler_verify_key() {
    p2b::server::VerifyKey k{};
    if (!p2b::server::make_verify_key(p2b_test::test_keys().shuffler_verify_pk, &k)) std::abort();
    return k;
  }

  // What the shuffler forwards for one report: the device's own sealing,
  // then the outer layer opened. `to` is the analyzer key sealed to.
  p2b::server::InnerCiphertext inner(uint32_t code, uint32_t action, float reward,
                                     const p2b::server::BoxKey* to = nullptr) const {
    const p2b::server::BoxKey& a = to != nullptr ? *to : analyzer;
    const p2b::SealingKeys keys{shuffler.pk, shuffler.fp, a.pk, a.fp};
    uint8_t env[p2b::kEnvelopeBytes];
    const p2b::CryptoPort port = p2b_test::sodium_port();
    if (p2b::seal_envelope(port, keys, {code, action, reward, 0}, env) != p2b::Status::ok) {
      std::abort();
    }
    p2b::server::OuterOpened outer{};
    if (p2b::server::open_outer(env, sizeof env, &shuffler, 1, &outer) !=
        p2b::server::OpenStatus::ok) {
      std::abort();
    }
    p2b::server::InnerCiphertext out{};
    std::copy(outer.inner, outer.inner + sizeof outer.inner, out.begin());
    return out;
  }

  // One batch record as an honest shuffler forwards it: crowd id = code.
  p2b::server::BatchRecord record(uint32_t code, uint32_t action, float reward,
                                  const p2b::server::BoxKey* to = nullptr) const {
    return {code, inner(code, action, reward, to)};
  }
};

struct Tuple {
  uint32_t code;
  uint32_t action;
  float reward;
};

// The crowd threshold the tests' analyzers apply unless a test says
// otherwise (settings() below), and so the one their batches carry.
constexpr std::size_t kTestThreshold = 1;

// A batch as a shuffler with --threshold kTestThreshold (no noise) signs it.
inline p2b::server::Batch make_batch(const Deployment& dep, const std::vector<Tuple>& tuples) {
  p2b::server::Batch b;
  randombytes_buf(b.id.data(), b.id.size());
  b.thresholds = {kTestThreshold, 0};
  b.records.reserve(tuples.size());
  for (const Tuple& t : tuples) b.records.push_back(dep.record(t.code, t.action, t.reward));
  return b;
}

// The batch as the shuffler sends it: signed with the test shuffler key.
inline std::vector<uint8_t> signed_bytes(const p2b::server::Batch& b,
                                         const uint8_t* sign_sk = nullptr) {
  return p2b::server::encode_signed_batch(
      b, sign_sk != nullptr ? sign_sk : p2b_test::test_keys().shuffler_sign_sk);
}

inline an::BatchOutcome apply(an::Analyzer& analyzer, const p2b::server::Batch& b) {
  return analyzer.receive_batch(signed_bytes(b));
}

// Settings that pin the test shuffler key and, unless a test says otherwise,
// apply every crowd (l = 1), as the tests' small batches need.
inline an::AnalyzerSettings settings(uint32_t actions, std::size_t threshold = kTestThreshold) {
  an::AnalyzerSettings s;
  s.n_actions = actions;
  s.shuffler_keys = {Deployment::shuffler_verify_key()};
  s.threshold = threshold;
  return s;
}

inline std::vector<Tuple> random_tuples(std::mt19937_64& rng, int n, uint32_t codes,
                                        uint32_t actions) {
  std::vector<Tuple> out;
  out.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    // Rewards on a quarter grid: exact in float, and not only 0 and 1.
    out.push_back({static_cast<uint32_t>(rng() % codes), static_cast<uint32_t>(rng() % actions),
                   static_cast<float>(rng() % 5) / 4.0F});
  }
  return out;
}

// The statistics MAC keys of the test signing key (stats_mac.hpp).
inline an::StatsMacKeys test_mac_keys() {
  return an::StatsMacKeys::from_sign_keys({p2b_test::test_keys().sign_sk});
}

// A store as the analyzer opens it, MACed under the test signing key.
inline std::unique_ptr<an::SqliteModelStore> open_store(const std::string& path) {
  return std::make_unique<an::SqliteModelStore>(path, test_mac_keys());
}

// An analyzer with its store, metrics and a captured log.
struct Harness {
  std::ostringstream log_text;
  an::Logger log{&log_text};
  an::Metrics metrics;
  std::unique_ptr<an::SqliteModelStore> store;
  std::unique_ptr<an::Analyzer> analyzer;

  Harness(const Deployment& dep, const std::string& db, uint32_t actions,
          an::AggregationMode mode = an::AggregationMode::centroid, bool raw = false,
          double lambda = 1.0, uint64_t min_reports = 0, std::size_t threshold = kTestThreshold,
          an::CentralDpConfig central_dp = {}) {
    store = open_store(db);
    an::AnalyzerSettings s = settings(actions, threshold);
    s.central_dp = central_dp;
    s.mode = mode;
    s.lambda = lambda;
    s.raw_enabled = raw;
    s.min_reports = min_reports;
    s.clock = [] { return uint64_t{1795000000}; };
    analyzer = std::make_unique<an::Analyzer>(std::move(s), dep.codebook, dep.key_ring(),
                                              store.get(), &metrics, &log);
  }
};

// A = lambda I + sum x x^T and b = sum r x, straight from the definition.
struct Direct {
  uint32_t dim, actions;
  std::vector<double> a, b;
  Direct(uint32_t d, uint32_t k, double lambda)
      : dim(d), actions(k), a(static_cast<size_t>(k) * d * d, 0.0), b(static_cast<size_t>(k) * d) {
    for (uint32_t arm = 0; arm < k; ++arm) {
      for (uint32_t i = 0; i < d; ++i) a[(static_cast<size_t>(arm) * d + i) * d + i] = lambda;
    }
  }
  void add(uint32_t arm, const std::vector<double>& x, double r) {
    for (uint32_t i = 0; i < dim; ++i) {
      for (uint32_t j = 0; j < dim; ++j)
        a[(static_cast<size_t>(arm) * dim + j) * dim + i] += x[i] * x[j];
      b[static_cast<size_t>(arm) * dim + i] += r * x[i];
    }
  }
};

inline std::vector<double> centroid(const Deployment& dep, uint32_t code) {
  std::vector<double> x(dep.dim);
  for (uint32_t i = 0; i < dep.dim; ++i)
    x[i] = dep.centroids[static_cast<size_t>(code) * dep.dim + i];
  return x;
}

// A harness's analyzer served on 127.0.0.1:<free port> by a background thread.
class Served {
 public:
  explicit Served(Harness* h,
                  std::size_t max_body =
                      p2b::analyzer::batch_request_bytes(p2b::analyzer::kDefaultMaxBatchRecords),
                  std::size_t max_records = p2b::analyzer::kDefaultMaxBatchRecords) {
    p2b::analyzer::install_routes(&server_, h->analyzer.get(), &h->metrics, &h->log, max_body,
                                  max_records);
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ <= 0) std::abort();
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~Served() {
    server_.stop();
    thread_.join();
  }
  Served(const Served&) = delete;
  Served& operator=(const Served&) = delete;
  httplib::Client client() const { return httplib::Client("127.0.0.1", port_); }
  int port() const { return port_; }
  httplib::Result post(const std::vector<uint8_t>& body) const {
    return client().Post("/v1/batches", std::string(body.begin(), body.end()),
                         "application/octet-stream");
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace analyzer_test
