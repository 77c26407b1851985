#include "demo/pg_databases.hpp"

#include <cstdio>
#include <stdexcept>

#include "common/pg/connection.hpp"
#include "common/pg/result.hpp"
#include "common/store_url.hpp"
#include "proc/run_command.hpp"

namespace p2b::demo {

namespace fs = std::filesystem;

namespace {

constexpr const char* kDatabases[] = {"p2b_demo_shuffler", "p2b_demo_analyzer"};

// `url` (postgresql://[userinfo@]host[:port][/db][?params]) naming
// `database` instead.
std::string with_database(const std::string& url, const std::string& database) {
  const std::size_t scheme = url.find("://");
  if (scheme == std::string::npos) throw std::runtime_error("not a postgresql:// URL");
  const std::size_t query = url.find('?', scheme + 3);
  const std::size_t slash = url.find('/', scheme + 3);
  const std::size_t host_end = std::min(slash, query);
  std::string out = url.substr(0, host_end) + "/" + database;
  if (query != std::string::npos) out += url.substr(query);
  return out;
}

}  // namespace

PgDatabases::PgDatabases(const std::string& server_url, const fs::path& out)
    : out_(out), server_url_(server_url) {
  std::string admin_url = server_url;
  if (server_url.empty()) {
    // In the system's temporary directory, as for the tests: under root the
    // server runs as p2b-pgtest, which could not reach an --out below a
    // private (0700) directory. The cluster's guard removes it however the
    // demo ends; its log is copied into --out.
    cluster_ = p2b::proc::PgCluster::start_primary(p2b::proc::PgClusterOptions{});
    admin_url = cluster_->url("postgres");
    where_ = "a throwaway cluster on 127.0.0.1:" + std::to_string(cluster_->port()) + " (data in " +
             cluster_->dir() + ")";
  } else {
    where_ = p2b::common::redact_password(server_url);
  }
  // Fresh databases: every run starts at model version 1, like the SQLite
  // files the demo removes.
  p2b::pg::Connection admin(admin_url);
  for (const char* db : kDatabases) {
    admin.exec(std::string("DROP DATABASE IF EXISTS ") + db);
    admin.exec(std::string("CREATE DATABASE ") + db);
  }
}

PgDatabases::~PgDatabases() {
  if (!cluster_) return;
  try {
    const std::string log = cluster_->log();
    if (FILE* f = std::fopen((out_ / "postgresql.log").c_str(), "w")) {
      std::fwrite(log.data(), 1, log.size(), f);
      std::fclose(f);
    }
  } catch (const std::exception&) {
    // the log is a convenience; the cluster still goes away
  }
  cluster_.reset();
}

std::string PgDatabases::url_of(const std::string& database) const {
  return cluster_ ? cluster_->url(database) : with_database(server_url_, database);
}

PgDatabases::Model PgDatabases::newest_model() const {
  p2b::pg::Connection conn(analyzer_url());
  // kind 0: the private model (the raw baseline never runs on PostgreSQL).
  const p2b::pg::Result r = conn.query(
      "SELECT version, reports FROM models WHERE kind = 0 ORDER BY version DESC LIMIT 1");
  Model m;
  if (r.rows() == 1) {
    m.version = r.int8(0, 0);
    m.reports = r.int8(0, 1);
  }
  return m;
}

void make_worker_keys(const fs::path& keys, const fs::path& dir, const std::string& keygen_bin) {
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::owner_all);
  for (const char* box : {"analyzer.box.pk", "analyzer.box.sk"}) {
    fs::copy_file(keys / box, dir / box, fs::copy_options::overwrite_existing);
  }
  if (fs::exists(dir / "analyzer.ack.sk")) return;
  const fs::path made = dir.string() + ".keygen";
  fs::remove_all(made);
  if (p2b::proc::run_command({keygen_bin, "--out", made.string()}, true) != 0) {
    throw std::runtime_error("p2b-keygen (worker ack key) failed");
  }
  fs::copy_file(made / "analyzer.sign.pk", dir / "analyzer.ack.pk");
  fs::copy_file(made / "analyzer.sign.sk", dir / "analyzer.ack.sk");
  fs::remove_all(made);
}

}  // namespace p2b::demo
