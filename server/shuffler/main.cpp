// p2b-shuffler: receives sealed report envelopes, strips everything about
// their senders, and forwards shuffled, thresholded batches of the inner
// ciphertexts to the analyzer (docs/shuffler.md).
#include <httplib.h>
#include <pthread.h>
#include <signal.h>
#include <sodium.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <exception>
#include <memory>
#include <string>
#include <thread>

#include "shuffler/batcher.hpp"
#include "shuffler/http_api.hpp"
#include "shuffler/intake.hpp"
#include "shuffler/json_log.hpp"
#include "shuffler/keyring.hpp"
#include "shuffler/options.hpp"
#include "shuffler/sqlite_spool.hpp"

namespace {

using p2b::shuffler::log_event;

int fail(const std::string& why) {
  log_event("error", "startup_failed", {{"error", why}});
  return 1;
}

// SIGTERM and SIGINT are blocked in every thread and taken by one thread
// with sigtimedwait, so shutdown runs as ordinary code rather than in a
// signal handler.
sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

int run(const p2b::shuffler::Options& opt) {
  p2b::shuffler::LoadedKeys keys;
  try {
    keys = p2b::shuffler::load_shuffler_keys(opt.key_dirs);
  } catch (const p2b::shuffler::KeyError& e) {
    return fail(e.what());
  }
  for (const std::string& w : keys.warnings) log_event("warn", "key_file_mode", {{"warning", w}});

  std::unique_ptr<p2b::shuffler::SqliteSpool> spool;
  try {
    spool = std::make_unique<p2b::shuffler::SqliteSpool>(opt.spool);
  } catch (const p2b::shuffler::SpoolError& e) {
    return fail(e.what());
  }
  const std::unique_ptr<p2b::shuffler::AnalyzerSink> sink =
      p2b::shuffler::make_http_sink(opt.analyzer);

  p2b::shuffler::Metrics metrics;
  p2b::shuffler::BatchingPolicy policy;
  policy.batch_size = opt.batch_size;
  policy.interval = std::chrono::milliseconds(static_cast<long long>(opt.batch_seconds * 1000));
  policy.threshold.threshold = opt.threshold;
  policy.threshold.noise_sigma = opt.noisy_threshold;
  p2b::shuffler::Batcher batcher(*spool, *sink, metrics, policy);
  p2b::shuffler::ReportIntake intake(std::move(keys.keys), *spool, metrics, opt.max_body,
                                     [&batcher](std::size_t n) { batcher.notify_stored(n); });

  httplib::Server server;
  p2b::shuffler::install_routes(server, intake, metrics, *spool, opt.max_body);
  int port = opt.listen_port;
  if (port == 0) {
    port = server.bind_to_any_port(opt.listen_host);
  } else if (!server.bind_to_port(opt.listen_host, port)) {
    port = -1;
  }
  if (port < 0) {
    return fail("cannot listen on " + opt.listen_host + ":" + std::to_string(opt.listen_port));
  }
  // The first line on stdout: scripts and tests read the port from it.
  std::printf("listening on %s:%d\n", opt.listen_host.c_str(), port);
  std::fflush(stdout);

  std::string fingerprints;
  for (const std::string& fp : keys.fingerprints) {
    fingerprints += (fingerprints.empty() ? "" : ",") + fp;
  }
  log_event("info", "started",
            {{"port", port},
             {"key_fingerprints", fingerprints},
             {"batch_size", static_cast<uint64_t>(opt.batch_size)},
             {"batch_seconds", opt.batch_seconds},
             {"threshold", static_cast<uint64_t>(opt.threshold)},
             {"noisy_threshold", opt.noisy_threshold},
             {"spool_depth", static_cast<uint64_t>(spool->depth())}});
  batcher.start();

  std::atomic<bool> done{false};
  std::atomic<bool> signalled{false};
  std::thread waiter([&] {
    const sigset_t set = stop_signals();
    const timespec tick{0, 100000000L};  // 100 ms
    while (!done && !signalled) {
      const int sig = sigtimedwait(&set, nullptr, &tick);
      if (sig == SIGTERM || sig == SIGINT) {
        log_event("info", "stopping", {{"signal", sig == SIGINT ? "SIGINT" : "SIGTERM"}});
        signalled = true;
      }
    }
    // A stop() that lands before listen_after_bind() has set the server
    // running is lost, so repeat it until the server is down.
    while (signalled && !done) {
      server.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  // Returns once stop() closed the socket and the requests in flight are
  // answered.
  server.listen_after_bind();
  done = true;
  waiter.join();
  batcher.stop();
  spool.reset();
  if (!signalled) return fail("the HTTP server stopped unexpectedly");
  log_event("info", "stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const sigset_t set = stop_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  p2b::shuffler::Options opt;
  std::string error;
  switch (p2b::shuffler::parse_options(argc, argv, &opt, &error)) {
    case p2b::shuffler::ParseOutcome::ok:
      break;
    case p2b::shuffler::ParseOutcome::help:
      std::fputs(p2b::shuffler::usage_text(), stdout);
      return 0;
    case p2b::shuffler::ParseOutcome::usage_error:
      std::fprintf(stderr, "p2b-shuffler: %s\n%s", error.c_str(), p2b::shuffler::usage_text());
      return 2;
    case p2b::shuffler::ParseOutcome::io_error:
      std::fprintf(stderr, "p2b-shuffler: %s\n", error.c_str());
      return 1;
  }
  if (sodium_init() < 0) return fail("libsodium cannot start");
  try {
    return run(opt);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}
