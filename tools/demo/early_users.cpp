#include "early_users.hpp"

#include <httplib.h>

#include <stdexcept>

#include "sim/progress.hpp"

namespace p2b::demo {
namespace {

void post_or_throw(httplib::Client& cli, const std::string& path, const std::string& body,
                   int want) {
  const auto res = cli.Post(path, body, "application/octet-stream");
  if (!res || res->status != want) {
    throw std::runtime_error(
        "POST " + path + " answered " +
        (res ? std::to_string(res->status) + " " + res->body : std::string("nothing")));
  }
}

// Raw tuples (x, action, reward) batched into /v1/raw posts of kRawPerPost.
class RawUploader {
 public:
  explicit RawUploader(int port) : client_("127.0.0.1", port) {}

  void add(const std::vector<float>& x, uint32_t action, float reward) {
    body_.append(reinterpret_cast<const char*>(x.data()), kDim * sizeof(float));
    body_.append(reinterpret_cast<const char*>(&action), 4);
    body_.append(reinterpret_cast<const char*>(&reward), 4);
    if (++n_ == kRawPerPost) flush();
  }

  void flush() {
    if (n_ == 0) return;
    std::string body = "P2BR";
    for (uint32_t v : {kDim, static_cast<uint32_t>(n_)}) {
      body.append(reinterpret_cast<const char*>(&v), 4);
    }
    post_or_throw(client_, "/v1/raw", body + body_, 200);
    body_.clear();
    n_ = 0;
  }

 private:
  httplib::Client client_;
  std::string body_;
  std::size_t n_ = 0;
};

// One user's window: decide, reward, and the tuple to the raw baseline.
void play_window(const Options& o, uint32_t u, sim::CAgent& device, const sim::SyntheticEnv& env,
                 RawUploader* raw) {
  std::vector<float> x(kDim);
  std::vector<double> rbar(kActions);
  device.reseed(o.seed * 1000003 + u);
  sim::Draws draws(o.seed * 104729 + u);
  for (uint32_t s = 0; s < kWindow; ++s) {
    env.context(draws, x.data());
    env.expected_rewards(draws, x.data(), rbar.data());
    uint32_t action = 0;
    uint64_t id = 0;
    sim::check(p2b_agent_decide(device.get(), x.data(), kDim, &action, &id), "decide");
    const float r = draws.uniform() < rbar[action] ? 1.0F : 0.0F;
    sim::check(p2b_agent_reward(device.get(), id, r), "reward");
    raw->add(x, action, r);
  }
}

}  // namespace

std::vector<std::string> run_early_users(const Options& o, sim::CAgent& device,
                                         const sim::SyntheticEnv& env, int raw_analyzer_port) {
  std::vector<std::string> envelopes;
  RawUploader raw(raw_analyzer_port);
  uint8_t env_bytes[P2B_ENVELOPE_BYTES];
  for (uint32_t u = 1; u <= o.users; ++u) {
    play_window(o, u, device, env, &raw);
    std::size_t len = 0;
    while (p2b_agent_poll_envelope(device.get(), env_bytes, sizeof env_bytes, &len) == P2B_OK) {
      envelopes.emplace_back(reinterpret_cast<const char*>(env_bytes), len);
    }
    if (u % 500 == 0 || u == o.users) sim::progress("early users", u, o.users);
  }
  raw.flush();
  return envelopes;
}

}  // namespace p2b::demo
