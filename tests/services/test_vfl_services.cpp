// Vertical federation as real processes on loopback (docs/vertical-services.md):
// p2b-keygen --vfl for the active party, two passive parties and the PMG;
// p2b-vfl-pmg writes the bundles; two p2b-vfl-party processes and a
// p2b-vfl-ap decide over a synthetic data set split by columns. Between the
// active party and each passive party sits a recording proxy in this test,
// which can also replay a captured answer or forge one of the wrong shape
// (it holds the party's keys, as a misbehaving party would).
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sodium.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/keyfiles.hpp"
#include "exposition_check.hpp"
#include "p2b/shared_model.hpp"
#include "proc/run_command.hpp"
#include "proc/service_process.hpp"
#include "vfl/ap_store.hpp"
#include "vfl/features_file.hpp"
#include "vfl/mask_bundle.hpp"
#include "vfl/masked_message.hpp"
#include "vfl/masked_request.hpp"
#include "vfl/party_mask.hpp"

namespace {

// A double's bits, to compare two values exactly (-0 from 0, NaN payloads).
uint64_t bits_of(double v) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

namespace fs = std::filesystem;
namespace vfl = p2b::vfl;
using p2b::proc::ServiceProcess;

constexpr uint32_t kParties = 3;  // the active party and two passive ones
const vfl::Partition kPartition = {5, 4, 3};
constexpr uint32_t kD = 12;
constexpr uint32_t kItems = 10;  // K per decision
constexpr uint32_t kRounds = 200;
constexpr double kAlpha = 0.5;
constexpr double kLambda = 1.0;
constexpr double kTieTol = 1e-9;

std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string token_hex(const vfl::UserToken& t) {
  return vfl::user_token_hex(t);
}

// One round of the synthetic data: a user and K items whose joint contexts
// are l2-normalised Gaussian vectors, split by columns over the parties.
struct Round {
  vfl::UserToken user{};
  std::vector<uint32_t> items;
  std::vector<double> x;  // K x d, row-major, the joint (central) contexts
};

std::vector<Round> make_data(uint32_t rounds, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<Round> out(rounds);
  for (uint32_t t = 0; t < rounds; ++t) {
    Round& r = out[t];
    for (auto& b : r.user) b = static_cast<uint8_t>(rng());
    for (uint32_t i = 0; i < kItems; ++i) r.items.push_back(1000 * t + 7 * i + 3);
    r.x.resize(static_cast<std::size_t>(kItems) * kD);
    for (uint32_t i = 0; i < kItems; ++i) {
      double norm = 0;
      for (uint32_t c = 0; c < kD; ++c) {
        const double v = g(rng);
        r.x[i * kD + c] = v;
        norm += v * v;
      }
      norm = std::sqrt(norm);
      for (uint32_t c = 0; c < kD; ++c) r.x[i * kD + c] /= norm;
    }
  }
  return out;
}

// Party j's columns of one item's joint context.
std::vector<double> block_of(const Round& r, uint32_t item, uint32_t j) {
  const uint32_t off = vfl::column_offset(kPartition, j);
  return {r.x.begin() + item * kD + off, r.x.begin() + item * kD + off + kPartition[j]};
}

void write_features(const fs::path& p, const std::vector<Round>& data, uint32_t j) {
  std::ofstream out(p);
  out << "# user_token_hex,item_id,f1..f" << kPartition[j] << "\n";
  char buf[64];
  for (const Round& r : data) {
    for (uint32_t i = 0; i < kItems; ++i) {
      out << token_hex(r.user) << "," << r.items[i];
      for (const double v : block_of(r, i, j)) {
        std::snprintf(buf, sizeof buf, ",%.17g", v);
        out << buf;
      }
      out << "\n";
    }
  }
}

struct Exchange {
  uint32_t party = 0;
  std::string path;
  std::size_t params = 0;
  std::string request;
  int status = 0;
  std::string response;
};

// Between the active party and one passive party: forwards and records
// every exchange; or answers with an earlier captured P2BV (a replay); or
// forges an answer with one item too many (a wrong block size), or a 409.
class Proxy {
 public:
  enum class Mode { forward, replay_first, wrong_shape, refuse };

  Proxy(uint32_t party, std::string upstream) : party_(party), upstream_(std::move(upstream)) {
    server_.Post("/v1/masked", [this](const httplib::Request& req, httplib::Response& res) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        seen_.push_back(req.body);
      }
      received_.fetch_add(1);
      Exchange ex;
      ex.party = party_;
      ex.path = req.path;
      ex.params = req.params.size();
      ex.request = req.body;
      const Mode mode = mode_.load();
      if (mode == Mode::replay_first) {
        std::lock_guard<std::mutex> lock(mu_);
        if (!log_.empty()) {
          res.status = 200;
          res.set_content(log_.front().response, "application/octet-stream");
          return;
        }
      }
      if (mode == Mode::wrong_shape && forge_) {
        res.status = 200;
        res.set_content(forge_(req.body), "application/octet-stream");
        return;
      }
      if (mode == Mode::refuse && forge_) {  // a forged 409, as anyone on the path can send
        res.status = 409;
        res.set_content(forge_(req.body), "application/json");
        return;
      }
      std::string target;
      {
        std::lock_guard<std::mutex> lock(mu_);
        target = upstream_;
      }
      httplib::Client cli(target);
      cli.set_read_timeout(5, 0);
      const auto up = cli.Post("/v1/masked", req.body, "application/octet-stream");
      if (!up) {
        res.status = 599;  // never seen by a test: the proxy's upstream is gone
        return;
      }
      ex.status = up->status;
      ex.response = up->body;
      res.status = up->status;
      res.set_content(up->body, up->get_header_value("Content-Type"));
      std::lock_guard<std::mutex> lock(mu_);
      log_.push_back(std::move(ex));
    });
    server_.set_tcp_nodelay(true);  // as the services' own servers: no answer waits for an ACK
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~Proxy() { stop(); }
  // The party's front goes away with it: connections are refused.
  void stop() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  Proxy(const Proxy&) = delete;
  Proxy& operator=(const Proxy&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  void set_mode(Mode m) { mode_ = m; }
  void set_upstream(std::string u) {
    std::lock_guard<std::mutex> lock(mu_);
    upstream_ = std::move(u);
  }
  void set_forge(std::function<std::string(const std::string&)> f) { forge_ = std::move(f); }
  std::vector<Exchange> log() {
    std::lock_guard<std::mutex> lock(mu_);
    return log_;
  }
  // Requests that reached the proxy, answered or not yet.
  std::size_t received() const { return received_.load(); }
  // Their bodies, in order: also those whose party never answered.
  std::vector<std::string> requests_seen() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }

 private:
  uint32_t party_;
  std::string upstream_;
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<Mode> mode_{Mode::forward};
  std::atomic<std::size_t> received_{0};
  std::function<std::string(const std::string&)> forge_;
  std::mutex mu_;
  std::vector<Exchange> log_;
  std::vector<std::string> seen_;
};

struct Keys {
  uint8_t box_pk[32] = {};
  uint8_t box_sk[32] = {};
};

