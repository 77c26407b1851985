// p2b-demo --store postgresql: the two databases the services run on (the
// shufflers' and the analyzer's, never shared: separate trust domains), on
// a throwaway cluster in the temporary directory or on a server the user names.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "proc/pg_cluster.hpp"

namespace p2b::demo {

class PgDatabases {
 public:
  // `server_url` empty: starts a throwaway cluster in the temporary directory (as
  // p2b-pgtest under root). Else a postgresql:// URL whose user may create
  // databases. Either way p2b_demo_shuffler and p2b_demo_analyzer are
  // dropped if present and created empty. Throws std::runtime_error.
  PgDatabases(const std::string& server_url, const std::filesystem::path& out);
  // Copies the throwaway cluster's server log to --out, stops it and
  // removes its directory.
  ~PgDatabases();
  PgDatabases(const PgDatabases&) = delete;
  PgDatabases& operator=(const PgDatabases&) = delete;

  std::string shuffler_url() const { return url_of("p2b_demo_shuffler"); }
  std::string analyzer_url() const { return url_of("p2b_demo_analyzer"); }
  // "a throwaway PostgreSQL 15 cluster on 127.0.0.1:PORT (data in DIR)"
  // or the server's URL without its password.
  std::string where() const { return where_; }

  struct Model {
    int64_t version = 0;  // 0: none published yet
    int64_t reports = 0;
  };
  // The newest private model the publisher stored.
  Model newest_model() const;

 private:
  std::string url_of(const std::string& database) const;

  std::filesystem::path out_;
  std::string server_url_;
  std::unique_ptr<p2b::proc::PgCluster> cluster_;
  std::string where_;
};

// A worker's key directory `dir`: the analyzer's box keys from `keys` and
// an ack key pair of its own (analyzer.ack.*, made with p2b-keygen), never
// the model signing key (docs/keys.md). An ack key already there is kept.
void make_worker_keys(const std::filesystem::path& keys, const std::filesystem::path& dir,
                      const std::string& keygen_bin);

}  // namespace p2b::demo
