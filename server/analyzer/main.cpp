// p2b-analyzer: see docs/analyzer.md for the command line and the HTTP API.
#include <httplib.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <memory>
#include <thread>

#include "analyzer.hpp"
#include "codebook_file.hpp"
#include "http_api.hpp"
#include "json_log.hpp"
#include "key_ring.hpp"
#include "metrics.hpp"
#include "options.hpp"
#include "sqlite_store.hpp"

namespace {

using p2b::analyzer::LogField;

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

// SIGTERM and SIGINT stop the service; SIGUSR1 is how main() wakes the
// waiting thread when the server stopped by itself.
sigset_t waited_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGUSR1);
  return set;
}

std::string fingerprint_list(const std::vector<std::string>& fps) {
  std::string s;
  for (const std::string& fp : fps) s += (s.empty() ? "" : ",") + fp;
  return s;
}

int serve(const p2b::analyzer::Options& opt, p2b::analyzer::Logger& log) {
  using namespace p2b::analyzer;
  std::vector<std::string> warnings;
  KeyRing keys;
  Codebook codebook;
  std::unique_ptr<SqliteModelStore> store;
  try {
    keys = KeyRing::load(opt.key_dirs, &warnings);
  } catch (const std::exception& e) {
    log.error("keys_unreadable", {{"error", e.what()}});
    return kExitFailure;
  }
  for (const std::string& w : warnings) log.warn("secret_key_mode", {{"warning", w}});
  try {
    codebook = load_codebook_file(opt.codebook);
  } catch (const std::exception& e) {
    log.error("codebook_unreadable", {{"error", e.what()}});
    return kExitFailure;
  }
  const std::vector<std::string> box_fps = keys.box_fingerprints();
  const std::string verify_fp = keys.verify_key_fingerprint();
  Metrics metrics;
  std::unique_ptr<Analyzer> analyzer;
  try {
    store = std::make_unique<SqliteModelStore>(opt.store);
    AnalyzerSettings settings;
    settings.mode = opt.mode;
    settings.n_actions = opt.n_actions;
    settings.lambda = opt.lambda;
    settings.raw_enabled = opt.raw_enabled;
    settings.min_reports = opt.min_reports;
    analyzer = std::make_unique<Analyzer>(std::move(settings), codebook, std::move(keys),
                                          store.get(), &metrics, &log);
  } catch (const std::exception& e) {
    log.error("store_unusable", {{"error", e.what()}});
    return kExitFailure;
  }
  const auto version = [&](ModelKind k) {
    const auto m = analyzer->model(k);
    return m ? m->version : uint64_t{0};
  };
  log.info("started", {{"mode", mode_name(opt.mode)},
                       {"dim", analyzer->dim()},
                       {"actions", analyzer->n_actions()},
                       {"codes", codebook.info.k},
                       {"lambda", opt.lambda},
                       {"raw_baseline", opt.raw_enabled},
                       {"box_keys", fingerprint_list(box_fps)},
                       {"verify_key", verify_fp},
                       {"model_version", version(ModelKind::private_reports)},
                       {"raw_model_version", version(ModelKind::raw_baseline)}});

  httplib::Server server;
  install_routes(&server, analyzer.get(), &metrics, &log);
  // An idle keep-alive connection holds a worker until this timeout, and
  // shutdown waits for every worker.
  server.set_keep_alive_timeout(2);
  int port = opt.port;
  if (port == 0) {
    port = server.bind_to_any_port(opt.host);
  } else if (!server.bind_to_port(opt.host, port)) {
    port = -1;
  }
  if (port <= 0) {
    log.error("listen_failed", {{"host", opt.host}, {"port", static_cast<uint32_t>(opt.port)}});
    return kExitFailure;
  }
  // Tests and scripts read the port from this first stdout line.
  std::cout << "listening on " << opt.host << ":" << port << std::endl;
  log.info("listening", {{"host", opt.host}, {"port", port}});

  // Signals stay blocked in every thread; this one waits for them.
  std::atomic<bool> listen_done{false};
  std::thread waiter([&] {
    const sigset_t set = waited_signals();
    int sig = 0;
    while (sigwait(&set, &sig) != 0 || sig == SIGUSR1) {
      if (listen_done) return;
    }
    log.info("shutdown", {{"signal", sig == SIGINT ? "SIGINT" : "SIGTERM"}});
    // stop() is a no-op until listen has started; wait for that.
    while (!server.is_running() && !listen_done) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    server.stop();
  });
  // Returns once stopped and every in-flight request has been answered.
  const bool clean = server.listen_after_bind();
  listen_done = true;
  pthread_kill(waiter.native_handle(), SIGUSR1);
  waiter.join();
  analyzer.reset();
  store.reset();  // closes the database
  log.info("stopped", {{"clean", clean}});
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  p2b::analyzer::Logger log(&std::cerr);
  p2b::analyzer::Options opt;
  std::string err;
  switch (p2b::analyzer::parse_options(argc, argv, &opt, &err)) {
    case p2b::analyzer::ParseOutcome::help:
      std::cout << p2b::analyzer::usage_text();
      return kExitOk;
    case p2b::analyzer::ParseOutcome::error:
      log.error("bad_arguments", {{"error", err}, {"hint", "p2b-analyzer --help"}});
      return kExitUsage;
    case p2b::analyzer::ParseOutcome::ok:
      break;
  }
  // Before any thread exists, so every thread inherits the mask.
  const sigset_t set = waited_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  return serve(opt, log);
}
