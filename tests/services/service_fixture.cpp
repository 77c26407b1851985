#include "service_fixture.hpp"

#include <gtest/gtest.h>
#include <sodium.h>
#include <sys/socket.h>

#include <algorithm>
#include <fstream>

#include "p2b/codebook_format.hpp"
#include "proc/metrics.hpp"
#include "test_support.hpp"
#include "wire/envelope_open.hpp"

namespace p2b_services {

Deployment::Deployment(const std::string& name)
    : dir_(fs::path(P2B_TEST_TMP) / name), codebook_(p2b_test::random_codebook(kCodes, kDim, 3)) {
  fs::remove_all(dir_);
  fs::create_directories(dir_ / "keys");
  const auto& k = p2b_test::test_keys();
  write_file(dir_ / "keys/shuffler.box.pk", k.shuffler_pk, sizeof k.shuffler_pk, 0644);
  write_file(dir_ / "keys/shuffler.box.sk", k.shuffler_sk, sizeof k.shuffler_sk, 0600);
  write_file(dir_ / "keys/analyzer.box.pk", k.analyzer_pk, sizeof k.analyzer_pk, 0644);
  write_file(dir_ / "keys/analyzer.box.sk", k.analyzer_sk, sizeof k.analyzer_sk, 0600);
  write_file(dir_ / "keys/analyzer.sign.pk", k.verify_pk, sizeof k.verify_pk, 0644);
  write_file(dir_ / "keys/analyzer.sign.sk", k.sign_sk, sizeof k.sign_sk, 0600);
  write_file(dir_ / "keys/shuffler.sign.pk", k.shuffler_verify_pk, sizeof k.shuffler_verify_pk,
             0644);
  write_file(dir_ / "keys/shuffler.sign.sk", k.shuffler_sign_sk, sizeof k.shuffler_sign_sk, 0600);
  uint8_t spool_key[32];
  randombytes_buf(spool_key, sizeof spool_key);
  fs::remove(spool_key_path());
  write_file(spool_key_path(), spool_key, sizeof spool_key, 0600);
  sodium_memzero(spool_key, sizeof spool_key);
  const p2b::CryptoPort port = p2b_test::sodium_port();
  std::size_t n = 0;
  EXPECT_EQ(p2b::encoded_codebook_size(codebook_.data(), kCodes, kDim, 1, &n), p2b::Status::ok);
  std::vector<uint8_t> bytes(n);
  EXPECT_EQ(p2b::encode_codebook(port, codebook_.data(), kCodes, kDim, 1, bytes.data(), n, &n),
            p2b::Status::ok);
  write_file(dir_ / "codebook.p2bc", bytes.data(), n, 0644);
}

void Deployment::write_file(const fs::path& p, const uint8_t* data, std::size_t n, int mode) {
  std::ofstream(p, std::ios::binary)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(n));
  fs::permissions(p, static_cast<fs::perms>(mode));
}

void Deployment::start_analyzer(uint32_t threshold, int port,
                                const std::vector<std::string>& extra) {
  std::vector<std::string> args = analyzer_args(threshold, port);
  args.insert(args.end(), extra.begin(), extra.end());
  analyzer_.start(P2B_ANALYZER_BIN, args, (dir_ / "analyzer.log").string());
}

std::vector<std::string> Deployment::analyzer_args(uint32_t threshold, int port) const {
  std::vector<std::string> args{"--listen",       "127.0.0.1:" + std::to_string(port),
                                "--keys",         (dir_ / "keys").string(),
                                "--shuffler-key", (dir_ / "keys/shuffler.sign.pk").string(),
                                "--codebook",     (dir_ / "codebook.p2bc").string(),
                                "--store",        store_path().string(),
                                "--actions",      std::to_string(kActions),
                                "--threshold",    std::to_string(threshold)};
  // Central DP off: the tests compare the models with exactly what was sent.
  args.insert(args.end(), {"--central-epsilon", "off"});
  return args;
}

void Deployment::start_shuffler(uint32_t threshold, const std::string& analyzer_url,
                                const std::string& batch_seconds,
                                const std::vector<std::string>& extra) {
  std::vector<std::string> args = shuffler_args(threshold, analyzer_url, batch_seconds);
  args.insert(args.end(), extra.begin(), extra.end());
  shuffler_.start(P2B_SHUFFLER_BIN, args, (dir_ / "shuffler.log").string());
}

