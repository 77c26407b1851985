// Scale-out benchmark (not a test): envelopes per second accepted by 1, 2
// and 4 p2b-shuffler ingest processes on one PostgreSQL, beside the
// single-process SQLite backend, all durable (SQLite synchronous=FULL;
// PostgreSQL fsync and synchronous_commit on), with the whole pipeline
// running behind them: batcher processes, analyzer workers and a publisher
// (or, with a service that has no PostgreSQL backend yet, what it has).
// docs/benchmarks.md ("Scale-out") has the method and the figures.
//
//   scale_out [--seconds S] [--warmup S] [--clients C] [--per-request N]
//             [--pool P] [--ingest 1,2,4] [--backends sqlite,postgresql]
//             [--partitions P] [--batch-size N] [--publication-reports 1e6,1e7]
//             [--no-failover] [--ingest-only] [--out DIR]
//
// For every point it prints and writes (DIR/scale_out.json, or
// DIR/scale_out_ingest.json with --ingest-only) the accepted envelopes per
// second, the p50/p99 request latency, the CPU microseconds per accepted
// envelope of every component (utime + stime from /proc/PID/stat; for
// PostgreSQL the postmaster and all its children), the batches and records
// the batchers delivered per second, PostgreSQL's WAL bytes per envelope,
// and the load generator's own CPU (it shares the machine), the machine's
// busy cores (/proc/stat, anyone's work), and the floor under ingest: one
// envelope's crypto_box_seal_open timed here (open_floor.hpp). At the end,
// one "goal ingest" line per backend (issue #30) and the PostgreSQL ingest
// rate from 1 to N processes with where it bends. Also, on
// PostgreSQL, the publisher's time at each accumulated report count
// (publication_timing.hpp) and the failover time of the primary.
// bench/plot_scale_out.py draws DIR/scale_out.png. Envelopes are sealed
// before the run (DIR/pool.bin, reused); every point starts from empty
// stores.
#include <httplib.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "bench_deployment.hpp"
#include "cli/tool_cli.hpp"
#include "common/pg/connection.hpp"
#include "envelope_pool.hpp"
#include "open_floor.hpp"
#include "proc/pg_cluster.hpp"
#include "proc/run_command.hpp"
#include "proc/service_process.hpp"
#include "proc_cpu.hpp"
#include "publication_timing.hpp"

namespace fs = std::filesystem;
using nlohmann::ordered_json;
using p2b::bench::Envelope;
using p2b::proc::ServiceProcess;
using Clock = std::chrono::steady_clock;

namespace {

struct Settings {
  double seconds = 10;
  double warmup = 2;
  int clients = 8;
  std::size_t per_request = 50;
  std::size_t pool = 300000;
  std::vector<int> ingest = {1, 2, 4};
  std::vector<std::string> backends = {"sqlite", "postgresql"};
  int partitions = 4;
  // A batcher process that ingests nothing closes on its timer only (every
  // second), so P x this bounds the records/s the batchers can take.
  std::size_t batch_size = 1000;
  std::vector<double> publication_reports = {1e6, 1e7};
  bool failover = true;
  bool ingest_only = false;  // no batchers, no analyzers
  fs::path out;
};

// What the services in this build can do: the PostgreSQL spool (ingest
// and batcher roles) and the PostgreSQL analyzer (worker and publisher).
struct Capabilities {
  bool shuffler_postgresql = false;
  bool analyzer_roles = false;
};

std::string help_text(const char* binary) {
  std::string text;
  FILE* p = popen((std::string(binary) + " --help 2>&1").c_str(), "r");
  if (p == nullptr) return text;
  std::array<char, 4096> buf{};
  while (const std::size_t n = std::fread(buf.data(), 1, buf.size(), p)) text.append(buf.data(), n);
  pclose(p);
  return text;
}

Capabilities probe_capabilities(const char* shuffler, const char* analyzer) {
  Capabilities c;
  c.shuffler_postgresql = help_text(shuffler).find("--batch-partitions") != std::string::npos;
  c.analyzer_roles = help_text(analyzer).find("--role") != std::string::npos;
  return c;
}

// Where shufflers that deliver nothing point: a port nobody listens on.
const char* const kNoAnalyzer = "http://127.0.0.1:9";

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The processes of one point, by component, for CPU accounting.
struct Deployment {
  std::vector<std::unique_ptr<ServiceProcess>> ingest, batchers, analyzers;
  pid_t postmaster = -1;
  std::string pg_admin_url;   // for the WAL position and the commit count
  std::string analyzer_mode;  // what ran behind the shufflers