class VflServices : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_GE(sodium_init(), 0);
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(P2B_TEST_TMP) / (std::string("vfl-") + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    for (const char* who : {"ap", "party1", "party2", "pmg"}) {
      ASSERT_EQ(
          p2b::proc::run_command({P2B_KEYGEN_BIN, "--out", (dir_ / who).string(), "--vfl"}, true),
          0);
    }
    for (uint32_t j = 0; j < kParties; ++j) {
      const fs::path d = dir_ / key_dir(j);
      ASSERT_EQ(read_bytes(d / "vfl.box.pk").size(), 32U);
      const auto pk = read_bytes(d / "vfl.box.pk");
      const auto sk = read_bytes(d / "vfl.box.sk");
      std::copy(pk.begin(), pk.end(), keys_[j].box_pk);
      std::copy(sk.begin(), sk.end(), keys_[j].box_sk);
    }
    const auto pmg_pk = read_bytes(dir_ / "pmg/vfl.sign.pk");
    std::copy(pmg_pk.begin(), pmg_pk.end(), pmg_pk_);
    run_pmg(1);
    data_ = make_data(kRounds, 20261127);
    for (uint32_t j = 0; j < kParties; ++j) {
      write_features(dir_ / ("features-" + std::to_string(j) + ".csv"), data_, j);
    }
    for (uint32_t j = 1; j < kParties; ++j) {
      start_party(j);
      proxies_.push_back(std::make_unique<Proxy>(j, parties_[j - 1]->url()));
    }
  }

  static std::string key_dir(uint32_t j) { return j == 0 ? "ap" : "party" + std::to_string(j); }

  void run_pmg(uint64_t epoch) {
    std::vector<std::string> argv = {P2B_VFL_PMG_BIN, "--partition", "5,4,3"};
    for (uint32_t j = 0; j < kParties; ++j) {
      argv.push_back("--party-key");
      argv.push_back((dir_ / key_dir(j) / "vfl.box.pk").string());
    }
    argv.insert(argv.end(), {"--sign-key", (dir_ / "pmg/vfl.sign.sk").string(), "--epoch",
                             std::to_string(epoch), "--out-dir", dir_.string()});
    ASSERT_EQ(p2b::proc::run_command(argv, true), 0);
  }

  // Party j's block as the party itself opens it.
  vfl::MaskBlock open_block(uint32_t j) {
    const auto sealed = read_bytes(dir_ / ("party-" + std::to_string(j) + ".p2bq"));
    vfl::BundleExpect ex;
    ex.party_index = j;
    ex.d = kD;
    vfl::OpenedBundle o;
    EXPECT_EQ(vfl::open_mask_bundle(sealed.data(), sealed.size(), keys_[j].box_pk, keys_[j].box_sk,
                                    pmg_pk_, ex, &o),
              vfl::BundleStatus::ok);
    return o.block;
  }

  std::vector<std::string> party_args(uint32_t j) {
    const std::string n = std::to_string(j);
    return {"--listen",      "127.0.0.1:0",
            "--keys",        (dir_ / key_dir(j)).string(),
            "--store",       (dir_ / ("party" + n + ".state")).string(),
            "--party-index", n,
            "--dim",         std::to_string(kD),
            "--bundle",      (dir_ / ("party-" + n + ".p2bq")).string(),
            "--features",    (dir_ / ("features-" + n + ".csv")).string(),
            "--pmg-key",     (dir_ / "pmg/vfl.sign.pk").string(),
            "--ap-key",      (dir_ / "ap/vfl.box.pk").string()};
  }

  void start_party(uint32_t j) {
    if (parties_.size() < j) parties_.resize(j);
    parties_[j - 1] = std::make_unique<ServiceProcess>();
    parties_[j - 1]->start(P2B_VFL_PARTY_BIN, party_args(j),
                           (dir_ / ("party" + std::to_string(j) + ".log")).string());
  }

  void start_ap(const std::vector<std::string>& extra = {}) {
    // The party timeout is generous: each answer is an fsync and a proxy hop,
    // which a loaded machine can slow past a second. The timeout test passes
    // its own (the last value given wins).
    std::vector<std::string> args = {"--listen",
                                     "127.0.0.1:0",
                                     "--keys",
                                     (dir_ / "ap").string(),
                                     "--store",
                                     (dir_ / "ap.state").string(),
                                     "--dim",
                                     std::to_string(kD),
                                     "--bundle",
                                     (dir_ / "party-0.p2bq").string(),
                                     "--features",
                                     (dir_ / "features-0.csv").string(),
                                     "--pmg-key",
                                     (dir_ / "pmg/vfl.sign.pk").string(),
                                     "--alpha",
                                     "0.5",
                                     "--lambda",
                                     "1",
                                     "--tie-rel-tol",
                                     "1e-9",
                                     "--precision",
                                     "f64",
                                     "--max-items",
                                     std::to_string(kItems),
                                     "--party-timeout-ms",
                                     "30000"};
    for (uint32_t j = 1; j < kParties; ++j) {
      args.push_back("--party");
      args.push_back(proxies_[j - 1]->url() + "," + (dir_ / key_dir(j) / "vfl.box.pk").string());
    }
    args.insert(args.end(), extra.begin(), extra.end());
    ap_ = std::make_unique<ServiceProcess>();
    ap_->start(P2B_VFL_AP_BIN, args, (dir_ / "ap.log").string());
  }

  static nlohmann::json post_json(int port, const std::string& path, const nlohmann::json& body,
                                  int* status) {
    httplib::Client cli("127.0.0.1", port);
    cli.set_read_timeout(10, 0);
    const auto res = cli.Post(path, body.dump(), "application/json");
    *status = res ? res->status : -1;
    if (!res) return {};
    return nlohmann::json::parse(res->body, nullptr, false);
  }

  nlohmann::json decide(const Round& r, int* status) {
    return post_json(ap_->port(), "/v1/decide",
                     {{"user_token", token_hex(r.user)}, {"item_ids", r.items}}, status);
  }

  static nlohmann::json get_json(int port, const std::string& path) {
    httplib::Client cli("127.0.0.1", port);
    const auto res = cli.Get(path);
    return res ? nlohmann::json::parse(res->body, nullptr, false) : nlohmann::json();
  }

  fs::path dir_;
  Keys keys_[kParties];
  uint8_t pmg_pk_[32] = {};
  std::vector<Round> data_;
  std::vector<std::unique_ptr<ServiceProcess>> parties_;
  std::vector<std::unique_ptr<Proxy>> proxies_;
  std::unique_ptr<ServiceProcess> ap_;
};

// A central shared model on the unmasked joint contexts, set up as the AP's.
class Central {
 public:
  Central() {
    p2b::SharedConfig c;
    c.dim = kD;
    c.max_items = kItems;
    c.policy = p2b::Policy::linucb;
    c.alpha = kAlpha;
    c.ridge_lambda = kLambda;
    c.tie_rel_tol = kTieTol;
    c.precision = p2b::Precision::f64;
    c.pending_capacity = 256;
    c.deterministic = true;
    std::size_t need = 0;
    EXPECT_EQ(p2b::SharedModel::footprint(c, &need), p2b::Status::ok);
    arena_.assign(need + p2b::kArenaAlign, 0);
    const auto addr = reinterpret_cast<uintptr_t>(arena_.data());
    void* mem = arena_.data() + (p2b::kArenaAlign - addr % p2b::kArenaAlign) % p2b::kArenaAlign;
    EXPECT_EQ(p2b::SharedModel::init(mem, need, c, &model_), p2b::Status::ok);
  }
  p2b::SharedModel& model() { return *model_; }

 private:
  std::vector<unsigned char> arena_;
  p2b::SharedModel* model_ = nullptr;
};

// The reward of item i in round r: a fixed linear model plus noise.
double reward_of(const Round& r, uint32_t i, std::mt19937_64* rng) {
  std::normal_distribution<double> noise(0.0, 0.05);
  double s = 0;
  for (uint32_t c = 0; c < kD; ++c) s += r.x[i * kD + c] * std::cos(1.0 + c);
  return s / std::sqrt(static_cast<double>(kD)) + noise(*rng);
}

