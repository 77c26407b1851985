// What every real-process test of the services shares: a deployment on disk
// (key files as p2b-keygen writes them, a codebook, the two stores), sealed
// envelopes, HTTP helpers and a stand-in analyzer. Every wait is bounded.
#pragma once

#include <httplib.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "p2b.h"
#include "p2b/envelope.hpp"
#include "proc/service_process.hpp"
#include "wire/batch_format.hpp"

namespace p2b_services {

namespace fs = std::filesystem;

constexpr uint32_t kDim = 10;
constexpr uint32_t kActions = 10;
constexpr uint32_t kCodes = 16;

using Envelope = std::array<uint8_t, P2B_ENVELOPE_BYTES>;

class Deployment {
 public:
  // A fresh directory P2B_TEST_TMP/name with the test keys and a codebook.
  explicit Deployment(const std::string& name);

  // The analyzer applies l again to valid reports; 1 keeps every crowd the
  // shuffler released, as the tests of crashes and replays need. `extra` is
  // appended to the command line.
  void start_analyzer(uint32_t threshold = 1, int port = 0,
                      const std::vector<std::string>& extra = {});
  std::vector<std::string> analyzer_args(uint32_t threshold = 1, int port = 0) const;
  // `analyzer_url` may name a port nobody listens on yet.
  void start_shuffler(uint32_t threshold, const std::string& analyzer_url,
                      const std::string& batch_seconds = "1",
                      const std::vector<std::string>& extra = {});
  std::vector<std::string> shuffler_args(uint32_t threshold, const std::string& analyzer_url,
                                         const std::string& batch_seconds = "1") const;

  p2b::proc::ServiceProcess& shuffler() { return shuffler_; }
  p2b::proc::ServiceProcess& analyzer() { return analyzer_; }
  const fs::path& dir() const { return dir_; }
  fs::path spool_path() const { return dir_ / "shuffler.db"; }
  // The spool's key (--spool-key), beside the deployment's directory, not
  // in it: the shuffler refuses a key inside its spool's directory.
  fs::path spool_key_path() const { return dir_.string() + ".spool.key"; }
  fs::path store_path() const { return dir_ / "analyzer.db"; }
  // The codebook the deployment's codebook.p2bc holds.
  const std::vector<float>& codebook() const { return codebook_; }

  static void write_file(const fs::path& p, const uint8_t* data, std::size_t n, int mode);

 private:
  fs::path dir_;
  std::vector<float> codebook_;
  p2b::proc::ServiceProcess shuffler_, analyzer_;
};

// An envelope sealed to the test keys.
Envelope seal(uint32_t code, uint32_t action, float reward);
// n distinct envelopes over codes 0..kCodes-1 (actions i % kActions), so a
// threshold of 1 keeps all.
std::vector<Envelope> envelopes(std::size_t n);
// The action envelopes(n)[i] carries.
inline uint32_t action_of_index(std::size_t i) {
  return static_cast<uint32_t>(i % kActions);
}
std::string body_of(const std::vector<Envelope>& all, std::size_t from, std::size_t n);
// The inner layer of one of our envelopes, as the shuffler would forward it.
p2b::server::InnerCiphertext inner_of(const Envelope& e);

// A metric from GET /metrics, or -1 without an answer.
double metric(int port, const std::string& name);
// Whether the analyzer at `port` has applied at least n records.
bool applied_at_least(int analyzer_port, std::size_t n);
// The statistics a model bundle carries (the Gram matrices, then the reward
// vectors), read back through a device agent with the deployment's codebook.
std::vector<double> model_statistics(const std::vector<uint8_t>& bundle);
// The bytes of GET /v1/model, or empty.
std::vector<uint8_t> fetch_model(int port);

// Polls `pred` every 100 ms for at most `seconds`.
template <typename Pred>
bool eventually(double seconds, Pred pred) {
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(seconds));
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return pred();
}

// A stand-in "analyzer" on loopback: POST /v1/batches goes to `answer`,
// every body received is kept.
class StandInAnalyzer {
 public:
  using Answer = std::function<void(const httplib::Request&, httplib::Response&)>;
  explicit StandInAnalyzer(Answer answer);
  ~StandInAnalyzer();
  StandInAnalyzer(const StandInAnalyzer&) = delete;
  StandInAnalyzer& operator=(const StandInAnalyzer&) = delete;
  void stop();
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<std::string> bodies();

 private:
  httplib::Server server_;
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::string> bodies_;
  int port_ = 0;
};

}  // namespace p2b_services
