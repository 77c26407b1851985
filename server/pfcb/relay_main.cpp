// p2b-relay: P-FCB's relay as a service (docs/pfcb-relay.md).
// Routes:
//   POST /v1/pfcb/postings   one P2BX posting; 200 once durably stored
//   GET  /v1/pfcb/postings   ?after=CURSOR&exclude=SENDER_FP&limit=N, signed by
//                            a member (read_auth.hpp): stored postings in order,
//                            as u64le seq | posting records; the next cursor in
//                            the P2B-Cursor header; 403 for anyone else
//   GET  /v1/pfcb/stats      aggregate counts; GET /metrics (Prometheus)
//   GET  /healthz, /readyz   (checks: storage, quarantine)
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "common/command_line.hpp"
#include "common/exit_codes.hpp"
#include "common/json_log.hpp"
#include "common/option_values.hpp"
#include "common/prometheus_text.hpp"
#include "common/service_host.hpp"
#include "common/service_main.hpp"
#include "common/service_options.hpp"
#include "pfcb/relay_requests.hpp"
#include "pfcb/relay_service.hpp"
#include "pfcb/wire/pfcb_wire.hpp"

namespace {

namespace common = p2b::common;
namespace pfcb = p2b::pfcb;
using common::ParseOutcome;

struct Options : common::ServiceOptions {
  std::string members_file;
  pfcb::RelayConfig relay;
  double sweep_seconds = 0;  // 0: derived from the retention
};

ParseOutcome parse_options(int argc, const char* const* argv, Options* out, std::string* message) {
  common::ServiceDefaults defaults;
  defaults.keys = false;  // the relay holds no key; members prove theirs
  defaults.store_help = "the SQLite file of the postings (created if missing)";
  defaults.max_body_help =
      "largest request body in bytes (default: one posting of --producers, plus 1024)";
  common::ServiceCommandLine cli(
      "p2b-relay",
      "usage: p2b-relay --store FILE --members FILE --consortium-fp HEX --producers M [options]",
      "P-FCB's relay: stores the agents' signed, sealed postings and hands each agent the "
      "others' (docs/pfcb-relay.md). It holds no consortium key and reads no share.",
      defaults);
  common::CommandLine& line = cli.command_line();
  std::string members, producers, fp, retention, sweep, batch;
  line.add_value("--members", &members,
                 "the members file: one Ed25519 verify key (64 hex digits) per line");
  line.add_value("--consortium-fp", &fp,
                 "the consortium key's fingerprint (32 hex digits, p2b-keygen --pfcb-consortium)");
  line.add_value("--producers", &producers, "m, the producers per share (1..64)");
  line.add_value("--retention-seconds", &retention,
                 "delete postings older than this (default 86400)");
  line.add_value("--sweep-seconds", &sweep,
                 "how often to delete them (default: a quarter of the retention, at most 60)");
  line.add_value("--max-batch", &batch,
                 "the most postings one GET returns (1..1024, default 1024)");
  Options o;
  const ParseOutcome parsed = cli.parse(argc, argv, &o, message);
  if (parsed != ParseOutcome::ok) return parsed;
  const auto bad = [message](const char* name, const char* what, const std::string& raw) {
    return common::usage_error(message, common::bad_value(name, what, raw));
  };
  if (members.empty()) return common::usage_error(message, "--members is required");
  o.members_file = members;
  if (!pfcb::parse_fingerprint_hex(fp, o.relay.consortium_fp)) {
    return bad("consortium-fp", "32 hex digits", fp);
  }
  uint64_t v = 0;
  if (!common::parse_count(producers, 1, pfcb::kMaxProducers, &v)) {
    return bad("producers", "1..64", producers);
  }
  o.relay.producers = static_cast<uint32_t>(v);
  if (!retention.empty()) {
    if (!common::parse_count(retention, 1, 10ULL * 365 * 24 * 3600, &v)) {
      return bad("retention-seconds", "seconds >= 1", retention);
    }
    o.relay.retention_seconds = v;
  }
  if (!sweep.empty() && !common::parse_real(sweep, 0.01, 1e6, &o.sweep_seconds)) {
    return bad("sweep-seconds", "seconds > 0", sweep);
  }
  if (o.sweep_seconds <= 0) {
    o.sweep_seconds =
        std::min(60.0, std::max(1.0, static_cast<double>(o.relay.retention_seconds) / 4));
  }
  if (!batch.empty()) {
    if (!common::parse_count(batch, 1, pfcb::kMaxBatch, &v))
      return bad("max-batch", "1..1024", batch);
    o.relay.max_batch = static_cast<uint32_t>(v);
  }
  // A little over one posting: a slightly long body still reaches the
  // relay's own length check (counted as wrong_length); a larger one is
  // refused by the HTTP layer before it is read (413, body_too_large).
  if (o.max_body == 0) o.max_body = pfcb::posting_wire_size(o.relay.producers) + 1024;
  *out = std::move(o);
  return ParseOutcome::ok;
}

bool read_text(const std::string& path, std::size_t max_bytes, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::string s(std::istreambuf_iterator<char>(f), {});
  if (f.bad() || s.size() > max_bytes) return false;
  *out = std::move(s);
  return true;
}

void answer(httplib::Response& res, const pfcb::Reply& r) {
  res.status = r.status;
  res.set_content(r.body, r.content_type);
}

uint64_t now_unix() {
  return static_cast<uint64_t>(std::time(nullptr));
}

// Wall-clock microseconds: a signed read's time is compared with this.
uint64_t now_unix_us() {
  const auto since = std::chrono::system_clock::now().time_since_epoch();
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(since).count());
}