  std::vector<int> ingest_ports() const {
    std::vector<int> p;
    for (const auto& s : ingest) p.push_back(s->port());
    return p;
  }
};

// What the run observes at one instant.
struct Snapshot {
  Clock::time_point at;
  std::size_t accepted = 0;
  std::map<std::string, double> cpu;  // seconds, by component
  double batches = 0, records = 0, applied = 0;
  double wal_bytes = 0, commits = 0;  // PostgreSQL: WAL position, committed transactions
  double machine_busy = 0;            // CPU seconds every core of the machine spent busy
};

double sum_cpu(const std::vector<std::unique_ptr<ServiceProcess>>& ps) {
  double s = 0;
  for (const auto& p : ps) s += p2b::bench::cpu_seconds(p->pid());
  return s;
}

double sum_metric(const std::vector<std::unique_ptr<ServiceProcess>>& ps, const char* name) {
  double s = 0;
  for (const auto& p : ps) s += std::max(0.0, p2b::bench::scrape(p->port(), name));
  return s;
}

Snapshot snapshot(const Deployment& d, std::size_t accepted) {
  Snapshot s;
  s.at = Clock::now();
  s.accepted = accepted;
  s.cpu["shuffler ingest"] = sum_cpu(d.ingest);
  s.cpu["shuffler batcher"] = sum_cpu(d.batchers);
  s.cpu["analyzer"] = sum_cpu(d.analyzers);
  s.cpu["postgres"] = p2b::bench::cluster_cpu_seconds(d.postmaster);
  s.cpu["load generator"] = p2b::bench::cpu_seconds(getpid());
  s.machine_busy = p2b::bench::machine_busy_seconds();
  // Where ingest and batching share a process (SQLite), batches come from
  // the ingest process.
  const auto& closers = d.batchers.empty() ? d.ingest : d.batchers;
  s.batches = sum_metric(closers, "p2b_shuffler_batches_total");
  s.records = sum_metric(closers, "p2b_shuffler_forwarded_total");
  s.applied = sum_metric(d.analyzers, "p2b_analyzer_records_applied_total");
  if (!d.pg_admin_url.empty()) {
    // Commit counts reach pg_stat_database within about a second: over a
    // window of several seconds, close enough.
    p2b::pg::Connection c(d.pg_admin_url);
    const p2b::pg::Result r = c.query(
        "SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::int8, "
        "(SELECT sum(xact_commit)::int8 FROM pg_stat_database)");
    s.wal_bytes = static_cast<double>(r.int8(0, 0));
    s.commits = static_cast<double>(r.int8(0, 1));
  }
  return s;
}

// Closed-loop clients posting N envelopes per request round-robin over
// the ingest nodes; every 202 is read for how many envelopes it accepted.
ordered_json drive(const Settings& st, const Deployment& d, const std::vector<Envelope>& pool) {
  const std::vector<int> ports = d.ingest_ports();
  struct Request {
    Clock::time_point start, end;
  };
  std::atomic<std::size_t> next{0}, accepted{0}, duplicates{0}, failed_envelopes{0};
  std::atomic<bool> stop{false};
  std::vector<std::vector<Request>> requests(static_cast<std::size_t>(st.clients));
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(st.clients));
  for (int c = 0; c < st.clients; ++c) {
    threads.emplace_back([&, c] {
      std::vector<std::unique_ptr<httplib::Client>> clients;
      for (const int port : ports) {
        clients.push_back(std::make_unique<httplib::Client>("127.0.0.1", port));
        clients.back()->set_keep_alive(true);
        clients.back()->set_tcp_nodelay(true);
        clients.back()->set_read_timeout(30, 0);
      }
      std::size_t turn = static_cast<std::size_t>(c);
      while (!stop) {
        const std::size_t first = next.fetch_add(st.per_request);
        if (first + st.per_request > pool.size()) break;
        std::string body;
        body.reserve(st.per_request * p2b::kEnvelopeBytes);
        for (std::size_t i = first; i < first + st.per_request; ++i) {
          body.append(reinterpret_cast<const char*>(pool[i].data()), pool[i].size());
        }
        httplib::Client& cli = *clients[turn++ % clients.size()];
        const auto s = Clock::now();
        const auto res = cli.Post("/v1/reports", body, "application/octet-stream");
        const auto e = Clock::now();
        if (res && res->status == 202) {
          const auto reply = nlohmann::json::parse(res->body, nullptr, false);
          const std::size_t n = reply.is_object() ? reply.value("accepted", std::size_t{0}) : 0;
          accepted += n;
          duplicates += reply.is_object() ? reply.value("duplicates", std::size_t{0}) : 0;
          failed_envelopes += st.per_request - std::min(st.per_request, n);
          requests[static_cast<std::size_t>(c)].push_back({s, e});
        } else {
          failed_envelopes += st.per_request;
          std::this_thread::sleep_for(std::chrono::milliseconds(50));  // no hot loop on 503
        }
      }
    });
  }
  auto wait_until = [&](Clock::time_point t) {
    while (Clock::now() < t && next.load() < pool.size()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  };
  const auto to_duration = [](double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  wait_until(Clock::now() + to_duration(st.warmup));
  const Snapshot a = snapshot(d, accepted.load());
  wait_until(a.at + to_duration(st.seconds));
  const Snapshot b = snapshot(d, accepted.load());
  stop = true;
  for (auto& t : threads) t.join();

  std::vector<double> latencies;
  for (const auto& per_client : requests) {
    for (const Request& r : per_client) {
      if (r.start >= a.at && r.end <= b.at) {
        latencies.push_back(std::chrono::duration<double, std::milli>(r.end - r.start).count());
      }
    }
  }
  const double secs = std::chrono::duration<double>(b.at - a.at).count();
  const double got = static_cast<double>(b.accepted - a.accepted);
  ordered_json point;
  point["ingest_processes"] = ports.size();
  point["seconds"] = secs;
  point["envelopes_accepted"] = got;
  point["envelopes_per_s"] = got / secs;
  point["requests"] = latencies.size();
  point["latency_ms_p50"] = percentile(latencies, 0.50);
  point["latency_ms_p99"] = percentile(latencies, 0.99);
  ordered_json cpu;
  for (const auto& [name, s1] : b.cpu) {
    cpu[name] = got > 0 ? 1e6 * (s1 - a.cpu.at(name)) / got : 0.0;
  }
  point["cpu_us_per_envelope"] = cpu;
  point["cpu_cores_busy"] = [&] {
    ordered_json busy;
    for (const auto& [name, s1] : b.cpu) busy[name] = (s1 - a.cpu.at(name)) / secs;
    return busy;
  }();
  // All work on the machine, this benchmark's and anyone else's: a point
  // whose machine is busy on every core is bound by the machine.
  point["machine_cores_busy"] = (b.machine_busy - a.machine_busy) / secs;
  point["batches_per_s"] = (b.batches - a.batches) / secs;
  point["batched_records_per_s"] = (b.records - a.records) / secs;
  point["applied_records_per_s"] = (b.applied - a.applied) / secs;
  if (!d.pg_admin_url.empty() && got > 0) {
    point["postgres_wal_bytes_per_envelope"] = (b.wal_bytes - a.wal_bytes) / got;
    point["postgres_commits_per_s"] = (b.commits - a.commits) / secs;
  }
  point["duplicates"] = duplicates.load();
  point["envelopes_not_accepted"] = failed_envelopes.load();
  point["pool_ran_out"] = next.load() >= pool.size();
  // Other work on the machine competes for its cores: its 1-minute load
  // average at the end of the window, for the record.
  point["load_average_1m"] = [] {
    std::ifstream in("/proc/loadavg");
    double load = 0;
    in >> load;
    return load;
  }();
  point["analyzer"] = d.analyzer_mode.empty() ? "none (ingest only)" : d.analyzer_mode;
  point["mode"] = d.analyzers.empty() ? "ingest only" : "pipeline";
  return point;
}

class Runner {
 public:
  Runner(Settings st, fs::path dep) : st_(std::move(st)), dep_(std::move(dep)) {}

  // PostgreSQL analyzer workers must not hold the model signing key: their
  // own directory has the box keys and an ack key (analyzer.ack.*), which
  // the shufflers pin instead of analyzer.sign.pk.
  fs::path worker_keys() const {
    fs::path dir = dep_ / "worker-keys";
    if (fs::exists(dir / "analyzer.ack.sk")) return dir;
    fs::create_directories(dir);
    for (const auto& e : fs::directory_iterator(dep_ / "keys")) {
      if (e.path().filename() != "analyzer.sign.sk") {
        fs::copy_file(e.path(), dir / e.path().filename(), fs::copy_options::overwrite_existing);
      }
    }
    std::array<uint8_t, crypto_sign_PUBLICKEYBYTES> pk{};
    std::array<uint8_t, crypto_sign_SECRETKEYBYTES> sk{};
    crypto_sign_keypair(pk.data(), sk.data());
    p2b::bench::write_file(dir / "analyzer.ack.pk", pk.data(), pk.size(), fs::perms(0644));
    p2b::bench::write_file(dir / "analyzer.ack.sk", sk.data(), sk.size(), fs::perms(0600));
    sodium_memzero(sk.data(), sk.size());
    return dir;
  }

  std::string key(const char* name) const { return (dep_ / "keys" / name).string(); }

  std::vector<std::string> analyzer_args(const std::string& store) const {
    return {"--listen",       "127.0.0.1:0",
            "--keys",         (dep_ / "keys").string(),
            "--store",        store,
            "--codebook",     (dep_ / "codebook.p2bc").string(),
            "--actions",      std::to_string(p2b::bench::kActions),
            "--shuffler-key", key("shuffler.sign.pk")};
  }
  // `analyzer_key`: the key the analyzer signs acks with.
  std::vector<std::string> shuffler_args(const std::string& store, const std::string& analyzer_url,
                                         const std::string& analyzer_key) const {
    std::vector<std::string> args = {
        "--listen",        "127.0.0.1:0",
        "--keys",          (dep_ / "keys").string(),
        "--store",         store,
        "--analyzer",      analyzer_url,
        "--analyzer-key",  analyzer_key,
        "--batch-size",    st_.ingest_only ? "1048576" : std::to_string(st_.batch_size),
        "--batch-seconds", st_.ingest_only ? "86400" : "1"};
    // A SQLite spool is sealed under its key; a PostgreSQL one takes none.
    if (store.rfind("postgresql://", 0) != 0) {
      args.insert(args.end(), {"--spool-key", (dep_ / "keys/shuffler.spool.key").string()});
    }
    return args;
  }

  ordered_json sqlite_point(const std::vector<Envelope>& pool) {
    const fs::path dir = fresh_dir("sqlite-1");
    Deployment d;
    std::string analyzer_url = kNoAnalyzer;
    if (!st_.ingest_only) {
      d.analyzer_mode = "sqlite, role all";
      d.analyzers.push_back(start(P2B_ANALYZER_BIN, analyzer_args((dir / "analyzer.db").string()),
                                  dir / "analyzer.log"));
      analyzer_url = d.analyzers[0]->url();
    }
    d.ingest.push_back(
        start(P2B_SHUFFLER_BIN,
              shuffler_args((dir / "shuffler.db").string(), analyzer_url, key("analyzer.sign.pk")),
              dir / "shuffler.log"));
    ordered_json p = drive(st_, d, pool);
    p["backend"] = "sqlite";
    p["outer_open_floor_us"] = p2b::bench::outer_open_floor_us(pool, dep_ / "keys");
    return p;
  }

  // Creates the point's two databases (dropped first) on `pg`.
  static void create_databases(p2b::proc::PgCluster& pg, const std::vector<std::string>& names) {
    p2b::pg::Connection admin(pg.url("postgres"));
    for (const std::string& db : names) {
      admin.exec("DROP DATABASE IF EXISTS " + db);
      admin.exec("CREATE DATABASE " + db + " OWNER p2b");
    }
  }

  ordered_json pg_point(p2b::proc::PgCluster& pg, int n, const std::vector<Envelope>& pool,
                        const Capabilities& caps) {
    const std::string name = std::to_string(n);
    create_databases(pg, {"spool_" + name, "model_" + name});
    Deployment d;
    start_pg(
        &d, [&](const std::string& db) { return pg.url(db); }, name, n, caps);
    d.postmaster = pg.postmaster_pid();
    d.pg_admin_url = pg.url("postgres");
    ordered_json p = drive(st_, d, pool);
    p["outer_open_floor_us"] = p2b::bench::outer_open_floor_us(pool, dep_ / "keys");
    p["backend"] = caps.shuffler_postgresql ? "postgresql" : "sqlite spool, postgresql analyzer";
    if (caps.shuffler_postgresql) p["partitions"] = st_.partitions;
    return p;
  }

  // Starts the analyzers, the batchers and `n` ingest processes on the
  // databases spool_NAME and model_NAME, reached through `url_of(db)`.
  void start_pg(Deployment* dp, const std::function<std::string(const std::string&)>& url_of,
                const std::string& name, int n, const Capabilities& caps) {
    Deployment& d = *dp;
    const fs::path dir = fresh_dir("postgresql-" + name);
    const std::string spool_url = url_of("spool_" + name);
    const std::string model_url = url_of("model_" + name);
    std::string ack_key = key("analyzer.sign.pk");
    const std::string partitions = std::to_string(st_.partitions);
    if (st_.ingest_only && caps.shuffler_postgresql) {
      for (int i = 0; i < n; ++i) {
        std::vector<std::string> args = shuffler_args(spool_url, kNoAnalyzer, ack_key);
        args.insert(args.end(), {"--partitions", partitions, "--batch-partitions", "none"});
        d.ingest.push_back(
            start(P2B_SHUFFLER_BIN, args, dir / ("ingest-" + std::to_string(i) + ".log")));
      }
      return;
    }
    if (caps.analyzer_roles) {
      d.analyzer_mode = "postgresql, 2 workers + 1 publisher";
      const fs::path wk = worker_keys();
      ack_key = (wk / "analyzer.ack.pk").string();
      for (const std::string role : {"worker", "worker", "publisher"}) {
        std::vector<std::string> args = analyzer_args(model_url);
        if (role == "worker") args[3] = wk.string();  // --keys
        args.insert(args.end(), {"--role", role});
        d.analyzers.push_back(
            start(P2B_ANALYZER_BIN, args,
                  dir / ("analyzer-" + std::to_string(d.analyzers.size()) + "-" + role + ".log")));
      }
    } else {
      d.analyzer_mode = "sqlite, role all (no PostgreSQL analyzer in this build)";
      d.analyzers.push_back(start(P2B_ANALYZER_BIN, analyzer_args((dir / "analyzer.db").string()),
                                  dir / "analyzer.log"));
    }
    if (!caps.shuffler_postgresql) {
      // A shuffler without a PostgreSQL spool: one SQLite process (which
      // closes its own batches) in front of the PostgreSQL analyzer.
      d.ingest.push_back(
          start(P2B_SHUFFLER_BIN,
                shuffler_args((dir / "shuffler.db").string(), d.analyzers[0]->url(), ack_key),
                dir / "shuffler.log"));
      return;
    }
    const std::size_t receivers = caps.analyzer_roles ? 2 : 1;  // workers, not the publisher
    // One batcher process per receiving analyzer; each leases partitions
    // as they come free, so together they close every partition.
    for (std::size_t i = 0; i < receivers; ++i) {
      std::vector<std::string> args = shuffler_args(spool_url, d.analyzers[i]->url(), ack_key);
      args.insert(args.end(), {"--partitions", partitions, "--batch-partitions", "all"});
      d.batchers.push_back(
          start(P2B_SHUFFLER_BIN, args, dir / ("batcher-" + std::to_string(i) + ".log")));
    }
    for (int i = 0; i < n; ++i) {
      std::vector<std::string> args = shuffler_args(spool_url, d.analyzers[0]->url(), ack_key);
      args.insert(args.end(), {"--partitions", partitions, "--batch-partitions", "none"});
      d.ingest.push_back(
          start(P2B_SHUFFLER_BIN, args, dir / ("ingest-" + std::to_string(i) + ".log")));
    }
  }

  // Failover: one ingest process and the rest of the pipeline on URLs
  // naming the primary and a streaming standby (target_session_attrs =
  // read-write); while one client posts, the primary is killed (-9) and
  // the standby promoted. Measured: the time from the kill to the end of
  // the first request that started after the kill and got a 202.
  ordered_json failover(p2b::proc::PgCluster& primary, const std::vector<Envelope>& pool,
                        const Capabilities& caps) {
    create_databases(primary, {"spool_failover", "model_failover"});
    const auto standby = primary.start_standby();
    const auto url_of = [&](const std::string& db) {
      return "postgresql://p2b@127.0.0.1:" + std::to_string(primary.port()) +
             ",127.0.0.1:" + std::to_string(standby->port()) + "/" + db +
             "?target_session_attrs=read-write";
    };
    Deployment d;
    start_pg(&d, url_of, "failover", 1, caps);
    std::atomic<bool> stop{false};
    std::atomic<Clock::rep> kill_returned{Clock::time_point::max().time_since_epoch().count()};
    std::atomic<Clock::rep> back{0};  // end of the first 202 begun after the kill
    std::atomic<std::size_t> ok{0}, refused{0};
    std::thread client([&] {
      httplib::Client cli("127.0.0.1", d.ingest[0]->port());
      cli.set_connection_timeout(2, 0);
      cli.set_read_timeout(30, 0);
      constexpr std::size_t kPerRequest = 10;
      std::size_t next = 0;
      while (!stop) {
        if (next + kPerRequest > pool.size()) next = 0;  // replays get 202 too
        std::string body;
        for (std::size_t i = next; i < next + kPerRequest; ++i) {
          body.append(reinterpret_cast<const char*>(pool[i].data()), pool[i].size());
        }
        next += kPerRequest;
        const Clock::rep started = Clock::now().time_since_epoch().count();
        const auto res = cli.Post("/v1/reports", body, "application/octet-stream");
        if (res && res->status == 202) {
          ++ok;
          if (started > kill_returned.load() && back.load() == 0) {
            back = Clock::now().time_since_epoch().count();
          }
        } else {
          ++refused;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
    std::this_thread::sleep_for(std::chrono::seconds(2));
    const std::size_t ok_before = ok.load();
    const auto t_kill = Clock::now();
    primary.kill9();
    kill_returned = Clock::now().time_since_epoch().count();
    const auto t_promote = Clock::now();
    standby->promote();
    const double promote_s = seconds_since(t_promote);
    const auto deadline = Clock::now() + std::chrono::seconds(120);
    while (back.load() == 0 && Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    stop = true;
    client.join();
    ordered_json f;
    f["accepted_requests_before_kill"] = ok_before;
    f["promote_seconds"] = promote_s;
    if (back.load() != 0) {
      f["kill_to_first_202_seconds"] =
          std::chrono::duration<double>(Clock::time_point(Clock::duration(back.load())) - t_kill)
              .count();
    } else {
      f["kill_to_first_202_seconds"] = nullptr;  // not within 120 s
    }
    f["requests_refused_meanwhile"] = refused.load();
    return f;
  }

 private:
  fs::path fresh_dir(const std::string& name) const {
    fs::path dir = st_.out / "run" / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
  }
  static std::unique_ptr<ServiceProcess> start(const char* bin,
                                               const std::vector<std::string>& args,
                                               const fs::path& log) {
    auto p = std::make_unique<ServiceProcess>();
    p->start(bin, args, log.string(), 60.0);
    return p;
  }

  Settings st_;
  fs::path dep_;
};

std::string first_line_of(const std::string& file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      const std::size_t colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  }
  return "";
}

ordered_json machine() {
  ordered_json m;
  m["cpu"] = first_line_of("/proc/cpuinfo", "model name");
  m["cores"] = std::thread::hardware_concurrency();
  m["memory_kib"] = p2b::bench::proc_field("/proc/meminfo", "MemTotal");
  std::ifstream os("/proc/sys/kernel/osrelease");
  std::string kernel;
  std::getline(os, kernel);
  m["kernel"] = kernel;
  return m;
}

// Envelopes one ingest core takes per second at the point's CPU per envelope.
double per_core(const ordered_json& p) {
  const double us = p["cpu_us_per_envelope"]["shuffler ingest"].get<double>();
  return us > 0 ? 1e6 / us : 0.0;
}

// The lines bench/speed_goals.sh collects (issue #30, item 2): one per
// backend, the first PostgreSQL point standing for its backend.
void print_goal_lines(const ordered_json& points) {
  bool pg_done = false;
  for (const auto& p : points) {
    const std::string backend = p["backend"].get<std::string>();
    if (backend == "postgresql" && pg_done) continue;
    const auto& cpu = p["cpu_us_per_envelope"];
    std::printf(
        "goal ingest %s: ingest %.1f us/env (goal <= 45), postgres %.1f us/env (goal <= 15), "
        "floor %.1f us/env, %.0f env/s per ingest core (goal >= 20000), %d ingest, load %.2f\n",
        backend.c_str(), cpu["shuffler ingest"].get<double>(), cpu["postgres"].get<double>(),
        p["outer_open_floor_us"].get<double>(), per_core(p), p["ingest_processes"].get<int>(),
        p["load_average_1m"].get<double>());
    if (backend == "postgresql") pg_done = true;
  }
}

// Issue #30, item 7: the PostgreSQL ingest rate from 1 to N processes, and
// where it bends: the cores each component kept busy against the machine's.
void print_scaling(const ordered_json& points) {
  std::vector<const ordered_json*> pg;
  for (const auto& p : points) {
    if (p["backend"] == "postgresql") pg.push_back(&p);
  }
  if (pg.empty()) return;
  const double base = (*pg.front())["envelopes_per_s"].get<double>();
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  std::printf("PostgreSQL ingest scaling on %u cores (%s):\n", cores,
              (*pg.front())["mode"].get<std::string>().c_str());
  std::printf(
      "  N     env/s  speed-up  per ingest core  cores busy: ingest  postgres  other  "
      "machine\n");
  for (const ordered_json* p : pg) {
    const auto& busy = (*p)["cpu_cores_busy"];
    const double ingest = busy["shuffler ingest"].get<double>();
    const double postgres = busy["postgres"].get<double>();
    double other = 0;
    for (auto it = busy.begin(); it != busy.end(); ++it) {
      if (it.key() != "shuffler ingest" && it.key() != "postgres") other += it->get<double>();
    }
    const double rate = (*p)["envelopes_per_s"].get<double>();
    const double machine = (*p)["machine_cores_busy"].get<double>();
    std::printf("  %d  %8.0f  %7.2fx  %15.0f  %18.2f  %8.2f  %5.2f  %7.2f%s\n",
                (*p)["ingest_processes"].get<int>(), rate, base > 0 ? rate / base : 0.0,
                per_core(*p), ingest, postgres, other, machine,
                machine > 0.9 * cores ? "  <- every core busy" : "");
  }
  std::printf(
      "  (machine: every process's CPU, other tenants' too. Once the machine's %u cores are "
      "busy, more ingest processes only share them: the curve bends there, and the rate is "
      "the cores this benchmark gets divided by ingest + postgres CPU per envelope)\n",
      cores);
}

void print_point(const ordered_json& p) {
  const auto& cpu = p["cpu_us_per_envelope"];
  std::printf(
      "%-10s %2d ingest  %8.0f env/s  p50 %7.2f ms  p99 %7.2f ms  | CPU us/env: ingest %5.1f  "
      "batcher %5.1f  analyzer %5.1f  postgres %5.1f  (loadgen %5.1f)  | %5.1f batches/s, "
      "%7.0f records/s batched\n",
      p["backend"].get<std::string>().c_str(), p["ingest_processes"].get<int>(),
      p["envelopes_per_s"].get<double>(), p["latency_ms_p50"].get<double>(),
      p["latency_ms_p99"].get<double>(), cpu["shuffler ingest"].get<double>(),
      cpu["shuffler batcher"].get<double>(), cpu["analyzer"].get<double>(),
      cpu["postgres"].get<double>(), cpu["load generator"].get<double>(),
      p["batches_per_s"].get<double>(), p["batched_records_per_s"].get<double>());
  std::printf(
      "           ingest %.0f env/s per ingest core; floor (crypto_box_seal_open, this run) "
      "%.1f us/env; load average %.2f\n",
      per_core(p), p["outer_open_floor_us"].get<double>(), p["load_average_1m"].get<double>());
  if (p.contains("postgres_wal_bytes_per_envelope")) {
    std::printf("           PostgreSQL: %.0f WAL bytes per envelope, %.0f commits/s\n",
                p["postgres_wal_bytes_per_envelope"].get<double>(),
                p["postgres_commits_per_s"].get<double>());
  }
  if (p["pool_ran_out"].get<bool>()) std::printf("           (the pool ran out: raise --pool)\n");
  if (p["envelopes_not_accepted"].get<std::size_t>() > 0) {
    std::printf("           (%zu envelopes were not accepted)\n",
                p["envelopes_not_accepted"].get<std::size_t>());
  }
  std::fflush(stdout);
}

int run(int argc, char** argv) {
  Settings st;
  std::string out_dir = "scale-out";
  CLI::App app(
      "Scale-out benchmark: envelopes/s, latency and CPU per envelope for 1, 2 and 4 "
      "p2b-shuffler ingest processes on PostgreSQL, beside the SQLite backend.",
      "scale_out");
  p2b::tools::add_common_flags(app);
  app.add_option("--seconds", st.seconds, "measured seconds per point [10]")
      ->check(CLI::Range(1.0, 3600.0));
  app.add_option("--warmup", st.warmup, "seconds of load before measuring [2]")
      ->check(CLI::Range(0.0, 600.0));
  app.add_option("--clients", st.clients, "concurrent connections [8]")->check(CLI::Range(1, 256));
  app.add_option("--per-request", st.per_request, "envelopes per request [50]")
      ->check(CLI::Range(1, 1000));
  app.add_option("--pool", st.pool, "distinct envelopes sealed before the run [300000]")
      ->check(CLI::Range(1000, 100000000));
  app.add_option("--ingest", st.ingest, "ingest process counts on PostgreSQL [1,2,4]")
      ->delimiter(',')
      ->check(CLI::Range(1, 16));
  app.add_option("--backends", st.backends, "sqlite and/or postgresql [both]")
      ->delimiter(',')
      ->check(CLI::IsMember({"sqlite", "postgresql"}));
  app.add_option("--partitions", st.partitions, "spool partitions on PostgreSQL [4]")
      ->check(CLI::Range(1, 1024));
  app.add_option("--publication-reports", st.publication_reports,
                 "accumulated reports at which to time a publication [1e6,1e7]; 0: skip")
      ->delimiter(',');
  app.add_option("--batch-size", st.batch_size, "the shufflers' --batch-size [1000]")
      ->check(CLI::Range(1, 1000000));
  app.add_flag("!--no-failover", st.failover, "skip the failover measurement");
  app.add_flag("--ingest-only", st.ingest_only,
               "ingest processes alone: no batchers, analyzers, publication or failover");
  app.add_option("--out", out_dir, "directory for the pool, the stores and the results")
      ->type_name("DIR");
  const int parsed = p2b::tools::parse_command_line(app, argc, argv);
  if (parsed >= 0) return parsed;
  st.out = fs::absolute(out_dir);
  fs::create_directories(st.out);

  const std::vector<Envelope> pool = p2b::bench::load_or_seal(st.out, st.pool);
  Runner runner(st, st.out / "deployment");
  const Capabilities caps = probe_capabilities(P2B_SHUFFLER_BIN, P2B_ANALYZER_BIN);
  ordered_json results;
  results["machine"] = machine();
  results["settings"] = {
      {"seconds", st.seconds},       {"warmup", st.warmup},
      {"clients", st.clients},       {"per_request", st.per_request},
      {"partitions", st.partitions}, {"batch_size", st.batch_size},
      {"data_dir", st.out.string()}, {"mode", st.ingest_only ? "ingest only" : "pipeline"}};
  results["points"] = ordered_json::array();
  std::printf("%d clients x %zu envelopes per request, %.0f s measured after %.0f s warm-up\n",
              st.clients, st.per_request, st.seconds, st.warmup);
  for (const std::string& backend : st.backends) {
    if (backend == "sqlite") {
      results["points"].push_back(runner.sqlite_point(pool));
      print_point(results["points"].back());
      continue;
    }
    if (!caps.shuffler_postgresql && !caps.analyzer_roles) {
      std::printf("postgresql: skipped, neither service has a PostgreSQL backend here\n");
      continue;
    }
    p2b::proc::PgClusterOptions o;
    o.settings = {"synchronous_commit = on", "shared_buffers = '256MB'", "max_wal_size = '2GB'"};
    const auto pg = p2b::proc::PgCluster::start_primary(o);
    // Without a PostgreSQL spool, one point: the SQLite shuffler in front.
    const std::vector<int> ingest = caps.shuffler_postgresql ? st.ingest : std::vector<int>{1};
    for (const int n : ingest) {
      results["points"].push_back(runner.pg_point(*pg, n, pool, caps));
      print_point(results["points"].back());
    }
    if (caps.analyzer_roles && !ingest.empty() &&
        !st.ingest_only) {  // before the failover kills the primary
      // The last point's model database, its processes stopped.
      results["publication"] =
          p2b::bench::time_publications(pg->url("model_" + std::to_string(ingest.back())),
                                        runner.key("analyzer.sign.sk"), st.publication_reports);
      for (const auto& p : results["publication"]) {
        std::printf(
            "publication at %.0f reports (%d accumulator rows): %.2f ms (sum %.2f, build + sign "
            "%.2f, store %.2f)\n",
            p["accumulated_reports"].get<double>(), p["accumulator_rows"].get<int>(),
            p["total_ms"].get<double>(), p["sum_shards_ms"].get<double>(),
            p["build_and_sign_ms"].get<double>(), p["store_ms"].get<double>());
      }
    }
    if (caps.shuffler_postgresql && st.failover && !st.ingest_only) {
      results["failover"] = runner.failover(*pg, pool, caps);
      const auto& f = results["failover"];
      if (f["kill_to_first_202_seconds"].is_null()) {
        std::printf("failover: no 202 within 120 s of the kill\n");
      } else {
        std::printf(
            "failover: kill -9 of the primary to the first 202 again: %.2f s (promote %.2f s)\n",
            f["kill_to_first_202_seconds"].get<double>(), f["promote_seconds"].get<double>());
      }
    }
  }
  print_goal_lines(results["points"]);
  print_scaling(results["points"]);
  const fs::path json = st.out / (st.ingest_only ? "scale_out_ingest.json" : "scale_out.json");
  std::ofstream(json) << results.dump(2) << "\n";
  std::printf("wrote %s\n", json.c_str());
  std::fflush(stdout);  // before the plotter's own output
  const fs::path plot = fs::path(P2B_SOURCE_DIR) / "bench/plot_scale_out.py";
  // Both runs' results when the other mode's file is there too.
  const fs::path png = st.out / "scale_out.png";
  std::vector<std::string> plot_argv = {"/usr/bin/python3", plot.string(), png.string()};
  for (const char* name : {"scale_out.json", "scale_out_ingest.json"}) {
    if (fs::exists(st.out / name)) plot_argv.push_back((st.out / name).string());
  }
  if (p2b::proc::run_command(plot_argv) == 0) {
    std::printf("wrote %s\n", png.c_str());
  } else {
    std::printf("(no plot: %s failed)\n", plot.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scale_out: error: %s\n", e.what());
    return 1;
  }
}
