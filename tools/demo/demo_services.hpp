// p2b-demo's services as child processes on loopback: on SQLite one
// analyzer (which also takes the raw baseline) and one shuffler; on
// PostgreSQL an ingest node and a batcher of p2b-shuffler, an analyzer
// worker and a publisher, and the raw baseline on a SQLite analyzer of its
// own. Whatever is still running when this goes is stopped (2 s grace).
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "demo/pg_databases.hpp"
#include "demo_options.hpp"
#include "proc/service_process.hpp"
#include "sim/late_cohort.hpp"

namespace p2b::demo {

// What the services' /metrics say once the batch went through.
struct BatchFigures {
  double received = 0, thresholded = 0, forwarded = 0, applied = 0;
  PgDatabases::Model published;  // PostgreSQL: the newest model the publisher stored
};

struct ServiceExits {
  int shuffler = 0, analyzer = 0;  // the first failing exit status of each side, else 0
};

class Services {
 public:
  Services(const Options& o, std::filesystem::path out, std::filesystem::path codebook_file);
  Services(const Services&) = delete;
  Services& operator=(const Services&) = delete;

  // The analyzers (on PostgreSQL after creating the databases), each line said.
  void start_analyzers();
  // Where early users send their raw tuples (the non-private baseline).
  int raw_analyzer_port() const { return analyzer_.port(); }

  // Starts what takes the envelopes: one batch of `envelopes`, closed by its
  // last (SQLite: the shuffler; PostgreSQL: the ingest node).
  void start_intake(std::size_t envelopes);
  std::string intake_url() const;
  // After the upload. PostgreSQL: the batcher that closes every partition.
  void close_batch();
  // Waits until the batch is forwarded (and on PostgreSQL published).
  BatchFigures wait_for_batch();

  sim::Model private_model() const;
  sim::Model raw_model() const;
  ServiceExits stop();

 private:
  std::vector<std::string> analyzer_args(const std::filesystem::path& keys,
                                         const std::string& store) const;
  std::vector<std::string> pg_shuffler_args(const char* batch_partitions,
                                            const char* batch_seconds) const;
  void start_pg_analyzers();
  void start_sqlite_shuffler();
  void wait_for_publisher(BatchFigures* f);

  const Options& o_;
  const std::filesystem::path out_, codebook_file_, worker_keys_;
  std::string batch_size_ = "1";
  // Destroyed last: the processes stop before their databases go.
  std::unique_ptr<PgDatabases> pg_;
  // Destroyed in reverse: ingest, shuffler, worker, publisher, analyzer.
  proc::ServiceProcess analyzer_, publisher_, worker_, shuffler_, ingest_;
};

}  // namespace p2b::demo
