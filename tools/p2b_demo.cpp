// p2b-demo: the whole P2B loop through real processes on loopback.
//
// Keys (p2b-keygen) and a codebook file are made if missing; p2b-analyzer and
// p2b-shuffler start as child processes; early users run the device library
// through its C API and POST their sealed envelopes to the shuffler; the
// analyzer's signed model is fetched over HTTP; late users then start cold,
// warm from the private (P2B) model, or warm from a non-private baseline
// model built from raw tuples; the services are stopped with SIGTERM.
// With --store postgresql the same job runs on PostgreSQL (a throwaway
// cluster in the temporary directory, or a server given by URL): an ingest node and a
// batcher process of p2b-shuffler, an analyzer worker and a publisher, and
// the raw baseline on a SQLite analyzer of its own. Each step is a file of
// tools/demo/.
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "demo/demo_inputs.hpp"
#include "demo/demo_options.hpp"
#include "demo/demo_services.hpp"
#include "demo/early_users.hpp"
#include "demo/late_users.hpp"
#include "device/device_io.hpp"
#include "sim/c_agent.hpp"
#include "sim/progress.hpp"
#include "sim/synthetic_env.hpp"

namespace fs = std::filesystem;

namespace {

using namespace p2b::demo;  // NOLINT(google-build-using-namespace): this file is its driver

// Fresh stores: every run starts at model version 1.
void remove_stores(const fs::path& out) {
  for (const char* f :
       {"shuffler.db", "shuffler.db-wal", "shuffler.db-shm", "analyzer.db", "analyzer.db-wal",
        "analyzer.db-shm", "analyzer-raw.db", "analyzer-raw.db-wal", "analyzer-raw.db-shm"}) {
    fs::remove(out / f);
  }
}

void print_central_dp(const Options& o) {
  std::printf("central DP: %s\n",
              o.central_epsilon == "off"
                  ? "off (P2B's own guarantee only, as in the paper; --central-epsilon EPS turns "
                    "it on)"
                  : ("epsilon " + o.central_epsilon + ", delta 1e-6 per report").c_str());
}

// The device library's configuration for every user, early and late.
p2b_config device_config(const p2b::device::DeviceKeys& keys, const std::vector<float>& centroids) {
  p2b_config cfg;
  p2b::sim::check(p2b_config_default(&cfg), "config");
  cfg.dim = kDim;
  cfg.n_actions = kActions;
  cfg.window = kWindow;
  cfg.participation = kParticipation;
  cfg.centroids = centroids.data();
  cfg.n_codes = static_cast<uint32_t>(centroids.size() / kDim);
  cfg.rng_mode = P2B_RNG_SEEDED;
  cfg.shuffler_public_key = keys.shuffler;
  cfg.analyzer_public_key = keys.analyzer;
  cfg.analyzer_verify_key = keys.verify;
  // The demo also warm-starts late users from the raw baseline, which
  // production devices refuse: this is an experiment.
  cfg.accept_baseline_models = 1;
  return cfg;
}

void envelopes_posted(std::size_t done, std::size_t total) {
  p2b::sim::progress("envelopes -> shuffler", static_cast<double>(done),
                     static_cast<double>(total));
}

// Early users share, the batch goes through the services, late users
// measure the models; the services stop before the summary is printed.
int run_demo(const Options& o, const fs::path& out, const std::vector<float>& centroids,
             const p2b::device::DeviceKeys& keys, const fs::path& codebook_file) {
  remove_stores(out);
  print_central_dp(o);
  Services services(o, out, codebook_file);
  services.start_analyzers();
  p2b::sim::CAgent device(device_config(keys, centroids));
  const p2b::sim::SyntheticEnv env(
      {kDim, kActions, 0.1, p2b::sim::kReferenceNoiseVariance, o.seed});
  const std::vector<std::string> envelopes =
      run_early_users(o, device, env, services.raw_analyzer_port());
  services.start_intake(envelopes.size());
  p2b::device::post_envelopes(services.intake_url(), envelopes, kEnvelopesPerPost,
                              envelopes_posted);
  services.close_batch();
  DemoSummary s;
  s.sent = envelopes.size();
  s.batch = services.wait_for_batch();
  const p2b::sim::Model private_model = services.private_model();
  s.bundle_bytes = private_model.signed_bundle.size();
  s.late = evaluate_late_users(o, device, env, private_model, services.raw_model());
  const ServiceExits exits = services.stop();
  report(o, out, s);
  std::printf("\nservices stopped (shuffler exit %d, analyzer exit %d); results: %s; ",
              exits.shuffler, exits.analyzer, (out / "results.csv").c_str());
  return exits.shuffler == 0 && exits.analyzer == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    const int parsed = parse_options(argc, argv, &o);
    if (parsed >= 0) return parsed;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "p2b-demo: error: %s\n", e.what());
    return 1;
  }
  const auto t0 = std::chrono::steady_clock::now();
  try {
    const fs::path out = o.out;
    fs::create_directories(out);
    std::printf("p2b-demo %s: d=%u |A|=%u k=%u t=%u p=%.2f l=%u, %u early users\n",
                p2b_version_string(), kDim, kActions, o.codes, kWindow, kParticipation, o.threshold,
                o.users);
    const p2b::device::DeviceKeys keys = load_or_make_keys(out / "keys");
    const fs::path codebook_file = out / ("codebook-k" + std::to_string(o.codes) + ".p2bc");
    const std::vector<float> centroids = load_or_make_codebook(codebook_file, o.codes, o.seed);
    const int rc = run_demo(o, out, centroids, keys, codebook_file);
    std::printf("%.1f s\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return rc;
  } catch (const std::exception& e) {
    // Services has stopped whatever it had started (2 s grace) by now.
    std::fprintf(stderr, "\np2b-demo: error: %s\n", e.what());
    return 1;
  }
}
