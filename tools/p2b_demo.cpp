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
// the raw baseline on a SQLite analyzer of its own.
#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../ports/posix/sodium_port.hpp"
#include "cli/tool_cli.hpp"
#include "demo/pg_databases.hpp"
#include "device/device_io.hpp"
#include "p2b/codebook_format.hpp"
#include "proc/metrics.hpp"
#include "proc/run_command.hpp"
#include "proc/service_process.hpp"
#include "sim/c_agent.hpp"
#include "sim/late_cohort.hpp"
#include "sim/progress.hpp"
#include "sim/simplex_codebook.hpp"
#include "sim/synthetic_env.hpp"

namespace fs = std::filesystem;

namespace {

using p2b::sim::CAgent;
using p2b::sim::check;
using p2b::sim::Estimate;
using p2b::sim::Late;
using p2b::sim::Model;
using p2b::sim::progress;

constexpr uint32_t kDim = 10;
constexpr uint32_t kActions = 10;
constexpr uint32_t kWindow = 10;
constexpr double kParticipation = 0.5;
constexpr std::size_t kEnvelopesPerPost = 256;
constexpr std::size_t kRawPerPost = 4096;
constexpr int kPgPartitions = 4;

struct Options {
  uint32_t users = 50000;  // early (sharing) users; the late cohort is 3/7 of it
  uint32_t threshold = 10;
  uint32_t codes = 1024;
  uint64_t seed = 1;
  std::string out = "out/demo";
  // "sqlite", "postgresql" (a throwaway cluster) or a postgresql:// URL.
  std::string store = "sqlite";
  // The analyzers' --central-epsilon. Off by default: the demo measures what
  // P2B's own mechanism (participation and crowd thresholds) costs, as the
  // paper does (docs/demo.md); deployments ship with it on.
  std::string central_epsilon = "off";
  bool on_postgresql() const { return store != "sqlite"; }
  // The server to use, empty for a throwaway cluster.
  std::string pg_server() const { return store == "postgresql" ? "" : store; }
};

// A whole number in [1, 1e7] (1e4 and 2.5e4 are accepted, as before CLI11),
// cast to the field's type.
template <typename T>
void add_count(CLI::App& app, const char* name, const char* type, T* field, const char* help) {
  app.add_option_function<std::string>(
         name,
         [=](const std::string& v) {
           char* end = nullptr;
           const double x = std::strtod(v.c_str(), &end);
           if (end == v.c_str() || *end != '\0' || !(x >= 1 && x <= 1e7)) {
             throw std::invalid_argument(std::string(name) + " needs a number in [1, 1e7], got " +
                                         v);
           }
           *field = static_cast<T>(x);
         },
         help)
      ->type_name(type);
}

// Returns -1 to go on, else the exit status (0 after --help or --version, 2
// on bad usage).
int parse(int argc, char** argv, Options* o) {
  CLI::App app(
      "Runs P2B end to end: keys, codebook, p2b-shuffler and p2b-analyzer on loopback,\n"
      "devices through the C API, a signed model, cold vs warm late users.",
      "p2b-demo");
  p2b::tools::add_common_flags(app);
  add_count(app, "--users", "N", &o->users, "early (sharing) users [50000]");
  add_count(app, "--threshold", "L", &o->threshold,
            "crowd-blending threshold l, shuffler and analyzer [10]");
  add_count(app, "--codes", "k", &o->codes, "codebook size [1024]");
  add_count(app, "--seed", "S", &o->seed, "[1]");
  app.add_option("--out", o->out, "keys, codebook, service data and results [out/demo]")
      ->type_name("DIR");
  app.add_option_function<std::string>(
         "--store",
         [o](const std::string& v) {
           if (v != "sqlite" && v != "postgresql" && v.rfind("postgresql://", 0) != 0 &&
               v.rfind("postgres://", 0) != 0) {
             throw std::invalid_argument("--store needs sqlite, postgresql or postgresql://URL");
           }
           o->store = v;
         },
         "the services' backend: sqlite (files under --out), postgresql (a throwaway "
         "cluster in the temporary directory) or postgresql://URL (a server whose user may create "
         "the "
         "databases p2b_demo_shuffler and p2b_demo_analyzer, dropped first) [sqlite]")
      ->type_name("STORE");
  app.add_option_function<std::string>(
         "--central-epsilon",
         [o](const std::string& v) {
           char* end = nullptr;
           const double x = std::strtod(v.c_str(), &end);
           if (v != "off" && (end == v.c_str() || *end != '\0' || !(x > 0 && x <= 100))) {
             throw std::invalid_argument("--central-epsilon needs a number in (0, 100] or off");
           }
           o->central_epsilon = v;
         },
         "the analyzers' central DP (docs/analyzer.md): EPS per report over the horizon, or off "
         "(P2B's own guarantee only, as in the paper) [off]")
      ->type_name("EPS|off");
  return p2b::tools::parse_command_line(app, argc, argv);
}

void check_core(p2b::Status s, const char* what) {
  check(static_cast<p2b_status>(static_cast<int32_t>(s)), what);
}

void run_or_throw(const std::string& what, const std::vector<std::string>& argv) {
  if (p2b::proc::run_command(argv, true) != 0) throw std::runtime_error(what + " failed");
}

using p2b::device::DeviceKeys;

DeviceKeys load_or_make_keys(const fs::path& dir) {
  if (!fs::exists(dir / "shuffler.box.pk")) {
    std::printf("keys: none in %s, running p2b-keygen\n", dir.c_str());
    run_or_throw("p2b-keygen", {P2B_KEYGEN_BIN, "--out", dir.string()});
  } else if (!fs::exists(dir / "shuffler.sign.pk")) {
    // A key set from before batches were signed: the demo's own, replaced.
    std::printf("keys: %s has no shuffler signing key, running p2b-keygen --force\n", dir.c_str());
    run_or_throw("p2b-keygen", {P2B_KEYGEN_BIN, "--out", dir.string(), "--force"});
  }
  return p2b::device::read_device_keys(dir);
}

// The codebook file, trained on the d=10, q=1 simplex grid when missing.
std::vector<float> load_or_make_codebook(const fs::path& file, uint32_t k, uint64_t seed) {
  if (!fs::exists(file)) {
    const std::vector<float> grid = p2b::sim::simplex_grid(kDim, 1, 1'000'000);
    const int iterations = 15;
    const auto km = p2b::sim::kmeans(
        grid, kDim, k, iterations, seed, std::max(1U, std::thread::hardware_concurrency()),
        [&](int it, double) { progress("training codebook", it, iterations); });
    if (km.iterations < iterations) progress("training codebook", 1, 1);
    const p2b::CryptoPort crypto = p2b::port::sodium_crypto();
    std::size_t n = 0;
    check_core(p2b::encoded_codebook_size(km.centroids.data(), k, kDim, 1, &n), "codebook size");
    std::vector<uint8_t> bytes(n);
    std::size_t written = 0;
    check_core(
        p2b::encode_codebook(crypto, km.centroids.data(), k, kDim, 1, bytes.data(), n, &written),
        "codebook encode");
    std::ofstream(file, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(n));
    std::printf("codebook: trained k=%u (inertia %.1f), wrote %s\n", k, km.inertia, file.c_str());
  }
  uint32_t dim = 0;
  std::vector<float> centroids = p2b::device::read_codebook(file, &dim);
  if (dim != kDim) throw std::runtime_error("codebook has another dimension");
  return centroids;
}

void post_or_throw(httplib::Client& cli, const std::string& path, const std::string& body,
                   int want) {
  const auto res = cli.Post(path, body, "application/octet-stream");
  if (!res || res->status != want) {
    throw std::runtime_error(
        "POST " + path + " answered " +
        (res ? std::to_string(res->status) + " " + res->body : std::string("nothing")));
  }
}

double scrape(httplib::Client& cli, const std::string& metric) {
  const auto res = cli.Get("/metrics");
  return res && res->status == 200 ? p2b::proc::metric_value(res->body, metric) : -1.0;
}

// The signed model the analyzer serves, or an empty one before its first batch.
Model fetch_model(const std::string& url, const char* path) {
  Model m;
  m.signed_bundle = p2b::device::fetch_model(url, path);
  return m;
}

void envelopes_posted(std::size_t done, std::size_t total) {
  progress("envelopes -> shuffler", static_cast<double>(done), static_cast<double>(total));
}

// Polls `done` every 200 ms for at most `seconds`; throws `what` past that.
template <typename Done>
void wait_for(Done done, int seconds, const std::string& what) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) {
      throw std::runtime_error(what + " within " + std::to_string(seconds) + " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

// The first failing exit status of several services, else 0.
int first_failure(std::initializer_list<int> statuses) {
  for (const int s : statuses) {
    if (s != 0) return s;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    const int parsed = parse(argc, argv, &o);
    if (parsed >= 0) return parsed;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "p2b-demo: error: %s\n", e.what());
    return 1;
  }
  const auto t0 = std::chrono::steady_clock::now();
  // SQLite: the analyzer (with the raw baseline) and the shuffler.
  // PostgreSQL: the raw baseline's SQLite analyzer and the batcher, plus
  // an ingest node, an analyzer worker and the publisher.
  p2b::proc::ServiceProcess analyzer, shuffler, ingest, worker, publisher;
  std::unique_ptr<p2b::demo::PgDatabases> pg;
  try {
    const fs::path out = o.out;
    fs::create_directories(out);
    std::printf("p2b-demo %s: d=%u |A|=%u k=%u t=%u p=%.2f l=%u, %u early users\n",
                p2b_version_string(), kDim, kActions, o.codes, kWindow, kParticipation, o.threshold,
                o.users);
    const DeviceKeys keys = load_or_make_keys(out / "keys");
    const fs::path codebook_file = out / ("codebook-k" + std::to_string(o.codes) + ".p2bc");
    const std::vector<float> centroids = load_or_make_codebook(codebook_file, o.codes, o.seed);

    // Fresh stores: every run starts at model version 1.
    for (const char* f :
         {"shuffler.db", "shuffler.db-wal", "shuffler.db-shm", "analyzer.db", "analyzer.db-wal",
          "analyzer.db-shm", "analyzer-raw.db", "analyzer-raw.db-wal", "analyzer-raw.db-shm"}) {
      fs::remove(out / f);
    }
    auto analyzer_args = [&](const fs::path& keys, const std::string& store) {
      std::vector<std::string> args{"--listen",       "127.0.0.1:0",
                                    "--keys",         keys.string(),
                                    "--shuffler-key", (out / "keys" / "shuffler.sign.pk").string(),
                                    "--threshold",    std::to_string(o.threshold),
                                    "--codebook",     codebook_file.string(),
                                    "--store",        store,
                                    "--actions",      std::to_string(kActions)};
      args.insert(args.end(), {"--central-epsilon", o.central_epsilon});
      return args;
    };
    std::printf("central DP: %s\n",
                o.central_epsilon == "off"
                    ? "off (P2B's own guarantee only, as in the paper; --central-epsilon EPS turns "
                      "it on)"
                    : ("epsilon " + o.central_epsilon + ", delta 1e-6 per report").c_str());
    // PostgreSQL analyzers refuse the raw baseline: on PostgreSQL a SQLite
    // analyzer of its own takes only /v1/raw.
    const std::string raw_name = o.on_postgresql() ? "analyzer-raw" : "analyzer";
    std::vector<std::string> raw_args =
        analyzer_args(out / "keys", (out / (raw_name + ".db")).string());
    raw_args.emplace_back("--enable-raw-baseline");
    analyzer.start(P2B_ANALYZER_BIN, raw_args, (out / (raw_name + ".log")).string());
    if (o.on_postgresql()) {
      std::printf(
          "raw baseline: %s, a SQLite analyzer taking only /v1/raw (PostgreSQL "
          "analyzers refuse it; log %s)\n",
          analyzer.url().c_str(), (out / (raw_name + ".log")).c_str());
    } else {
      std::printf("analyzer: %s (log %s)\n", analyzer.url().c_str(),
                  (out / "analyzer.log").c_str());
    }
    httplib::Client to_analyzer("127.0.0.1", analyzer.port());
    const fs::path worker_keys = out / "worker-keys";
    if (o.on_postgresql()) {
      pg = std::make_unique<p2b::demo::PgDatabases>(o.pg_server(), out);
      std::printf("store: postgresql, %s\n", pg->where().c_str());
      // Workers ack with a key of their own; only the publisher signs models.
      p2b::demo::make_worker_keys(out / "keys", worker_keys, P2B_KEYGEN_BIN);
      std::vector<std::string> args = analyzer_args(worker_keys, pg->analyzer_url());
      args.insert(args.end(), {"--role", "worker"});
      worker.start(P2B_ANALYZER_BIN, args, (out / "analyzer-worker.log").string());
      args = analyzer_args(out / "keys", pg->analyzer_url());
      args.insert(args.end(), {"--role", "publisher", "--publish-seconds", "0.5"});
      publisher.start(P2B_ANALYZER_BIN, args, (out / "analyzer-publisher.log").string());
      std::printf("analyzer: worker %s, publisher %s (logs %s/analyzer-{worker,publisher}.log)\n",
                  worker.url().c_str(), publisher.url().c_str(), out.c_str());
    }

    p2b_config cfg;
    check(p2b_config_default(&cfg), "config");
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
    CAgent device(cfg);
    const p2b::sim::SyntheticEnv env(
        {kDim, kActions, 0.1, p2b::sim::kReferenceNoiseVariance, o.seed});

    // Early users: devices report through the shuffler; every raw interaction
    // also goes to the analyzer's non-private baseline (experiments only).
    std::vector<std::string> envelopes;  // uploaded once the early phase ends
    std::string raw;
    std::size_t n_raw = 0;
    auto flush_raw = [&] {
      if (n_raw == 0) return;
      std::string body = "P2BR";
      for (uint32_t v : {kDim, static_cast<uint32_t>(n_raw)}) {
        body.append(reinterpret_cast<const char*>(&v), 4);
      }
      post_or_throw(to_analyzer, "/v1/raw", body + raw, 200);
      raw.clear();
      n_raw = 0;
    };
    std::vector<float> x(kDim);
    std::vector<double> rbar(kActions);
    uint8_t env_bytes[P2B_ENVELOPE_BYTES];
    for (uint32_t u = 1; u <= o.users; ++u) {
      device.reseed(o.seed * 1000003 + u);
      p2b::sim::Draws draws(o.seed * 104729 + u);
      for (uint32_t s = 0; s < kWindow; ++s) {
        env.context(draws, x.data());
        env.expected_rewards(draws, x.data(), rbar.data());
        uint32_t action = 0;
        uint64_t id = 0;
        check(p2b_agent_decide(device.get(), x.data(), kDim, &action, &id), "decide");
        const float r = draws.uniform() < rbar[action] ? 1.0F : 0.0F;
        check(p2b_agent_reward(device.get(), id, r), "reward");
        raw.append(reinterpret_cast<const char*>(x.data()), kDim * sizeof(float));
        raw.append(reinterpret_cast<const char*>(&action), 4);
        raw.append(reinterpret_cast<const char*>(&r), 4);
        if (++n_raw == kRawPerPost) flush_raw();
      }
      std::size_t len = 0;
      while (p2b_agent_poll_envelope(device.get(), env_bytes, sizeof env_bytes, &len) == P2B_OK) {
        envelopes.emplace_back(reinterpret_cast<const char*>(env_bytes), len);
      }
      if (u % 500 == 0 || u == o.users) progress("early users", u, o.users);
    }
    flush_raw();
    const std::size_t sent = envelopes.size();

    // The paper's setting is one shuffler batch over the whole early
    // population, so the batch closes when the last of them has arrived.
    const std::string batch_size = std::to_string(std::max<std::size_t>(sent, 1));
    if (!o.on_postgresql()) {
      // The spool is sealed under its key, which lives outside the spool's
      // directory (docs/operations.md, "The spool key").
      const fs::path spool_key = out / "spool-key" / "shuffler.spool.key";
      if (!fs::exists(spool_key)) {
        run_or_throw("p2b-keygen", {P2B_KEYGEN_BIN, "--shuffler-spool", "--out",
                                    spool_key.parent_path().string()});
      }
      fs::create_directories(out / "spool");
      shuffler.start(
          P2B_SHUFFLER_BIN,
          {"--listen", "127.0.0.1:0", "--keys", (out / "keys").string(), "--spool",
           (out / "spool" / "shuffler.db").string(), "--spool-key", spool_key.string(),
           "--analyzer", analyzer.url(), "--analyzer-key",
           (out / "keys" / "analyzer.sign.pk").string(), "--threshold", std::to_string(o.threshold),
           "--batch-size", batch_size, "--batch-seconds", "600"},
          (out / "shuffler.log").string());
      std::printf("shuffler: %s (log %s)\n", shuffler.url().c_str(),
                  (out / "shuffler.log").c_str());
    }
    // On PostgreSQL every partition is one batch of the whole population:
    // an ingest node takes every envelope, then a batcher process closes
    // each partition once. A crowd lives in one partition, so the crowds
    // and the threshold are exactly those of the one SQLite batch.
    auto pg_shuffler_args = [&](const char* batch_partitions, const char* batch_seconds) {
      return std::vector<std::string>{"--listen",
                                      "127.0.0.1:0",
                                      "--keys",
                                      (out / "keys").string(),
                                      "--store",
                                      pg->shuffler_url(),
                                      "--partitions",
                                      std::to_string(kPgPartitions),
                                      "--batch-partitions",
                                      batch_partitions,
                                      "--analyzer",
                                      worker.url(),
                                      "--analyzer-key",
                                      (worker_keys / "analyzer.ack.pk").string(),
                                      "--threshold",
                                      std::to_string(o.threshold),
                                      "--batch-size",
                                      batch_size,
                                      "--batch-seconds",
                                      batch_seconds};
    };
    if (o.on_postgresql()) {
      ingest.start(P2B_SHUFFLER_BIN, pg_shuffler_args("none", "600"),
                   (out / "shuffler-ingest.log").string());
      std::printf("shuffler: ingest node %s, %d partitions (log %s)\n", ingest.url().c_str(),
                  kPgPartitions, (out / "shuffler-ingest.log").c_str());
    }
    httplib::Client to_ingest("127.0.0.1", o.on_postgresql() ? ingest.port() : shuffler.port());
    p2b::device::post_envelopes(o.on_postgresql() ? ingest.url() : shuffler.url(), envelopes,
                                kEnvelopesPerPost, envelopes_posted);
    if (o.on_postgresql()) {
      shuffler.start(P2B_SHUFFLER_BIN, pg_shuffler_args("all", "1"),
                     (out / "shuffler-batcher.log").string());
      std::printf("shuffler: batcher %s for all partitions (log %s)\n", shuffler.url().c_str(),
                  (out / "shuffler-batcher.log").c_str());
    }
    httplib::Client to_shuffler("127.0.0.1", shuffler.port());

    // The batch closes with its last envelope; wait until it is forwarded.
    std::printf("waiting for the shuffler to threshold and forward its batch\n");
    wait_for(
        [&] {
          return scrape(to_shuffler, "p2b_shuffler_spool_depth") == 0.0 &&
                 scrape(to_shuffler, "p2b_shuffler_batches_total") >= 1.0;
        },
        60, "the shuffler did not forward");
    const double received = scrape(to_ingest, "p2b_shuffler_received_total");
    const double thresholded = scrape(to_shuffler, "p2b_shuffler_thresholded_total");
    const double forwarded = scrape(to_shuffler, "p2b_shuffler_forwarded_total");
    httplib::Client to_worker("127.0.0.1", o.on_postgresql() ? worker.port() : analyzer.port());
    const double applied = scrape(to_worker, "p2b_analyzer_records_applied_total");
    // The publisher sums the workers' shards into a model every 0.5 s, and
    // every node serves the newest within about 0.5 s.
    p2b::demo::PgDatabases::Model published;
    if (o.on_postgresql() && applied > 0) {
      std::printf("waiting for the publisher's model to hold every applied report\n");
      wait_for(
          [&] {
            published = pg->newest_model();
            return static_cast<double>(published.reports) >= applied;
          },
          60, "the publisher did not publish every applied report");
      httplib::Client to_publisher("127.0.0.1", publisher.port());
      wait_for(
          [&] {
            return scrape(to_publisher, "p2b_analyzer_model_version") >=
                   static_cast<double>(published.version);
          },
          30, "the publisher did not serve its newest model");
    }
    const Model private_model =
        fetch_model(o.on_postgresql() ? publisher.url() : analyzer.url(), "/v1/model");
    const Model raw_model = fetch_model(analyzer.url(), "/v1/model?kind=raw");

    // Late users on fresh agents.
    const uint32_t late_users = std::max<uint32_t>(1, o.users * 3 / 7);
    const p2b::sim::CohortSpec cohort{kDim, kActions, kWindow, o.seed, late_users};
    progress("late users", 0, 4);
    const Estimate cold = p2b::sim::evaluate_late(device, env, cohort, nullptr);
    progress("late users", 1, 4);
    const Estimate warm_p = private_model.signed_bundle.empty()
                                ? cold
                                : p2b::sim::evaluate_late(device, env, cohort, &private_model);
    progress("late users", 2, 4);
    const Estimate warm_np = raw_model.signed_bundle.empty()
                                 ? cold
                                 : p2b::sim::evaluate_late(device, env, cohort, &raw_model);
    progress("late users", 3, 4);
    const Estimate oracle = p2b::sim::evaluate_late(device, env, cohort, nullptr, Late::oracle);
    progress("late users", 4, 4);

    const int shuffler_exit =
        o.on_postgresql() ? first_failure({ingest.stop(), shuffler.stop()}) : shuffler.stop();
    const int analyzer_exit =
        o.on_postgresql() ? first_failure({worker.stop(), publisher.stop(), analyzer.stop()})
                          : analyzer.stop();
    double eps = 0.0;
    check(p2b_epsilon_per_report(kParticipation, &eps), "epsilon");

    std::printf(
        "\nreports: %zu sent, %.0f accepted by the shuffler, %.0f dropped below l=%u, "
        "%.0f forwarded, %.0f applied by the analyzer\n",
        sent, received, thresholded, o.threshold, forwarded, applied);
    if (o.on_postgresql()) {
      // Every accepted report above l must be in the published model once.
      const double passed = received - thresholded;
      const double in_model = static_cast<double>(published.reports);
      std::printf(
          "backend: postgresql (%d partitions; ingest node + batcher, worker + publisher; the "
          "raw baseline on SQLite): model version %lld holds %.0f reports, lost %.0f, "
          "duplicated %.0f\n",
          kPgPartitions, static_cast<long long>(published.version), in_model,
          std::max(0.0, passed - in_model), std::max(0.0, in_model - passed));
    }
    std::printf("model: %zu-byte signed bundle fetched over HTTP, verified by every late device\n",
                private_model.signed_bundle.size());
    std::printf(
        "privacy: epsilon %.4f per report; each user closes one window, so <= %.4f per "
        "user\n\n",
        eps, eps);
    const std::string header = "late users (" + std::to_string(late_users) + ")";
    std::printf("%-34s %10s %10s\n", header.c_str(), "reward", "+- s.e.");
    const std::pair<const char*, Estimate> rows[] = {{"cold (local only)", cold},
                                                     {"warm, private (P2B)", warm_p},
                                                     {"warm, non-private (raw tuples)", warm_np},
                                                     {"oracle (best arm in expectation)", oracle}};
    std::string csv = "setting,reward,stderr\n";
    for (const auto& [name, e] : rows) {
      std::printf("%-34s %10.4f %10.4f\n", name, e.mean, e.stderr_);
      // Names hold commas: quote them.
      csv += "\"" + std::string(name) + "\"," + std::to_string(e.mean) + "," +
             std::to_string(e.stderr_) + "\n";
    }
    std::ofstream(out / "results.csv") << csv;
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("\nservices stopped (shuffler exit %d, analyzer exit %d); results: %s; %.1f s\n",
                shuffler_exit, analyzer_exit, (out / "results.csv").c_str(), secs);
    return shuffler_exit == 0 && analyzer_exit == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "\np2b-demo: error: %s\n", e.what());
    for (p2b::proc::ServiceProcess* p : {&ingest, &shuffler, &worker, &publisher, &analyzer}) {
      p->stop(2.0);
    }
    return 1;
  }
}