std::vector<std::string> Deployment::shuffler_args(uint32_t threshold,
                                                   const std::string& analyzer_url,
                                                   const std::string& batch_seconds) const {
  return {"--listen",        "127.0.0.1:0",
          "--keys",          (dir_ / "keys").string(),
          "--spool",         spool_path().string(),
          "--spool-key",     spool_key_path().string(),
          "--analyzer",      analyzer_url,
          "--analyzer-key",  (dir_ / "keys/analyzer.sign.pk").string(),
          "--threshold",     std::to_string(threshold),
          "--batch-size",    "1000000",
          "--batch-seconds", batch_seconds};
}

Envelope seal(uint32_t code, uint32_t action, float reward) {
  const auto& k = p2b_test::test_keys();
  uint8_t sfp[16], afp[16];
  crypto_generichash(sfp, 16, k.shuffler_pk, 32, nullptr, 0);
  crypto_generichash(afp, 16, k.analyzer_pk, 32, nullptr, 0);
  const p2b::SealingKeys keys{k.shuffler_pk, sfp, k.analyzer_pk, afp};
  Envelope e{};
  EXPECT_EQ(p2b::seal_envelope(p2b_test::sodium_port(), keys, {code, action, reward, 0}, e.data()),
            p2b::Status::ok);
  return e;
}

std::vector<Envelope> envelopes(std::size_t n) {
  std::vector<Envelope> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(
        seal(static_cast<uint32_t>(i % kCodes), action_of_index(i), (i % 3) ? 1.0F : 0.0F));
  }
  return out;
}

std::string body_of(const std::vector<Envelope>& all, std::size_t from, std::size_t n) {
  std::string body;
  for (std::size_t i = from; i < from + n && i < all.size(); ++i) {
    body.append(reinterpret_cast<const char*>(all[i].data()), all[i].size());
  }
  return body;
}

p2b::server::InnerCiphertext inner_of(const Envelope& e) {
  p2b::server::BoxKey key{};
  p2b::server::make_box_key(p2b_test::test_keys().shuffler_pk, p2b_test::test_keys().shuffler_sk,
                            &key);
  p2b::server::OuterOpened opened{};
  EXPECT_EQ(p2b::server::open_outer(e.data(), e.size(), &key, 1, &opened),
            p2b::server::OpenStatus::ok);
  p2b::server::InnerCiphertext inner{};
  std::copy(opened.inner, opened.inner + inner.size(), inner.begin());
  return inner;
}

double metric(int port, const std::string& name) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_connection_timeout(2);
  const auto res = cli.Get("/metrics");
  return res && res->status == 200 ? p2b::proc::metric_value(res->body, name) : -1.0;
}

bool applied_at_least(int analyzer_port, std::size_t n) {
  return metric(analyzer_port, "p2b_analyzer_records_applied_total") >= static_cast<double>(n);
}

std::vector<double> model_statistics(const std::vector<uint8_t>& bundle) {
  std::vector<float> codebook = p2b_test::random_codebook(kCodes, kDim, 3);
  p2b_config cfg = p2b_test::base_config(kDim, kActions, kCodes, 1);
  cfg.centroids = codebook.data();
  auto agent = p2b_test::make_agent(cfg);
  EXPECT_EQ(p2b_agent_apply_model(agent.agent, bundle.data(), bundle.size()), P2B_OK);
  std::vector<double> a(kActions * kDim * kDim), b(kActions * kDim);
  EXPECT_EQ(p2b_agent_export(agent.agent, a.data(), b.data(), kActions, kDim), P2B_OK);
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<uint8_t> fetch_model(int port) {
  httplib::Client cli("127.0.0.1", port);
  const auto res = cli.Get("/v1/model");
  if (!res || res->status != 200) return {};
  return std::vector<uint8_t>(res->body.begin(), res->body.end());
}

StandInAnalyzer::StandInAnalyzer(Answer answer) {
  server_.Post("/v1/batches", [this, answer = std::move(answer)](const httplib::Request& req,
                                                                 httplib::Response& res) {
    {
      const std::lock_guard<std::mutex> lock(mu_);
      bodies_.push_back(req.body);
    }
    answer(req, res);
  });
  // As the services bind: SO_REUSEADDR, not httplib's SO_REUSEPORT, whose
  // TIME_WAIT sockets would keep a real analyzer off this port afterwards.
  server_.set_socket_options([](socket_t sock) {
    const int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  port_ = server_.bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

StandInAnalyzer::~StandInAnalyzer() {
  stop();
}

void StandInAnalyzer::stop() {
  if (!thread_.joinable()) return;
  server_.stop();
  thread_.join();
}

std::vector<std::string> StandInAnalyzer::bodies() {
  const std::lock_guard<std::mutex> lock(mu_);
  return bodies_;
}

}  // namespace p2b_services