TEST_F(VflServices, LosslessOverRealProcessesAndTheWireCarriesOnlyMaskedParts) {
  start_ap();
  Central central;
  std::mt19937_64 rng(7);
  double ap_wall_s = 0;
  for (uint32_t t = 0; t < kRounds; ++t) {
    const Round& r = data_[t];
    int status = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const nlohmann::json d = decide(r, &status);
    ap_wall_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_EQ(status, 200) << d.dump();
    ASSERT_FALSE(d["partial"].get<bool>());
    uint32_t c_item = 0;
    uint64_t c_id = 0;
    ASSERT_EQ(central.model().decide(r.x.data(), kItems, kD, &c_item, &c_id), p2b::Status::ok);
    ASSERT_EQ(d["index"].get<uint32_t>(), c_item) << "round " << t;
    ASSERT_EQ(d["item"].get<uint32_t>(), r.items[c_item]);
    const double rew = reward_of(r, c_item, &rng);
    ASSERT_EQ(central.model().reward(c_id, rew), p2b::Status::ok);
    const nlohmann::json ok = post_json(
        ap_->port(), "/v1/reward", {{"decision_id", d["decision_id"]}, {"reward", rew}}, &status);
    ASSERT_EQ(status, 200) << ok.dump();
  }
  // The wire: every request is a P2BR of exactly {round_id, user_token,
  // item_ids} and its authenticator; every answer is Q^j x^j, nothing else.
  std::size_t exchanges = 0;
  for (uint32_t j = 1; j < kParties; ++j) {
    const vfl::MaskBlock block = open_block(j);
    const std::vector<Exchange> log = proxies_[j - 1]->log();
    ASSERT_EQ(log.size(), kRounds);
    uint64_t last_round = 0;
    for (uint32_t t = 0; t < kRounds; ++t) {
      const Exchange& ex = log[t];
      const Round& r = data_[t];
      EXPECT_EQ(ex.path, "/v1/masked");
      EXPECT_EQ(ex.params, 0U);
      ASSERT_EQ(ex.request.size(), vfl::masked_request_bytes(kItems));
      vfl::MaskedRequest req;
      ASSERT_EQ(vfl::open_masked_request(reinterpret_cast<const uint8_t*>(ex.request.data()),
                                         ex.request.size(), keys_[j].box_sk, keys_[0].box_pk, j,
                                         last_round, &req),
                vfl::RequestStatus::ok);
      EXPECT_EQ(req.item_ids, r.items);
      EXPECT_EQ(0, std::memcmp(req.user_token, r.user.data(), r.user.size()));
      ASSERT_EQ(ex.status, 200);
      ASSERT_EQ(ex.response.size(), vfl::masked_message_bytes(kItems, kD));
      vfl::MessageExpect me;
      me.party_index = j;
      std::copy(block.mask_id, block.mask_id + vfl::kMaskIdBytes, me.current.mask_id);
      me.current.epoch = block.epoch;
      me.k_items = kItems;
      me.d = kD;
      me.last_round_id = last_round;
      vfl::MaskedMessage msg;
      ASSERT_EQ(
          vfl::open_masked_message(reinterpret_cast<const uint8_t*>(ex.response.data()),
                                   ex.response.size(), keys_[0].box_sk, keys_[j].box_pk, me, &msg),
          vfl::MessageStatus::ok);
      EXPECT_EQ(msg.header.round_id, req.round_id);
      std::vector<double> xj;
      for (uint32_t i = 0; i < kItems; ++i) {
        const auto b = block_of(r, i, j);
        xj.insert(xj.end(), b.begin(), b.end());
      }
      std::vector<double> want(static_cast<std::size_t>(kItems) * kD);
      ASSERT_TRUE(vfl::mask_block(block, xj.data(), kItems, want.data()));
      EXPECT_EQ(msg.values, want) << "party " << j << " round " << t;
      last_round = req.round_id;
      ++exchanges;
    }
  }
  EXPECT_EQ(exchanges, 2U * kRounds);
  const nlohmann::json s = get_json(ap_->port(), "/v1/stats");
  ASSERT_EQ(s["decisions"].get<uint64_t>(), kRounds);
  // /metrics (the common host's): the same counts as Prometheus text, with
  // the latency histogram, process metrics and build info.
  const auto metrics_of = [](int port) {
    httplib::Client cli("127.0.0.1", port);
    const auto res = cli.Get("/metrics");
    return res && res->status == 200 ? res->body : std::string();
  };
  const std::string ap_metrics = metrics_of(ap_->port());
  EXPECT_EQ(p2b::test::exposition_error(ap_metrics), "");
  EXPECT_EQ(p2b::test::common_families_missing(ap_metrics, "p2b_vfl_ap"), "");
  EXPECT_EQ(p2b::proc::metric_value(ap_metrics, "p2b_vfl_ap_decisions_total"), kRounds);
  EXPECT_EQ(
      p2b::proc::metric_value(ap_metrics,
                              "p2b_vfl_ap_http_request_duration_seconds_count{method=\"POST\","
                              "code=\"200\"}"),
      2.0 * kRounds);  // a decision and a reward each round
  for (uint32_t j = 1; j < kParties; ++j) {
    const std::string pm = metrics_of(parties_[j - 1]->port());
    EXPECT_EQ(p2b::test::exposition_error(pm), "");
    EXPECT_EQ(p2b::test::common_families_missing(pm, "p2b_vfl_party"), "");
    EXPECT_EQ(p2b::proc::metric_value(pm, "p2b_vfl_party_answered_total"), kRounds);
  }
  double party_ms[kParties] = {};
  double persist_ms[kParties] = {};
  for (uint32_t j = 1; j < kParties; ++j) {
    EXPECT_EQ(s["party_bytes"][j].get<uint64_t>(), kRounds * vfl::masked_message_bytes(kItems, kD));
    const nlohmann::json ps = get_json(parties_[j - 1]->port(), "/v1/stats");
    EXPECT_EQ(ps["answered"].get<uint64_t>(), kRounds);
    party_ms[j] = ps["busy_ns"].get<double>() / 1e6 / kRounds;
    persist_ms[j] = ps["persist_ns"].get<double>() / 1e6 / kRounds;
  }
  // The logs: JSON lines, none with a feature value, a user token or a key.
  std::vector<std::string> secrets;
  for (uint32_t t = 0; t < kRounds; t += 20) {
    secrets.push_back(token_hex(data_[t].user));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", data_[t].x[1]);
    secrets.emplace_back(buf);
    std::snprintf(buf, sizeof buf, "%.6f", data_[t].x[2]);
    secrets.emplace_back(buf + (buf[0] == '-' ? 1 : 0));
  }
  for (uint32_t j = 0; j < kParties; ++j) {
    char hex[65];
    sodium_bin2hex(hex, sizeof hex, keys_[j].box_sk, 32);
    secrets.emplace_back(hex);
  }
  for (const char* log_name : {"ap.log", "party1.log", "party2.log"}) {
    std::ifstream in(dir_ / log_name);
    std::string line;
    std::size_t lines = 0;
    while (std::getline(in, line)) {
      ++lines;
      EXPECT_FALSE(nlohmann::json::parse(line, nullptr, false).is_discarded())
          << log_name << ": " << line;
      for (const std::string& secret : secrets) {
        EXPECT_EQ(line.find(secret), std::string::npos) << log_name << " holds " << secret;
      }
    }
    EXPECT_GT(lines, 0U) << log_name;
  }
  std::printf(
      "[ figure ] vfl services d=%u K=%u M=%u rounds=%u: P2BV bytes/decision/party=%zu "
      "(100+8*K*d=%u), P2BR bytes/decision/party=%zu, AP time/decision %.3f ms "
      "(in service %.3f ms), party time/decision %.3f ms and %.3f ms (of which reserving "
      "rounds on disk: %.3f ms and %.3f ms)\n",
      kD, kItems, kParties, kRounds, vfl::masked_message_bytes(kItems, kD), 100 + 8 * kItems * kD,
      vfl::masked_request_bytes(kItems), 1e3 * ap_wall_s / kRounds,
      s["decide_ns"].get<double>() / 1e6 / kRounds, party_ms[1], party_ms[2], persist_ms[1],
      persist_ms[2]);
}

