// p2b-local-demo: the P2B loop in one process, on the paper's synthetic
// environment. Early users run cold agents and report through the real
// reporter; a server pools their data two ways (raw, and P2B reports decoded
// to centroids after crowd-blending thresholding); late users then start cold
// or warm from either pool. All agents are the device library via its C API.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <sodium.h>

#include <array>

#include "sim/c_agent.hpp"
#include "sim/late_cohort.hpp"
#include "sim/progress.hpp"
#include "sim/simplex_codebook.hpp"
#include "sim/synthetic_env.hpp"
#include "wire/envelope_open.hpp"
#include "wire/model_bundle.hpp"

namespace {

using p2b::sim::CAgent;
using p2b::sim::check;
using p2b::sim::Estimate;
using p2b::sim::Late;
using p2b::sim::Model;
using p2b::sim::progress;

struct Options {
  uint32_t users = 50000;  // early (sharing) users; the late cohort is users * 3/7
  uint32_t dim = 10;
  uint32_t actions = 10;
  uint32_t digits = 1;
  uint32_t codes = 1024;
  uint32_t window = 10;  // t: also the interactions per user
  double participation = 0.5;
  uint32_t threshold = 10;
  double beta = 0.1;
  uint64_t seed = 1;
  int kmeans_iterations = 15;
  std::string out_dir = "out/local-demo";
};

void usage() {
  std::printf(
      "usage: p2b-local-demo [--users N] [--dim D] [--actions K] [--codes k] [--window t]\n"
      "                      [--p P] [--threshold L] [--beta B] [--seed S]\n"
      "                      [--kmeans-iterations I] [--out DIR]\n"
      "Runs cold vs warm-started agents on the P2B synthetic environment (paper Eq. 4).\n");
}

bool parse(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      usage();
      std::exit(0);
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "error: %s needs a value\n", a.c_str());
      return false;
    }
    const char* v = argv[++i];
    char* end = nullptr;
    auto num = [&](double lo, double hi) {
      const double x = std::strtod(v, &end);
      if (end == v || *end != '\0' || !(x >= lo && x <= hi)) {
        std::fprintf(stderr, "error: %s %s is not a number in [%g, %g]\n", a.c_str(), v, lo, hi);
        std::exit(2);
      }
      return x;
    };
    if (a == "--users")
      o->users = static_cast<uint32_t>(num(10, 1e7));
    else if (a == "--dim")
      o->dim = static_cast<uint32_t>(num(2, P2B_MAX_DIM));
    else if (a == "--actions")
      o->actions = static_cast<uint32_t>(num(2, 1024));
    else if (a == "--codes")
      o->codes = static_cast<uint32_t>(num(1, 65536));
    else if (a == "--window")
      o->window = static_cast<uint32_t>(num(1, 4096));
    else if (a == "--p")
      o->participation = num(1e-6, 1 - 1e-6);
    else if (a == "--threshold")
      o->threshold = static_cast<uint32_t>(num(1, 1e9));
    else if (a == "--beta")
      o->beta = num(0, 1);
    else if (a == "--seed")
      o->seed = static_cast<uint64_t>(num(0, 9e15));
    else if (a == "--kmeans-iterations")
      o->kmeans_iterations = static_cast<int>(num(1, 1000));
    else if (a == "--out")
      o->out_dir = v;
    else {
      std::fprintf(stderr, "error: unknown option %s\n", a.c_str());
      usage();
      return false;
    }
  }
  return true;
}

// What the shuffler keeps of an envelope: the crowd id and the still-sealed
// inner layer. Nothing about the sender.
struct Shuffled {
  uint32_t crowd_id;
  std::array<uint8_t, p2b::kInnerBytes> inner;
};

