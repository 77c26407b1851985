// p2b-device: one or many devices on a host, through the C API exactly as an
// app embeds p2b, against running services (docs/getting-started.md).
//   report  users on the paper's synthetic environment decide and reward;
//           their sealed envelopes are POSTed to the shuffler
//   model   the analyzer's signed model is fetched, verified against the
//           pinned analyzer.sign.pk and applied on a fresh agent
// Only public keys are read: a device never holds a secret of the services.
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "cli/tool_cli.hpp"
#include "device/device_io.hpp"
#include "sim/c_agent.hpp"
#include "sim/synthetic_env.hpp"

namespace {

constexpr std::size_t kEnvelopesPerPost = 256;

struct Options {
  std::string keys = "keys";
  std::string codebook = "codebook.p2bc";
  uint32_t actions = 10;
  uint32_t window = 10;
  uint64_t seed = 1;
  // report
  std::string shuffler;
  uint32_t users = 1000;
  // model
  std::string analyzer;
  double wait_seconds = 30;  // for the shuffler to be ready, or for a first model
};

// What both subcommands need to build the same agent the services expect.
void add_device_flags(CLI::App* sub, Options* o) {
  sub->add_option("--keys", o->keys,
                  "DIR with shuffler.box.pk, analyzer.box.pk, analyzer.sign.pk [keys]")
      ->type_name("DIR");
  sub->add_option("--codebook", o->codebook, "the deployment's codebook file [codebook.p2bc]")
      ->type_name("FILE");
  sub->add_option("--actions", o->actions, "number of actions, as the analyzer's --actions [10]")
      ->check(CLI::Range(1, P2B_MAX_ACTIONS));
  sub->add_option("--window", o->window, "interactions per participation window t [10]")
      ->check(CLI::Range(1, P2B_MAX_WINDOW));
  sub->add_option("--seed", o->seed, "seeds the environment and the agents [1]");
}

p2b_config device_config(const Options& o, const std::vector<float>& centroids, uint32_t dim,
                         const p2b::device::DeviceKeys& keys) {
  p2b_config cfg;
  p2b::sim::check(p2b_config_default(&cfg), "config");
  cfg.dim = dim;
  cfg.n_actions = o.actions;
  cfg.window = o.window;
  cfg.centroids = centroids.data();
  cfg.n_codes = static_cast<uint32_t>(centroids.size() / dim);
  cfg.rng_mode = P2B_RNG_SEEDED;
  cfg.seed = o.seed;
  cfg.shuffler_public_key = keys.shuffler;
  cfg.analyzer_public_key = keys.analyzer;
  cfg.analyzer_verify_key = keys.verify;
  return cfg;
}

int report(const Options& o) {
  const p2b::device::DeviceKeys keys = p2b::device::read_device_keys(o.keys);
  uint32_t dim = 0;
  const std::vector<float> centroids = p2b::device::read_codebook(o.codebook, &dim);
  p2b::sim::CAgent device(device_config(o, centroids, dim, keys));
  const p2b::sim::SyntheticEnv env(
      {dim, o.actions, 0.1, p2b::sim::kReferenceNoiseVariance, o.seed});
  std::vector<float> x(dim);
  std::vector<double> rbar(o.actions);
  std::vector<uint8_t> sealed(P2B_ENVELOPE_BYTES);
  std::vector<std::string> envelopes;
  double rewards = 0;
  for (uint32_t u = 1; u <= o.users; ++u) {
    device.reseed(o.seed * 1000003 + u);
    p2b::sim::Draws draws(o.seed * 104729 + u);
    for (uint32_t s = 0; s < o.window; ++s) {
      env.context(draws, x.data());
      env.expected_rewards(draws, x.data(), rbar.data());
      uint32_t action = 0;
      uint64_t id = 0;
      p2b::sim::check(p2b_agent_decide(device.get(), x.data(), dim, &action, &id), "decide");
      const float r = draws.uniform() < rbar[action] ? 1.0F : 0.0F;
      p2b::sim::check(p2b_agent_reward(device.get(), id, r), "reward");
      rewards += r;
    }
    std::size_t len = 0;
    while (p2b_agent_poll_envelope(device.get(), sealed.data(), sealed.size(), &len) == P2B_OK) {
      envelopes.emplace_back(reinterpret_cast<const char*>(sealed.data()), len);
    }
  }
  if (!p2b::device::wait_ready(o.shuffler, o.wait_seconds)) {
    std::fprintf(stderr, "p2b-device: %s not ready after %.0f s\n", o.shuffler.c_str(),
                 o.wait_seconds);
    return 1;
  }
  p2b::device::post_envelopes(o.shuffler, envelopes, kEnvelopesPerPost, nullptr);
  std::printf("%u users (reward rate %.4f): %zu sealed envelopes posted to %s\n", o.users,
              rewards / (static_cast<double>(o.users) * o.window), envelopes.size(),
              o.shuffler.c_str());
  return 0;
}

int model(const Options& o) {
  const p2b::device::DeviceKeys keys = p2b::device::read_device_keys(o.keys);
  uint32_t dim = 0;
  const std::vector<float> centroids = p2b::device::read_codebook(o.codebook, &dim);
  p2b::sim::CAgent device(device_config(o, centroids, dim, keys));
  // The analyzer signs its first model once a batch has arrived: wait for it.
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(static_cast<int64_t>(o.wait_seconds * 1000));
  std::vector<uint8_t> bundle = p2b::device::fetch_model(o.analyzer, "/v1/model");
  while (bundle.empty() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    bundle = p2b::device::fetch_model(o.analyzer, "/v1/model");
  }
  if (bundle.empty()) {
    std::fprintf(stderr, "p2b-device: %s has no model after %.0f s\n", o.analyzer.c_str(),
                 o.wait_seconds);
    return 1;
  }
  p2b::sim::check(p2b_agent_apply_model(device.get(), bundle.data(), bundle.size()),
                  "apply the signed model");
  uint64_t version = 0;
  p2b::sim::check(p2b_agent_model_version(device.get(), &version), "model version");
  std::printf("model version %llu (%zu-byte signed bundle from %s) verified and applied\n",
              static_cast<unsigned long long>(version), bundle.size(), o.analyzer.c_str());
  return 0;
}

int run(int argc, char** argv) {
  Options o;
  CLI::App app(
      "Runs devices through the C API against running services: `report` posts their sealed\n"
      "envelopes to the shuffler, `model` fetches, verifies and applies the analyzer's model.",
      "p2b-device");
  p2b::tools::add_common_flags(app);
  // What the man page is made from (help2man reads --help-all for this
  // program): without it the subcommands' flags would be missing there.
  app.set_help_all_flag("--help-all", "print the help of both subcommands and exit");
  app.require_subcommand(1);
  CLI::App* rep = app.add_subcommand("report", "devices decide, reward and post their reports");
  add_device_flags(rep, &o);
  rep->add_option("--shuffler", o.shuffler, "the shuffler's URL, e.g. http://127.0.0.1:8710")
      ->required();
  rep->add_option("--users", o.users, "simulated users, one window each [1000]")
      ->check(CLI::Range(1U, 10000000U));
  CLI::App* mod = app.add_subcommand("model", "fetch, verify and apply the signed model");
  add_device_flags(mod, &o);
  mod->add_option("--analyzer", o.analyzer, "the analyzer's URL, e.g. http://127.0.0.1:8720")
      ->required();
  for (CLI::App* sub : {rep, mod}) {
    sub->add_option("--wait-seconds", o.wait_seconds,
                    "wait this long for the shuffler to be ready, or for a first model [30]")
        ->check(CLI::Range(0.0, 3600.0));
  }
  const int parsed = p2b::tools::parse_command_line(app, argc, argv);
  if (parsed >= 0) return parsed;
  return rep->parsed() ? report(o) : model(o);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "p2b-device: error: %s\n", e.what());
    return 1;
  }
}