// A party whose features are the user's only (item_id "*") answers K' = 1
// vector, which the active party adds to every item: still lossless.
TEST_F(VflServices, UserOnlyPartySendsOneVectorAndStaysLossless) {
  constexpr uint32_t kUserRounds = 30;
  // Party 2's block becomes the user's: item 0's block of each round.
  std::vector<Round> data(data_.begin(), data_.begin() + kUserRounds);
  {
    std::ofstream out(dir_ / "features-2.csv");
    char buf[64];
    for (Round& r : data) {
      const std::vector<double> u = block_of(r, 0, 2);
      out << token_hex(r.user) << ",*";
      for (const double v : u) {
        std::snprintf(buf, sizeof buf, ",%.17g", v);
        out << buf;
      }
      out << "\n";
      const uint32_t off = vfl::column_offset(kPartition, 2);
      for (uint32_t i = 0; i < kItems; ++i) {
        std::copy(u.begin(), u.end(), r.x.begin() + i * kD + off);
      }
    }
  }
  parties_[1]->stop();
  start_party(2);
  proxies_[1]->set_upstream(parties_[1]->url());
  start_ap();
  Central central;
  std::mt19937_64 rng(11);
  for (uint32_t t = 0; t < kUserRounds; ++t) {
    const Round& r = data[t];
    int status = 0;
    const nlohmann::json d = decide(r, &status);
    ASSERT_EQ(status, 200) << d.dump();
    uint32_t c_item = 0;
    uint64_t c_id = 0;
    ASSERT_EQ(central.model().decide(r.x.data(), kItems, kD, &c_item, &c_id), p2b::Status::ok);
    ASSERT_EQ(d["index"].get<uint32_t>(), c_item) << "round " << t;
    const double rew = reward_of(r, c_item, &rng);
    ASSERT_EQ(central.model().reward(c_id, rew), p2b::Status::ok);
    post_json(ap_->port(), "/v1/reward", {{"decision_id", d["decision_id"]}, {"reward", rew}},
              &status);
    ASSERT_EQ(status, 200);
  }
  const std::vector<Exchange> log = proxies_[1]->log();
  ASSERT_EQ(log.size(), kUserRounds);
  for (const Exchange& ex : log) EXPECT_EQ(ex.response.size(), vfl::masked_message_bytes(1, kD));
}

TEST_F(VflServices, LinTsDecidesOverRealProcesses) {
  start_ap({"--policy", "lints", "--ts-scale", "0.01"});
  std::mt19937_64 rng(5);
  for (uint32_t t = 0; t < 20; ++t) {
    int status = 0;
    const nlohmann::json d = decide(data_[t], &status);
    ASSERT_EQ(status, 200) << d.dump();
    ASSERT_LT(d["index"].get<uint32_t>(), kItems);
    post_json(ap_->port(), "/v1/reward",
              {{"decision_id", d["decision_id"]},
               {"reward", reward_of(data_[t], d["index"].get<uint32_t>(), &rng)}},
              &status);
    ASSERT_EQ(status, 200);
  }
}

TEST_F(VflServices, MismatchedFilesStopTheStart) {
  // A party told another d than its bundle's.
  std::vector<std::string> args = party_args(1);
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--dim") args[i + 1] = std::to_string(kD + 1);
  }
  args.insert(args.begin(), P2B_VFL_PARTY_BIN);
  EXPECT_EQ(p2b::proc::run_command(args, true), 1);
  // A party given another party's bundle.
  args = party_args(1);
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--bundle") args[i + 1] = (dir_ / "party-2.p2bq").string();
  }
  args.insert(args.begin(), P2B_VFL_PARTY_BIN);
  EXPECT_EQ(p2b::proc::run_command(args, true), 1);
  // A features file of the wrong width (party 2's for party 1).
  args = party_args(1);
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--features") args[i + 1] = (dir_ / "features-2.csv").string();
  }
  args.insert(args.begin(), P2B_VFL_PARTY_BIN);
  EXPECT_EQ(p2b::proc::run_command(args, true), 1);
  // An active party given fewer parties than its mask has.
  EXPECT_EQ(p2b::proc::run_command(
                {P2B_VFL_AP_BIN, "--listen", "127.0.0.1:0", "--keys", (dir_ / "ap").string(),
                 "--store", (dir_ / "ap.state").string(), "--dim", std::to_string(kD), "--bundle",
                 (dir_ / "party-0.p2bq").string(), "--features", (dir_ / "features-0.csv").string(),
                 "--pmg-key", (dir_ / "pmg/vfl.sign.pk").string(), "--party",
                 proxies_[0]->url() + "," + (dir_ / "party1/vfl.box.pk").string()},
                true),
            1);
  // Bad usage is 2.
  EXPECT_EQ(p2b::proc::run_command({P2B_VFL_AP_BIN, "--dim", "x"}, true), 2);
  EXPECT_EQ(p2b::proc::run_command({P2B_VFL_PMG_BIN, "--partition", "3,0"}, true), 2);
}

TEST_F(VflServices, PmgPrintsMaskIdAndFingerprintsAndDrawsAFreshMaskEachRun) {
  const vfl::MaskBlock first = open_block(1);
  std::string cmd = std::string(P2B_VFL_PMG_BIN) + " --partition 5,4,3";
  for (uint32_t j = 0; j < kParties; ++j) {
    cmd += " --party-key '" + (dir_ / key_dir(j) / "vfl.box.pk").string() + "'";
  }
  cmd += " --sign-key '" + (dir_ / "pmg/vfl.sign.sk").string() + "' --epoch 2 --out-dir '" +
         dir_.string() + "'";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) out += buf;
  ASSERT_EQ(::pclose(pipe), 0) << out;
  const vfl::MaskBlock second = open_block(1);
  EXPECT_EQ(second.epoch, 2U);
  char id_hex[2 * vfl::kMaskIdBytes + 1];
  sodium_bin2hex(id_hex, sizeof id_hex, second.mask_id, vfl::kMaskIdBytes);
  EXPECT_NE(out.find(std::string("mask_id ") + id_hex), std::string::npos) << out;
  // A fresh seed every run: another mask, another id.
  EXPECT_NE(0, std::memcmp(first.mask_id, second.mask_id, vfl::kMaskIdBytes));
  EXPECT_NE(first.q, second.q);
  for (uint32_t j = 0; j < kParties; ++j) {
    std::string fp;
    ASSERT_TRUE(p2b::keyfiles::fingerprint_hex(keys_[j].box_pk, &fp));
    EXPECT_NE(out.find("party " + std::to_string(j) + "  d_j " + std::to_string(kPartition[j]) +
                       "  key fingerprint " + fp),
              std::string::npos)
        << out;
  }
  std::string pmg_fp;
  ASSERT_TRUE(p2b::keyfiles::fingerprint_hex(pmg_pk_, &pmg_fp));
  EXPECT_NE(out.find("pmg sign key fingerprint " + pmg_fp), std::string::npos) << out;
  // Party 1's bundle opens for party 1 only.
  const auto sealed = read_bytes(dir_ / "party-1.p2bq");
  vfl::BundleExpect ex;
  ex.party_index = 1;
  ex.d = kD;
  vfl::OpenedBundle o;
  EXPECT_EQ(vfl::open_mask_bundle(sealed.data(), sealed.size(), keys_[2].box_pk, keys_[2].box_sk,
                                  pmg_pk_, ex, &o),
            vfl::BundleStatus::not_openable);
}