// The deployment's keys, made fresh for this run (p2b-keygen writes them to
// files for real deployments).
struct DemoKeys {
  p2b::server::BoxKey shuffler{}, analyzer{};
  uint8_t verify_pk[crypto_sign_PUBLICKEYBYTES]{};
  uint8_t sign_sk[crypto_sign_SECRETKEYBYTES]{};
  DemoKeys() {
    if (sodium_init() < 0) throw std::runtime_error("libsodium failed to start");
    uint8_t pk[crypto_box_PUBLICKEYBYTES], sk[crypto_box_SECRETKEYBYTES];
    crypto_box_keypair(pk, sk);
    p2b::server::make_box_key(pk, sk, &shuffler);
    crypto_box_keypair(pk, sk);
    p2b::server::make_box_key(pk, sk, &analyzer);
    crypto_sign_keypair(verify_pk, sign_sk);
    sodium_memzero(sk, sizeof sk);
  }
  ~DemoKeys() { sodium_memzero(sign_sk, sizeof sign_sk); }
  DemoKeys(const DemoKeys&) = delete;
  DemoKeys& operator=(const DemoKeys&) = delete;
};

Model export_model(const CAgent& server, const Options& o) {
  Model m{std::vector<double>(static_cast<size_t>(o.actions) * o.dim * o.dim),
          std::vector<double>(static_cast<size_t>(o.actions) * o.dim)};
  check(p2b_agent_export(server.get(), m.a.data(), m.b.data(), o.actions, o.dim), "export");
  return m;
}

// The shuffler's batch step, in-process: permute, then drop every record
// whose crowd id occurs fewer than `l` times in the batch. The service draws
// the permutation from the CSPRNG; the simulation seeds it, so a run repeats.
std::vector<Shuffled> shuffle_and_threshold(std::vector<Shuffled> batch, uint32_t l,
                                            uint64_t seed) {
  p2b::sim::Draws draws(seed);
  for (size_t i = batch.size(); i > 1; --i) {
    std::swap(batch[i - 1], batch[draws.bits() % i]);
  }
  std::unordered_map<uint32_t, uint32_t> count;
  for (const Shuffled& r : batch) ++count[r.crowd_id];
  std::vector<Shuffled> kept;
  for (const Shuffled& r : batch) {
    if (count[r.crowd_id] >= l) kept.push_back(r);
  }
  return kept;
}

// The analyzer's last step: the global model as a signed bundle, version
// increasing with every publication.
std::vector<uint8_t> sign_model(const Model& m, const Options& o, const CAgent& device,
                                const DemoKeys& keys, uint64_t version) {
  p2b::server::ModelSpec spec;
  spec.dim = o.dim;
  spec.n_actions = o.actions;
  spec.version = version;
  spec.created_unix = static_cast<uint64_t>(std::time(nullptr));
  p2b_fingerprints fp;
  check(p2b_agent_fingerprints(device.get(), &fp), "fingerprints");
  std::memcpy(spec.codebook_fp, fp.codebook, sizeof spec.codebook_fp);
  std::vector<uint8_t> bundle;
  std::string err;
  if (!p2b::server::build_model_bundle(spec, m.a.data(), m.b.data(), keys.sign_sk, &bundle, &err)) {
    throw std::runtime_error("analyzer: " + err);
  }
  return bundle;
}

