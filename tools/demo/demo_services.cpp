#include "demo_services.hpp"

#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <thread>
#include <utility>

#include "demo_inputs.hpp"
#include "device/device_io.hpp"
#include "proc/metrics.hpp"

namespace p2b::demo {
namespace {

namespace fs = std::filesystem;

double scrape(httplib::Client& cli, const std::string& metric) {
  const auto res = cli.Get("/metrics");
  return res && res->status == 200 ? proc::metric_value(res->body, metric) : -1.0;
}

double scrape(int port, const std::string& metric) {
  httplib::Client cli("127.0.0.1", port);
  return scrape(cli, metric);
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

// The signed model an analyzer serves, or an empty one before its first batch.
sim::Model fetch(const std::string& url, const char* path) {
  sim::Model m;
  m.signed_bundle = device::fetch_model(url, path);
  return m;
}

}  // namespace

Services::Services(const Options& o, fs::path out, fs::path codebook_file)
    : o_(o),
      out_(std::move(out)),
      codebook_file_(std::move(codebook_file)),
      worker_keys_(out_ / "worker-keys") {}

std::vector<std::string> Services::analyzer_args(const fs::path& keys,
                                                 const std::string& store) const {
  return {"--listen",
          "127.0.0.1:0",
          "--keys",
          keys.string(),
          "--shuffler-key",
          (out_ / "keys" / "shuffler.sign.pk").string(),
          "--threshold",
          std::to_string(o_.threshold),
          "--codebook",
          codebook_file_.string(),
          "--store",
          store,
          "--actions",
          std::to_string(kActions),
          "--central-epsilon",
          o_.central_epsilon};
}

void Services::start_analyzers() {
  // PostgreSQL analyzers refuse the raw baseline: on PostgreSQL a SQLite
  // analyzer of its own takes only /v1/raw.
  const std::string raw_name = o_.on_postgresql() ? "analyzer-raw" : "analyzer";
  std::vector<std::string> raw_args =
      analyzer_args(out_ / "keys", (out_ / (raw_name + ".db")).string());
  raw_args.emplace_back("--enable-raw-baseline");
  analyzer_.start(P2B_ANALYZER_BIN, raw_args, (out_ / (raw_name + ".log")).string());
  if (o_.on_postgresql()) {
    std::printf(
        "raw baseline: %s, a SQLite analyzer taking only /v1/raw (PostgreSQL "
        "analyzers refuse it; log %s)\n",
        analyzer_.url().c_str(), (out_ / (raw_name + ".log")).c_str());
    start_pg_analyzers();
  } else {
    std::printf("analyzer: %s (log %s)\n", analyzer_.url().c_str(),
                (out_ / "analyzer.log").c_str());
  }
}

void Services::start_pg_analyzers() {
  pg_ = std::make_unique<PgDatabases>(o_.pg_server(), out_);
  std::printf("store: postgresql, %s\n", pg_->where().c_str());
  // Workers ack with a key of their own; only the publisher signs models.
  make_worker_keys(out_ / "keys", worker_keys_, P2B_KEYGEN_BIN);
  std::vector<std::string> args = analyzer_args(worker_keys_, pg_->analyzer_url());
  args.insert(args.end(), {"--role", "worker"});
  worker_.start(P2B_ANALYZER_BIN, args, (out_ / "analyzer-worker.log").string());
  args = analyzer_args(out_ / "keys", pg_->analyzer_url());
  args.insert(args.end(), {"--role", "publisher", "--publish-seconds", "0.5"});
  publisher_.start(P2B_ANALYZER_BIN, args, (out_ / "analyzer-publisher.log").string());
  std::printf("analyzer: worker %s, publisher %s (logs %s/analyzer-{worker,publisher}.log)\n",
              worker_.url().c_str(), publisher_.url().c_str(), out_.c_str());
}

// On PostgreSQL every partition is one batch of the whole population: an
// ingest node takes every envelope, then a batcher process closes each
// partition once. A crowd lives in one partition, so the crowds and the
// threshold are exactly those of the one SQLite batch.
std::vector<std::string> Services::pg_shuffler_args(const char* batch_partitions,
                                                    const char* batch_seconds) const {
  return {"--listen",
          "127.0.0.1:0",
          "--keys",
          (out_ / "keys").string(),
          "--store",
          pg_->shuffler_url(),
          "--partitions",
          std::to_string(kPgPartitions),
          "--batch-partitions",
          batch_partitions,
          "--analyzer",
          worker_.url(),
          "--analyzer-key",
          (worker_keys_ / "analyzer.ack.pk").string(),
          "--threshold",
          std::to_string(o_.threshold),
          "--batch-size",
          batch_size_,
          "--batch-seconds",
          batch_seconds};
}

void Services::start_sqlite_shuffler() {
  // The spool is sealed under its key, which lives outside the spool's
  // directory (docs/operations.md, "The spool key").
  const fs::path spool_key = out_ / "spool-key" / "shuffler.spool.key";
  if (!fs::exists(spool_key)) {
    run_or_throw("p2b-keygen",
                 {P2B_KEYGEN_BIN, "--shuffler-spool", "--out", spool_key.parent_path().string()});
  }
  fs::create_directories(out_ / "spool");
  shuffler_.start(
      P2B_SHUFFLER_BIN,
      {"--listen", "127.0.0.1:0", "--keys", (out_ / "keys").string(), "--spool",
       (out_ / "spool" / "shuffler.db").string(), "--spool-key", spool_key.string(), "--analyzer",
       analyzer_.url(), "--analyzer-key", (out_ / "keys" / "analyzer.sign.pk").string(),
       "--threshold", std::to_string(o_.threshold), "--batch-size", batch_size_, "--batch-seconds",
       "600"},
      (out_ / "shuffler.log").string());
  std::printf("shuffler: %s (log %s)\n", shuffler_.url().c_str(), (out_ / "shuffler.log").c_str());
}

void Services::start_intake(std::size_t envelopes) {
  // The paper's setting is one shuffler batch over the whole early
  // population, so the batch closes when the last of them has arrived.
  batch_size_ = std::to_string(std::max<std::size_t>(envelopes, 1));
  if (!o_.on_postgresql()) {
    start_sqlite_shuffler();
    return;
  }
  ingest_.start(P2B_SHUFFLER_BIN, pg_shuffler_args("none", "600"),
                (out_ / "shuffler-ingest.log").string());
  std::printf("shuffler: ingest node %s, %d partitions (log %s)\n", ingest_.url().c_str(),
              kPgPartitions, (out_ / "shuffler-ingest.log").c_str());
}

std::string Services::intake_url() const {
  return o_.on_postgresql() ? ingest_.url() : shuffler_.url();
}

void Services::close_batch() {
  if (!o_.on_postgresql()) return;
  shuffler_.start(P2B_SHUFFLER_BIN, pg_shuffler_args("all", "1"),
                  (out_ / "shuffler-batcher.log").string());
  std::printf("shuffler: batcher %s for all partitions (log %s)\n", shuffler_.url().c_str(),
              (out_ / "shuffler-batcher.log").c_str());
}

BatchFigures Services::wait_for_batch() {
  httplib::Client to_shuffler("127.0.0.1", shuffler_.port());
  // The batch closes with its last envelope; wait until it is forwarded.
  std::printf("waiting for the shuffler to threshold and forward its batch\n");
  wait_for(
      [&] {
        return scrape(to_shuffler, "p2b_shuffler_spool_depth") == 0.0 &&
               scrape(to_shuffler, "p2b_shuffler_batches_total") >= 1.0;
      },
      60, "the shuffler did not forward");
  BatchFigures f;
  f.received =
      scrape(o_.on_postgresql() ? ingest_.port() : shuffler_.port(), "p2b_shuffler_received_total");
  f.thresholded = scrape(to_shuffler, "p2b_shuffler_thresholded_total");
  f.forwarded = scrape(to_shuffler, "p2b_shuffler_forwarded_total");
  f.applied = scrape(o_.on_postgresql() ? worker_.port() : analyzer_.port(),
                     "p2b_analyzer_records_applied_total");
  if (o_.on_postgresql() && f.applied > 0) wait_for_publisher(&f);
  return f;
}

// The publisher sums the workers' shards into a model every 0.5 s, and
// every node serves the newest within about 0.5 s.
void Services::wait_for_publisher(BatchFigures* f) {
  std::printf("waiting for the publisher's model to hold every applied report\n");
  wait_for(
      [&] {
        f->published = pg_->newest_model();
        return static_cast<double>(f->published.reports) >= f->applied;
      },
      60, "the publisher did not publish every applied report");
  httplib::Client to_publisher("127.0.0.1", publisher_.port());
  wait_for(
      [&] {
        return scrape(to_publisher, "p2b_analyzer_model_version") >=
               static_cast<double>(f->published.version);
      },
      30, "the publisher did not serve its newest model");
}

sim::Model Services::private_model() const {
  return fetch(o_.on_postgresql() ? publisher_.url() : analyzer_.url(), "/v1/model");
}

sim::Model Services::raw_model() const {
  return fetch(analyzer_.url(), "/v1/model?kind=raw");
}

ServiceExits Services::stop() {
  ServiceExits e;
  e.shuffler =
      o_.on_postgresql() ? first_failure({ingest_.stop(), shuffler_.stop()}) : shuffler_.stop();
  e.analyzer = o_.on_postgresql()
                   ? first_failure({worker_.stop(), publisher_.stop(), analyzer_.stop()})
                   : analyzer_.stop();
  return e;
}

}  // namespace p2b::demo