TEST_F(VflServices, SilentPartyIsPartyTimeoutOrPartialWhenAllowed) {
  const std::vector<std::string> deadline = {"--party-timeout-ms", "3000"};
  start_ap(deadline);
  int status = 0;
  ASSERT_EQ((decide(data_[0], &status), status), 200);
  // Party 2 stops answering (SIGSTOP: its socket accepts, nothing comes
  // back): the active party gives up at its 3000 ms deadline.
  ASSERT_EQ(::kill(parties_[1]->pid(), SIGSTOP), 0);
  const auto t0 = std::chrono::steady_clock::now();
  nlohmann::json d;
  std::atomic<bool> decided{false};
  const std::size_t asked = proxies_[1]->received();
  std::thread waiting([&] {
    d = decide(data_[1], &status);
    decided = true;
  });
  // Once the decision waits on party 2, /readyz still answers before it:
  // the event, not a latency bound, shows the probe is not queued behind it.
  for (int i = 0; i < 3000 && proxies_[1]->received() == asked; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_GT(proxies_[1]->received(), asked) << "the decision never reached party 2";
  httplib::Client probe("127.0.0.1", ap_->port());
  const auto ready = probe.Get("/readyz");
  const bool answered_first = !decided;
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200);
  EXPECT_TRUE(answered_first) << "/readyz waited for the pending decision";
  waiting.join();
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(status, 504) << d.dump();
  EXPECT_EQ(d["error"], "party_timeout");
  EXPECT_EQ(d["parties"][0]["party"], 2);
  EXPECT_GE(waited, 2.9);
  EXPECT_LT(waited, 30.0) << "the deadline did not cut the wait short";
  ASSERT_EQ(::kill(parties_[1]->pid(), SIGCONT), 0);
  // Killed, and its front gone: no connection at all is the same failure.
  parties_[1]->kill_hard();
  proxies_[1]->stop();
  d = decide(data_[2], &status);
  EXPECT_EQ(status, 504) << d.dump();
  EXPECT_EQ(d["error"], "party_timeout");
  ap_->stop();
  std::vector<std::string> partial = deadline;
  partial.push_back("--allow-partial");
  start_ap(partial);
  d = decide(data_[3], &status);
  ASSERT_EQ(status, 200) << d.dump();
  EXPECT_TRUE(d["partial"].get<bool>());
  EXPECT_EQ(d["parts_missing"], 1);
  EXPECT_EQ(d["parties"][0]["error"], "party_timeout");
}

TEST_F(VflServices, RotationAtThePartiesOnlyIsStaleMask) {
  start_ap();
  int status = 0;
  ASSERT_EQ((decide(data_[0], &status), status), 200);
  run_pmg(2);
  for (uint32_t j = 1; j < kParties; ++j) {
    const nlohmann::json r = post_json(parties_[j - 1]->port(), "/v1/mask", {}, &status);
    ASSERT_EQ(status, 200) << r.dump();
    EXPECT_EQ(r["epoch"], 2);
  }
  nlohmann::json d = decide(data_[1], &status);
  EXPECT_EQ(status, 409) << d.dump();
  EXPECT_EQ(d["error"], "stale_mask");
  // The active party loads its own epoch-2 block: decisions resume.
  const nlohmann::json r = post_json(ap_->port(), "/v1/mask", {}, &status);
  ASSERT_EQ(status, 200) << r.dump();
  d = decide(data_[2], &status);
  EXPECT_EQ(status, 200) << d.dump();
  // Rolling a party back to its epoch-1 bundle is refused.
  EXPECT_EQ((post_json(parties_[0]->port(), "/v1/mask", {}, &status), status), 409);
}

TEST_F(VflServices, ReplayedPartIsReplayed) {
  start_ap();
  int status = 0;
  for (uint32_t t = 0; t < 3; ++t) ASSERT_EQ((decide(data_[t], &status), status), 200);
  proxies_[0]->set_mode(Proxy::Mode::replay_first);  // party 1's round-1 answer again
  const nlohmann::json d = decide(data_[3], &status);
  EXPECT_EQ(status, 502) << d.dump();
  EXPECT_EQ(d["error"], "replayed");
  proxies_[0]->set_mode(Proxy::Mode::forward);
  EXPECT_EQ((decide(data_[4], &status), status), 200);
}

TEST_F(VflServices, WrongBlockSizeIsWrongShape) {
  start_ap();
  const vfl::MaskBlock block = open_block(1);
  // Party 1 answers with K + 1 masked vectors, properly boxed and current.
  proxies_[0]->set_forge([this, block](const std::string& body) {
    vfl::MaskedRequest req;
    EXPECT_EQ(vfl::open_masked_request(reinterpret_cast<const uint8_t*>(body.data()), body.size(),
                                       keys_[1].box_sk, keys_[0].box_pk, 1, 0, &req),
              vfl::RequestStatus::ok);
    vfl::MaskedHeader h;
    std::copy(block.mask_id, block.mask_id + vfl::kMaskIdBytes, h.mask_id);
    h.epoch = block.epoch;
    h.party_index = 1;
    h.round_id = req.round_id;
    std::copy(req.user_token, req.user_token + vfl::kUserTokenBytes, h.user_token);
    h.k_items = static_cast<uint32_t>(req.item_ids.size()) + 1;
    h.d = kD;
    std::vector<double> values(static_cast<std::size_t>(h.k_items) * kD, 0.01);
    std::vector<uint8_t> out;
    std::string err;
    EXPECT_TRUE(
        vfl::seal_masked_message(h, values.data(), keys_[1].box_sk, keys_[0].box_pk, &out, &err));
    return std::string(out.begin(), out.end());
  });
  proxies_[0]->set_mode(Proxy::Mode::wrong_shape);
  int status = 0;
  const nlohmann::json d = decide(data_[0], &status);
  EXPECT_EQ(status, 502) << d.dump();
  EXPECT_EQ(d["error"], "wrong_shape");
}

// VmHWM of a process: its peak resident memory, in KiB (0 when unreadable).
// The peak, since a buffered flood is freed once the decision is answered.
long peak_rss_kib(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

// A hostile party answers with 64 MiB where a genuine answer is a few
// hundred bytes: the active party reads no further than a message's length,
// answers wrong_shape, and its peak memory does not grow by what was sent.
TEST_F(VflServices, AFloodingPartyIsWrongShapeAndNotBuffered) {
  start_ap();
  int status = 0;
  ASSERT_EQ((decide(data_[0], &status), status), 200);
  const long before = peak_rss_kib(ap_->pid());
  proxies_[0]->set_forge(
      [](const std::string&) { return std::string(std::size_t{64} << 20, 'x'); });
  proxies_[0]->set_mode(Proxy::Mode::wrong_shape);
  const nlohmann::json d = decide(data_[1], &status);
  EXPECT_EQ(status, 502) << d.dump();
  EXPECT_EQ(d["error"], "wrong_shape");
  const long after = peak_rss_kib(ap_->pid());
  EXPECT_GT(before, 0);
  EXPECT_LT(after - before, 16 * 1024) << "VmHWM " << before << " -> " << after << " KiB";
  std::printf("[ figure ] a 64 MiB answer from a party: active party peak RSS %ld -> %ld KiB\n",
              before, after);
  proxies_[0]->set_mode(Proxy::Mode::forward);
  ASSERT_EQ((decide(data_[2], &status), status), 200);
}

TEST_F(VflServices, PartyRefusesUnauthenticatedReplayedAndUnknown) {
  const int port = parties_[0]->port();
  auto post = [port](const std::vector<uint8_t>& body, std::string* code) {
    httplib::Client cli("127.0.0.1", port);
    const auto res = cli.Post("/v1/masked", reinterpret_cast<const char*>(body.data()), body.size(),
                              "application/octet-stream");
    if (!res) return -1;
    const auto j = nlohmann::json::parse(res->body, nullptr, false);
    *code = j.is_object() && j.contains("error") ? j["error"].get<std::string>() : "";
    return res->status;
  };
  vfl::MaskedRequest req;
  req.party_index = 1;
  req.round_id = 5;
  std::copy(data_[0].user.begin(), data_[0].user.end(), req.user_token);
  req.item_ids = data_[0].items;
  std::vector<uint8_t> body;
  std::string err, code;
  // Boxed by someone other than the pinned active party (party 2's key).
  ASSERT_TRUE(vfl::seal_masked_request(req, keys_[2].box_sk, keys_[1].box_pk, &body, &err));
  EXPECT_EQ(post(body, &code), 401);
  EXPECT_EQ(code, "unauthenticated");
  // Not boxed at all: the fields in clear.
  std::vector<uint8_t> clear(body.begin(), body.begin() + 16);
  clear.resize(body.size(), 0);
  EXPECT_EQ(post(clear, &code), 401);
  // The active party's own request is answered, once.
  ASSERT_TRUE(vfl::seal_masked_request(req, keys_[0].box_sk, keys_[1].box_pk, &body, &err));
  EXPECT_EQ(post(body, &code), 200);
  EXPECT_EQ(post(body, &code), 409);
  EXPECT_EQ(code, "replayed");
  // ... and still refused after a restart: the round is under the ceiling
  // on disk, and so is every round of its block, answered or not.
  parties_[0]->stop();
  start_party(1);
  const int port2 = parties_[0]->port();
  httplib::Client cli("127.0.0.1", port2);
  auto res = cli.Post("/v1/masked", reinterpret_cast<const char*>(body.data()), body.size(),
                      "application/octet-stream");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 409);
  const auto refusal = nlohmann::json::parse(res->body, nullptr, false);
  ASSERT_TRUE(refusal.is_object() && refusal.contains("next_round_id")) << res->body;
  const uint64_t resume = refusal["next_round_id"].get<uint64_t>();
  EXPECT_GT(resume, 6U);
  req.round_id = 6;
  ASSERT_TRUE(vfl::seal_masked_request(req, keys_[0].box_sk, keys_[1].box_pk, &body, &err));
  res = cli.Post("/v1/masked", reinterpret_cast<const char*>(body.data()), body.size(),
                 "application/octet-stream");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 409) << "a round of the reserved block was answered after a restart";
  // Unknown user and unknown item are told apart.
  req.round_id = resume;
  req.user_token[0] ^= 0xff;
  ASSERT_TRUE(vfl::seal_masked_request(req, keys_[0].box_sk, keys_[1].box_pk, &body, &err));
  res = cli.Post("/v1/masked", reinterpret_cast<const char*>(body.data()), body.size(),
                 "application/octet-stream");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  EXPECT_NE(res->body.find("unknown_user"), std::string::npos);
  req.round_id = resume + 1;
  req.user_token[0] ^= 0xff;
  req.item_ids.back() = 999999;
  ASSERT_TRUE(vfl::seal_masked_request(req, keys_[0].box_sk, keys_[1].box_pk, &body, &err));
  res = cli.Post("/v1/masked", reinterpret_cast<const char*>(body.data()), body.size(),
                 "application/octet-stream");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  EXPECT_NE(res->body.find("unknown_item"), std::string::npos);
}