std::vector<uint32_t> checkpoints(uint32_t users) {
  std::vector<uint32_t> out;
  for (double n = 1000; n < users; n *= 2) out.push_back(static_cast<uint32_t>(n));
  out.push_back(users);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, &o)) return 2;
  try {
    const auto t0 = std::chrono::steady_clock::now();
    const unsigned threads = std::max(1U, std::thread::hardware_concurrency());
    std::printf("p2b-local-demo %s: d=%u |A|=%u k=%u q=%u t=%u p=%.2f l=%u beta=%.2f seed=%llu\n",
                p2b_version_string(), o.dim, o.actions, o.codes, o.digits, o.window,
                o.participation, o.threshold, o.beta, static_cast<unsigned long long>(o.seed));

    // 1. Codebook over the q-digit simplex grid.
    const std::vector<float> grid = p2b::sim::simplex_grid(o.dim, o.digits, 5'000'000);
    if (grid.empty()) throw std::runtime_error("simplex grid too large for the demo trainer");
    const std::size_t n_points = grid.size() / o.dim;
    if (o.codes > n_points) throw std::runtime_error("more codes than grid points");
    const auto km = p2b::sim::kmeans(
        grid, o.dim, o.codes, o.kmeans_iterations, o.seed, threads,
        [&](int it, double) { progress("training codebook", it, o.kmeans_iterations); });
    if (km.iterations < o.kmeans_iterations) progress("training codebook", 1, 1);
    std::printf(
        "codebook: %zu grid points -> %u codes, inertia %.1f after %d Lloyd iterations, "
        "cluster sizes %u..%u\n",
        n_points, o.codes, km.inertia, km.iterations, km.smallest_cluster, km.largest_cluster);

    // 2. Agents through the C API, seeded for reproducibility.
    p2b_config cfg;
    check(p2b_config_default(&cfg), "config");
    cfg.dim = o.dim;
    cfg.n_actions = o.actions;
    cfg.round_digits = o.digits;
    cfg.window = o.window;
    cfg.participation = o.participation;
    cfg.centroids = km.centroids.data();
    cfg.n_codes = o.codes;
    cfg.rng_mode = P2B_RNG_SEEDED;
    const DemoKeys keys;
    cfg.shuffler_public_key = keys.shuffler.pk;
    cfg.analyzer_public_key = keys.analyzer.pk;
    cfg.analyzer_verify_key = keys.verify_pk;
    CAgent device(cfg), pooled_server(cfg), private_server(cfg);
    std::printf("agent arena: %zu bytes (d=%u, |A|=%u, k=%u, %s)\n", device.footprint(), o.dim,
                o.actions, o.codes, "float");

    const p2b::sim::SyntheticEnv env(
        {o.dim, o.actions, o.beta, p2b::sim::kReferenceNoiseVariance, o.seed});
    const uint32_t late_users = std::max<uint32_t>(1, o.users * 3 / 7);
    const p2b::sim::CohortSpec cohort{o.dim, o.actions, o.window, o.seed, late_users};
    const Estimate cold = evaluate_late(device, env, cohort, nullptr);
    const Estimate oracle = evaluate_late(device, env, cohort, nullptr, Late::oracle);

    // 3. Early users: cold agents, raw data pooled, P2B reports collected.
    std::vector<Shuffled> reports;  // what the shuffler has received so far
    uint8_t envelope[P2B_ENVELOPE_BYTES];
    std::vector<float> x(o.dim), centroid(o.dim);
    std::vector<double> rbar(o.actions);
    std::vector<uint32_t> marks = checkpoints(o.users);
    std::string csv =
        "users,cold,cold_se,warm_nonprivate,warm_nonprivate_se,warm_private,warm_private_se,"
        "oracle,reports,kept_after_threshold\n";
    std::printf("\naverage reward of %u late users (+- one standard error %.4f)\n", late_users,
                cold.stderr_);
    std::printf("%9s %8s %17s %14s %8s %9s %9s\n", "users", "cold", "warm non-private",
                "warm private", "oracle", "reports", "below l");
    double eps = 0.0;
    check(p2b_epsilon_per_report(o.participation, &eps), "epsilon");
    size_t next_mark = 0;
    double last_np = 0.0, last_p = 0.0;
    size_t last_bundle_bytes = 0;
    for (uint32_t u = 1; u <= o.users; ++u) {
      device.reseed(o.seed * 1000003 + u);
      p2b::sim::Draws draws(o.seed * 104729 + u);
      for (uint32_t s = 0; s < o.window; ++s) {
        env.context(draws, x.data());
        env.expected_rewards(draws, x.data(), rbar.data());
        uint32_t action = 0;
        uint64_t id = 0;
        check(p2b_agent_decide(device.get(), x.data(), o.dim, &action, &id), "decide");
        const float r = draws.uniform() < rbar[action] ? 1.0F : 0.0F;
        check(p2b_agent_reward(device.get(), id, r), "reward");
        check(p2b_agent_learn(pooled_server.get(), x.data(), o.dim, action, r), "learn");
      }
      // Sealed on the device, opened by the shuffler: only the crowd id and
      // the inner ciphertext stay.
      size_t len = 0;
      while (p2b_agent_poll_report(device.get(), envelope, sizeof envelope, &len) == P2B_OK) {
        p2b::server::OuterOpened outer{};
        const auto st = p2b::server::open_outer(envelope, len, &keys.shuffler, 1, &outer);
        if (st != p2b::server::OpenStatus::ok) {
          throw std::runtime_error(std::string("shuffler: ") + p2b::server::open_status_str(st));
        }
        Shuffled rec{outer.crowd_id, {}};
        std::copy(outer.inner, outer.inner + p2b::kInnerBytes, rec.inner.begin());
        reports.push_back(rec);
      }
      if (u % 500 == 0 || u == o.users) progress("early users", u, o.users);
      if (u != marks[next_mark]) continue;
      ++next_mark;

      // The server side at this population: the shuffler shuffles and
      // thresholds; the analyzer opens the inner layers, decodes codes to
      // centroids and updates a fresh global model.
      const std::vector<Shuffled> kept =
          shuffle_and_threshold(reports, o.threshold, o.seed + next_mark);
      private_server.reset();
      for (const Shuffled& r : kept) {
        p2b::server::InnerOpened t{};
        const auto st =
            p2b::server::open_inner(r.inner.data(), r.inner.size(), &keys.analyzer, 1, &t);
        if (st != p2b::server::OpenStatus::ok) {
          throw std::runtime_error(std::string("analyzer: ") + p2b::server::open_status_str(st));
        }
        check(p2b_agent_centroid(private_server.get(), t.code, centroid.data(), o.dim), "centroid");
        check(p2b_agent_learn(private_server.get(), centroid.data(), o.dim, t.action, t.reward),
              "learn");
      }
      const Model pooled = export_model(pooled_server, o);
      Model priv = export_model(private_server, o);
      priv.signed_bundle = sign_model(priv, o, device, keys, next_mark);
      last_bundle_bytes = priv.signed_bundle.size();
      const Estimate warm_np = evaluate_late(device, env, cohort, &pooled);
      const Estimate warm_p = evaluate_late(device, env, cohort, &priv);
      std::fprintf(stderr, "\r%*s\r", 70, "");
      std::printf("%9u %8.4f %17.4f %14.4f %8.4f %9zu %9zu\n", u, cold.mean, warm_np.mean,
                  warm_p.mean, oracle.mean, reports.size(), reports.size() - kept.size());
      char line[256];
      std::snprintf(line, sizeof line, "%u,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%zu,%zu\n", u,
                    cold.mean, cold.stderr_, warm_np.mean, warm_np.stderr_, warm_p.mean,
                    warm_p.stderr_, oracle.mean, reports.size(), kept.size());
      csv += line;
      last_np = warm_np.mean;
      last_p = warm_p.mean;
    }

    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("\nlate cohort: %u users x %u interactions per setting\n", late_users, o.window);
    std::printf(
        "wire: every report was sealed on its device in a %d-byte envelope; the private\n"
        "      model went out as a %zu-byte Ed25519-signed bundle each late device "
        "verified\n",
        P2B_ENVELOPE_BYTES, last_bundle_bytes);
    std::printf(
        "privacy: epsilon per report %.4f (p=%.2f); each user closes %u window(s), so "
        "epsilon per user <= %.4f\n",
        eps, o.participation, 1U, eps);

    // Headroom view: how much of the cold-to-oracle gap each warm start closes.
    const double gap = oracle.mean - cold.mean;
    if (gap > 0) {
      std::printf(
          "gap closed at %u users: warm non-private %.0f%%, warm private %.0f%% "
          "(cold %.4f -> oracle %.4f)\n",
          o.users, 100.0 * (last_np - cold.mean) / gap, 100.0 * (last_p - cold.mean) / gap,
          cold.mean, oracle.mean);
    }
    std::string cmd = "mkdir -p '" + o.out_dir + "'";
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("cannot create " + o.out_dir);
    std::ofstream(o.out_dir + "/results.csv") << csv;
    std::printf("results: %s/results.csv\n", o.out_dir.c_str());
    std::printf("finished in %.1f s\n", secs);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "\np2b-local-demo: error: %s\n", e.what());
    return 1;
  }
}