int run(const Options& opt, common::Logger& log) {
  pfcb::RelayConfig relay = opt.relay;
  std::string text, why;
  // A members file lists at most 1024 keys of 65 bytes each, with comments.
  if (!read_text(opt.members_file, 1 << 20, &text) ||
      !pfcb::parse_members(text, &relay.members, &why)) {
    log.error("members_unreadable",
              {{"file", opt.members_file}, {"error", why.empty() ? "cannot read" : why}});
    return common::kExitConfig;
  }
  std::unique_ptr<pfcb::RelayService> service;
  try {
    service = std::make_unique<pfcb::RelayService>(relay, opt.store, &log);
  } catch (const std::exception& e) {
    log.error("store_unusable", {{"error", e.what()}});
    return common::kExitFailure;
  }

  common::ServiceHost host(opt, "p2b_relay", log, [](const httplib::Request& req) {
    return req.path == "/v1/pfcb/postings";
  });
  host.readiness().add("storage", [&service] { return service->store_check(); });
  host.readiness().add("quarantine", [&service] { return service->quarantine_check(); });
  host.serve_metrics(
      [&service](common::PrometheusText& out) { out.append(service->metrics_text()); });
  httplib::Server& server = host.server();
  server.Post("/v1/pfcb/postings", [&](const httplib::Request& req, httplib::Response& res) {
    const pfcb::Reply r = service->post(req.body, now_unix());
    if (!r.code.empty()) {
      log.warn("posting_refused", {{"error", r.detail}, {"bytes", req.body.size()}});
    }
    answer(res, r);
  });
  server.Get("/v1/pfcb/postings", [&](const httplib::Request& req, httplib::Response& res) {
    std::multimap<std::string, std::string> params(req.params.begin(), req.params.end());
    // The signed-read headers under their own names (httplib matches any case).
    std::multimap<std::string, std::string> auth;
    for (const char* name :
         {pfcb::kReaderHeader, pfcb::kReadTimeHeader, pfcb::kReadSignatureHeader}) {
      for (std::size_t i = 0; i < req.get_header_value_count(name); ++i) {
        auth.emplace(name, req.get_header_value(name, i));
      }
    }
    const pfcb::Reply r = service->list(params, auth, now_unix_us());
    // The reason only, never the key, time or signature it was given.
    if (r.status == 403) log.warn("read_refused", {{"reason", r.detail}});
    if (r.status == 200) res.set_header(pfcb::kCursorHeader, std::to_string(r.cursor));
    answer(res, r);
  });
  server.Get("/v1/pfcb/stats", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(service->stats_json().dump(), "application/json");
  });

  // Retention: a sweep at start (what aged out while the relay was down),
  // then every period.
  service->sweep(now_unix());
  host.every(std::chrono::duration<double>(opt.sweep_seconds), "retention_sweep",
             [&service] { service->sweep(now_unix()); });
  return host.run([&](int port) {
    log.info("started", {{"port", port},
                         {"producers", relay.producers},
                         {"members", relay.members.size()},
                         {"posting_bytes", pfcb::posting_wire_size(relay.producers)},
                         {"max_body", opt.max_body},
                         {"retention_seconds", relay.retention_seconds},
                         {"sweep_seconds", opt.sweep_seconds}});
  });
}

}  // namespace

int main(int argc, char** argv) {
  return p2b::common::service_main<Options>("p2b-relay", argc, argv, parse_options, run);
}