// A 409 is not authenticated: a forged one naming a resume round far past
// any a genuine party could have reserved (more than a block past the
// active party's own ceiling) moves the active party's round_ids nowhere.
// The decision fails as for any refusing party, and the next one goes on
// with the next round_id.
TEST_F(VflServices, ForgedResumeRoundIsNotBelieved) {
  start_ap();
  int status = 0;
  nlohmann::json d = decide(data_[0], &status);
  ASSERT_EQ(status, 200) << d.dump();
  const auto first = d["round_id"].get<uint64_t>();
  proxies_[0]->set_forge([](const std::string&) {
    return nlohmann::json{
        {"error", "replayed"}, {"detail", "forged"}, {"next_round_id", uint64_t{1} << 62}}
        .dump();
  });
  proxies_[0]->set_mode(Proxy::Mode::refuse);
  d = decide(data_[1], &status);
  EXPECT_EQ(status, 503) << d.dump();
  EXPECT_EQ(d["error"], "missing_parties");
  proxies_[0]->set_mode(Proxy::Mode::forward);
  d = decide(data_[2], &status);
  ASSERT_EQ(status, 200) << d.dump();
  EXPECT_EQ(d["round_id"].get<uint64_t>(), first + 2);
}

// kill -9 of the active party keeps the model, the decision ids and the
// pending decisions (vfl/ap_store.hpp): the learned statistics are bit for
// bit the same after the restart (their digest, and so every score), the
// ids go on above the old ones, rewards held over the restart are applied
// to their own decisions, and every decision after it is still a central
// model's that never restarted.
TEST_F(VflServices, KilledActivePartyKeepsItsModelIdsAndPendingDecisions) {
  start_ap();
  Central central;
  std::mt19937_64 rng(11);
  struct Held {
    uint64_t id = 0, c_id = 0;
    double reward = 0;
  };
  std::vector<Held> held;
  uint64_t last_id = 0;
  int status = 0;
  auto decide_both = [&](uint32_t t, uint64_t* id, uint64_t* c_id, double* rew) {
    const Round& r = data_[t];
    const nlohmann::json d = decide(r, &status);
    ASSERT_EQ(status, 200) << d.dump();
    uint32_t c_item = 0;
    ASSERT_EQ(central.model().decide(r.x.data(), kItems, kD, &c_item, c_id), p2b::Status::ok);
    ASSERT_EQ(d["index"].get<uint32_t>(), c_item) << "round " << t;
    *id = d["decision_id"].get<uint64_t>();
    *rew = reward_of(r, c_item, &rng);
  };
  auto reward_both = [&](uint64_t id, uint64_t c_id, double rew) {
    ASSERT_EQ(central.model().reward(c_id, rew), p2b::Status::ok);
    const nlohmann::json ok =
        post_json(ap_->port(), "/v1/reward", {{"decision_id", id}, {"reward", rew}}, &status);
    ASSERT_EQ(status, 200) << ok.dump();
  };
  constexpr uint32_t kBefore = 40, kHeld = 5;
  for (uint32_t t = 0; t < kBefore; ++t) {
    Held h;
    ASSERT_NO_FATAL_FAILURE(decide_both(t, &h.id, &h.c_id, &h.reward));
    EXPECT_GT(h.id, last_id);
    last_id = h.id;
    if (t >= kBefore - kHeld) {
      held.push_back(h);
    } else {
      ASSERT_NO_FATAL_FAILURE(reward_both(h.id, h.c_id, h.reward));
    }
  }
  const nlohmann::json before = get_json(ap_->port(), "/v1/stats");
  EXPECT_EQ(before["rewards_applied"], kBefore - kHeld);
  EXPECT_EQ(before["model_updates"], kBefore - kHeld);
  // A checkpoint was written and rewards after it are replayed at the start.
  EXPECT_GT(before["checkpoint_seq"].get<uint64_t>(), 0U);
  EXPECT_LT(before["checkpoint_seq"].get<uint64_t>(), kBefore - kHeld);
  ASSERT_EQ(before["model_digest"].get<std::string>().size(), 64U);

  ap_->kill_hard();
  start_ap();
  const nlohmann::json after = get_json(ap_->port(), "/v1/stats");
  EXPECT_EQ(after["model_digest"], before["model_digest"]);
  EXPECT_EQ(after["model_updates"], before["model_updates"]);
  EXPECT_EQ(after["rewards_applied"], before["rewards_applied"]);
  // Ids resume at the bound reserved on disk: above every id issued.
  EXPECT_GE(after["next_decision_id"].get<uint64_t>(), before["next_decision_id"].get<uint64_t>());

  // Refusals change nothing: an id never issued, 0, a reward past the bound.
  const uint64_t next = after["next_decision_id"].get<uint64_t>();
  nlohmann::json e =
      post_json(ap_->port(), "/v1/reward", {{"decision_id", next}, {"reward", 1.0}}, &status);
  EXPECT_EQ(status, 404) << e.dump();
  EXPECT_EQ(e["error"], "unknown_decision");
  EXPECT_EQ((post_json(ap_->port(), "/v1/reward", {{"decision_id", 0}, {"reward", 1.0}}, &status),
             status),
            404);
  e = post_json(ap_->port(), "/v1/reward", {{"decision_id", held[0].id}, {"reward", 1e300}},
                &status);
  EXPECT_EQ(status, 400) << e.dump();
  EXPECT_EQ(e["error"], "bad_reward");
  // A reward acknowledged before the kill is not applied again.
  e = post_json(ap_->port(), "/v1/reward", {{"decision_id", held[0].id - 1}, {"reward", 1.0}},
                &status);
  EXPECT_EQ(status, 409) << e.dump();
  EXPECT_EQ(e["error"], "already_rewarded");
  EXPECT_EQ(get_json(ap_->port(), "/v1/stats")["model_digest"], before["model_digest"]);

  // The late rewards reach the decisions made before the kill.
  for (const Held& h : held) ASSERT_NO_FATAL_FAILURE(reward_both(h.id, h.c_id, h.reward));
  e = post_json(ap_->port(), "/v1/reward", {{"decision_id", held[0].id}, {"reward", 1.0}}, &status);
  EXPECT_EQ(status, 409) << e.dump();
  for (uint32_t t = kBefore; t < kBefore + 20; ++t) {
    Held h;
    ASSERT_NO_FATAL_FAILURE(decide_both(t, &h.id, &h.c_id, &h.reward));
    EXPECT_GT(h.id, last_id) << "a decision id came back after the restart";
    last_id = h.id;
    ASSERT_NO_FATAL_FAILURE(reward_both(h.id, h.c_id, h.reward));
  }
  const nlohmann::json end = get_json(ap_->port(), "/v1/stats");
  EXPECT_EQ(end["model_updates"], kBefore + 20);
  EXPECT_NE(end["model_digest"], before["model_digest"]);
}

// The per-id ledger of rewards under repeated kill -9 under load. A client
// decides and rewards in a loop, holds some rewards over the next restart,
// and sends again every reward whose answer a kill cut off (200: it was not
// applied; 409 already_rewarded: the cut attempt had committed it). A
// killer kills the active party as soon as the client has started another
// kStep requests (plus a varying few, so kills land in decisions and in
// rewards alike), and restarts it on the same files. After the
// last restart the store's ledger holds exactly the acknowledged rewards,
// each once, with its own value, and the model counts as many updates.
TEST_F(VflServices, PerIdRewardLedgerUnderRepeatedKillNineIsExact) {
  const std::vector<std::string> extra = {"--pending", "100000"};
  start_ap(extra);
  constexpr int kKills = 12;
  constexpr uint64_t kStep = 20;
  // Bounded waits on events, never on a duration: 1 ms apart, at most 120 s.
  constexpr int kMaxPolls = 120000;
  std::atomic<int> port{ap_->port()};
  std::atomic<uint64_t> generation{0};
  std::atomic<uint64_t> started{0};  // requests the client began
  std::atomic<bool> killer_done{false};
  std::atomic<bool> killer_failed{false};
  std::thread killer([&] {
    try {
      for (int k = 1; k <= kKills; ++k) {
        const uint64_t target = k * kStep + static_cast<uint64_t>(k * 7 % 5);
        for (int polls = 0; started.load() < target && polls < kMaxPolls; ++polls) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        ap_->kill_hard();
        start_ap(extra);
        port = ap_->port();
        ++generation;
      }
    } catch (...) {
      killer_failed = true;
    }
    killer_done = true;
  });
  auto wait_past = [&](uint64_t g) {
    for (int polls = 0; generation.load() == g && !killer_done.load() && polls < kMaxPolls;
         ++polls) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  };
  struct Outstanding {
    uint64_t id = 0;
    double reward = 0;
    bool cut = false;  // an attempt was cut off by a kill: it may have committed
  };
  std::map<uint64_t, double> acked;
  std::vector<Outstanding> to_send, held;
  uint64_t held_gen = 0, decisions = 0, cut_decisions = 0, cut_rewards = 0, applied_by_cut = 0,
           late = 0;
  std::vector<std::string> unexpected;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  uint32_t t = 0;
  for (int iter = 0; iter < 100000; ++iter) {
    const uint64_t g = generation.load();
    // Rewards held over a restart (or to the end of the kills) are sent.
    if (!held.empty() && (g != held_gen || killer_done.load())) {
      late += g != held_gen ? held.size() : 0;
      to_send.insert(to_send.end(), held.begin(), held.end());
      held.clear();
    }
    if (killer_done.load() && to_send.empty() && held.empty()) break;
    int status = 0;
    if (!to_send.empty()) {
      Outstanding& o = to_send.back();
      ++started;
      const nlohmann::json res = post_json(port.load(), "/v1/reward",
                                           {{"decision_id", o.id}, {"reward", o.reward}}, &status);
      if (status == 200 || (status == 409 && o.cut && res["error"] == "already_rewarded")) {
        applied_by_cut += status == 409 ? 1 : 0;
        if (!acked.emplace(o.id, o.reward).second) unexpected.push_back("acked twice");
        to_send.pop_back();
      } else if (status < 0) {
        cut_rewards += o.cut ? 0 : 1;
        o.cut = true;
        wait_past(g);
      } else {
        unexpected.push_back("reward " + std::to_string(status) + " " + res.dump());
        to_send.pop_back();
      }
      continue;
    }
    if (killer_done.load()) continue;  // only the held rewards are left
    const Round& r = data_[t++ % kRounds];
    ++started;
    const nlohmann::json d = decide(r, &status);
    if (status == 200) {
      ++decisions;
      const Outstanding o{d["decision_id"].get<uint64_t>(), u(rng), false};
      if (decisions % 4 == 0) {
        held.push_back(o);
        held_gen = g;
      } else {
        to_send.push_back(o);
      }
    } else if (status < 0) {
      ++cut_decisions;  // its id, if it committed, is never rewarded
      wait_past(g);
    } else {
      unexpected.push_back("decide " + std::to_string(status) + " " + d.dump());
    }
  }
  killer.join();
  ASSERT_FALSE(killer_failed.load());
  ASSERT_EQ(generation.load(), static_cast<uint64_t>(kKills));
  EXPECT_TRUE(unexpected.empty()) << unexpected.size() << " unexpected answers, first: "
                                  << (unexpected.empty() ? "" : unexpected.front());
  EXPECT_TRUE(to_send.empty() && held.empty());

  // Once more after the last acknowledgement, then the durable state.
  const nlohmann::json live = get_json(ap_->port(), "/v1/stats");
  ap_->kill_hard();
  start_ap(extra);
  const nlohmann::json s = get_json(ap_->port(), "/v1/stats");
  EXPECT_EQ(s["model_digest"], live["model_digest"]);
  EXPECT_EQ(s["rewards_applied"].get<uint64_t>(), acked.size());
  EXPECT_EQ(s["model_updates"].get<uint64_t>(), acked.size());
  ASSERT_EQ(ap_->stop(), 0);
  std::vector<vfl::ApLedgerRow> rows;
  {
    vfl::ApStore store((dir_ / "ap.state.model").string());
    rows = store.ledger();
  }
  std::map<uint64_t, int> applied;
  std::vector<bool> seq_seen(rows.size() + 1, false);
  uint64_t lost = 0, duplicated = 0, phantom = 0, wrong_value = 0, bad_seq = 0;
  for (const vfl::ApLedgerRow& row : rows) {
    duplicated += ++applied[row.id] > 1 ? 1 : 0;
    const auto it = acked.find(row.id);
    if (it == acked.end()) {
      ++phantom;
    } else if (bits_of(it->second) != bits_of(row.reward)) {  // bit for bit, -0 and all
      ++wrong_value;
    }
    if (row.seq == 0 || row.seq > rows.size() || seq_seen[row.seq]) {
      ++bad_seq;
    } else {
      seq_seen[row.seq] = true;
    }
  }
  for (const auto& [id, r] : acked) lost += applied.count(id) == 0 ? 1 : 0;
  // The model's own count: a reward applied twice would be one update more.
  duplicated += s["model_updates"].get<uint64_t>() - rows.size();
  EXPECT_EQ(lost, 0U);
  EXPECT_EQ(duplicated, 0U);
  EXPECT_EQ(phantom, 0U);
  EXPECT_EQ(wrong_value, 0U);
  EXPECT_EQ(bad_seq, 0U);
  EXPECT_GE(acked.size(), static_cast<std::size_t>(kKills) * kStep / 4);
  EXPECT_GT(late, 0U);
  std::printf(
      "[ figure ] vfl active-party ledger: %d kill -9 under load (+1 after the last ack), "
      "%llu decisions (%llu cut by a kill), %zu rewards acknowledged (%llu cut by a kill, of "
      "which %llu had committed; %llu held over a restart): lost %llu, duplicated %llu\n",
      kKills, static_cast<unsigned long long>(decisions),
      static_cast<unsigned long long>(cut_decisions), acked.size(),
      static_cast<unsigned long long>(cut_rewards), static_cast<unsigned long long>(applied_by_cut),
      static_cast<unsigned long long>(late), static_cast<unsigned long long>(lost),
      static_cast<unsigned long long>(duplicated));
}

// The first number after "round_id" in a state file: its reserved ceiling.
uint64_t state_ceiling(const fs::path& p) {
  std::ifstream in(p);
  std::string word;
  uint64_t v = 0;
  while (in >> word) {
    if (word == "round_id" && (in >> v)) return v;
  }
  return 0;
}

// Round ids make the P2BR and P2BV nonces, and are reserved on disk in
// blocks (vfl/round_reserve.hpp): kill -9 of any process, at any point,
// must never let one be sealed twice. Kills land between rounds (each
// process, then all three), while a passive party holds a request
// unanswered, and while the active party waits on a party. Afterwards
// every request each proxy saw opens to a round id no other request to
// that party had, every answer likewise, no state file's ceiling is below
// a round it covers, decision ids only grew, and a decision right after a
// party's restart is answered (the active party moves on to where the
// party resumes, one retry) rather than refused for a block of rounds.
TEST_F(VflServices, RoundIdsNeverRepeatAcrossKillNineOfAnyProcess) {
  start_ap();
  uint32_t t = 0;
  uint64_t last_id = 0;
  auto decide_ok = [&]() {
    int status = 0;
    const nlohmann::json d = decide(data_[t++ % kRounds], &status);
    ASSERT_EQ(status, 200) << d.dump();
    const auto id = d["decision_id"].get<uint64_t>();
    EXPECT_GT(id, last_id) << "a decision id came back";
    last_id = id;
  };
  auto restart_party = [&](uint32_t j) {
    parties_[j - 1]->kill_hard();
    start_party(j);
    proxies_[j - 1]->set_upstream(parties_[j - 1]->url());
  };
  // Bounded polling on the event: the request reached party j's proxy.
  auto wait_asked = [&](uint32_t j, std::size_t before) {
    for (int i = 0; i < 30000 && proxies_[j - 1]->received() == before; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return proxies_[j - 1]->received() > before;
  };
  for (int i = 0; i < 5; ++i) ASSERT_NO_FATAL_FAILURE(decide_ok());
  // Between rounds. The last request party 1 answered, replayed to it
  // after its restart, is refused: it is under the ceiling on disk.
  const std::string answered = proxies_[0]->requests_seen().back();
  restart_party(1);
  {
    httplib::Client cli("127.0.0.1", parties_[0]->port());
    const auto res = cli.Post("/v1/masked", answered, "application/octet-stream");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 409) << "a restarted party answered a round it had sealed";
  }
  ASSERT_NO_FATAL_FAILURE(decide_ok());
  ap_->kill_hard();
  start_ap();
  ASSERT_NO_FATAL_FAILURE(decide_ok());
  restart_party(2);
  restart_party(1);
  ASSERT_NO_FATAL_FAILURE(decide_ok());
  // Party 1 killed while it holds a request unanswered: that decision fails.
  ASSERT_EQ(::kill(parties_[0]->pid(), SIGSTOP), 0);
  std::size_t asked = proxies_[0]->received();
  int held_status = 0;
  std::thread held([&] { decide(data_[t++ % kRounds], &held_status); });
  const bool reached = wait_asked(1, asked);
  restart_party(1);  // SIGKILL ends a stopped process too
  held.join();
  ASSERT_TRUE(reached) << "the decision never reached party 1";
  EXPECT_NE(held_status, 200);
  ASSERT_NO_FATAL_FAILURE(decide_ok());
  // The active party killed while it waits on party 2.
  ASSERT_EQ(::kill(parties_[1]->pid(), SIGSTOP), 0);
  asked = proxies_[1]->received();
  std::thread cut([&] { decide(data_[t++ % kRounds], &held_status); });
  const bool reached2 = wait_asked(2, asked);
  ap_->kill_hard();
  cut.join();
  ASSERT_EQ(::kill(parties_[1]->pid(), SIGCONT), 0);
  ASSERT_TRUE(reached2) << "the decision never reached party 2";
  EXPECT_EQ(held_status, -1);
  start_ap();
  ASSERT_NO_FATAL_FAILURE(decide_ok());
  // All three at once.
  ap_->kill_hard();
  restart_party(1);
  restart_party(2);
  start_ap();
  for (int i = 0; i < 3; ++i) ASSERT_NO_FATAL_FAILURE(decide_ok());
  ASSERT_EQ(ap_->stop(), 0);

  const uint64_t ap_ceiling = state_ceiling(dir_ / "ap.state");
  for (uint32_t j = 1; j < kParties; ++j) {
    std::set<uint64_t> asked_rounds, answered_rounds;
    std::size_t requests = 0, answers = 0, resumes = 0;
    for (const std::string& body : proxies_[j - 1]->requests_seen()) {
      vfl::MaskedRequest req;
      ASSERT_EQ(vfl::open_masked_request(reinterpret_cast<const uint8_t*>(body.data()), body.size(),
                                         keys_[j].box_sk, keys_[0].box_pk, j, 0, &req),
                vfl::RequestStatus::ok);
      EXPECT_LE(req.round_id, ap_ceiling) << "a round above the active party's ceiling";
      asked_rounds.insert(req.round_id);
      ++requests;
    }
    const vfl::MaskBlock block = open_block(j);
    for (const Exchange& ex : proxies_[j - 1]->log()) {
      if (ex.status == 409) {
        const auto e = nlohmann::json::parse(ex.response, nullptr, false);
        resumes += e.is_object() && e.contains("next_round_id") ? 1 : 0;
      }
      if (ex.status != 200) continue;
      vfl::MessageExpect me;
      me.party_index = j;
      std::copy(block.mask_id, block.mask_id + vfl::kMaskIdBytes, me.current.mask_id);
      me.current.epoch = block.epoch;
      me.k_items = kItems;
      me.d = kD;
      vfl::MaskedMessage msg;
      ASSERT_EQ(
          vfl::open_masked_message(reinterpret_cast<const uint8_t*>(ex.response.data()),
                                   ex.response.size(), keys_[0].box_sk, keys_[j].box_pk, me, &msg),
          vfl::MessageStatus::ok);
      EXPECT_LE(msg.header.round_id, state_ceiling(dir_ / ("party" + std::to_string(j) + ".state")))
          << "an answer above the party's ceiling";
      answered_rounds.insert(msg.header.round_id);
      ++answers;
    }
    EXPECT_EQ(asked_rounds.size(), requests) << "party " << j << " was asked a round_id twice";
    EXPECT_EQ(answered_rounds.size(), answers) << "party " << j << " sealed a round_id twice";
    EXPECT_GE(answers, 12U);
    // Each restart of party 1 alone (three) and of both passive parties
    // (one) was followed by a decision that moved on to where it resumed.
    EXPECT_GE(resumes, j == 1 ? 3U : 1U) << "party " << j;
    std::printf(
        "[ figure ] vfl round ids under kill -9: party %u asked %zu rounds, answered %zu, "
        "%zu resumes after its restarts, no round_id twice\n",
        j, requests, answers, resumes);
  }
}

}  // namespace
