#include "fclub/fclub_services.hpp"

#include "fclub/downloads_ack.hpp"
#include "fclub/local_entries.hpp"
#include "fclub/local_requests.hpp"
#include "fclub/phase_done.hpp"

#include <sodium.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <utility>

#include "common/keyfiles.hpp"
#include "common/prometheus_text.hpp"
#include "dp/spd_projection.hpp"
#include "wire/model_bundle.hpp"

namespace p2b::fclub {

namespace {

std::string in_dir(const std::string& dir, const char* name) {
  return (dir.empty() || dir.back() == '/' ? dir : dir + "/") + name;
}

nlohmann::json error_body(const std::string& code) {
  return nlohmann::json{{"error", code}};
}

Reply json_reply(const nlohmann::json& j) {
  Reply r;
  r.body = j.dump();
  return r;
}

Reply error_reply(int status, const std::string& code) {
  Reply r;
  r.status = status;
  r.code = code;
  r.body = error_body(code).dump();
  return r;
}

std::vector<uint8_t> hash_of(const uint8_t* data, std::size_t n) {
  std::vector<uint8_t> h(crypto_generichash_BYTES);
  crypto_generichash(h.data(), h.size(), data, n, nullptr, 0);
  return h;
}

std::string hex_of(const std::array<uint8_t, 16>& b) {
  char hex[2 * 16 + 1];
  sodium_bin2hex(hex, sizeof hex, b.data(), b.size());
  return hex;
}

std::vector<uint8_t> fp_of(const uint8_t* verify_pk) {
  std::vector<uint8_t> fp(kFpBytes);
  signer_fingerprint(verify_pk, fp.data());
  return fp;
}

}  // namespace

// ---- keys ------------------------------------------------------------------

bool load_service_keys(const std::string& dir, bool with_noise, ServiceKeys* out,
                       std::string* warning, std::string* err) {
  if (sodium_init() < 0) {
    *err = "libsodium did not initialise";
    return false;
  }
  std::string w1, w2, w3;
  const bool ok =
      keyfiles::read_key_file(in_dir(dir, kBoxPkFile), out->box_pk, 32, err) &&
      keyfiles::read_secret_key_file(in_dir(dir, kBoxSkFile), out->box_sk, 32, err, &w1) &&
      keyfiles::read_key_file(in_dir(dir, kSignPkFile), out->sign_pk, 32, err) &&
      keyfiles::read_secret_key_file(in_dir(dir, kSignSkFile), out->sign_sk, 64, err, &w2) &&
      (!with_noise ||
       keyfiles::read_secret_key_file(in_dir(dir, kNoiseSkFile), out->noise.data(), 32, err, &w3));
  if (!ok) return false;
  warning->clear();
  for (const std::string* w : {&w1, &w2, &w3}) {
    if (!w->empty()) *warning = *w;
  }
  uint8_t derived[32];
  uint8_t derived_sign[32];
  if (crypto_scalarmult_base(derived, out->box_sk) != 0 ||
      sodium_memcmp(derived, out->box_pk, 32) != 0) {
    *err = in_dir(dir, kBoxPkFile) + " is not the public key of " + in_dir(dir, kBoxSkFile);
    return false;
  }
  if (crypto_sign_ed25519_sk_to_pk(derived_sign, out->sign_sk) != 0 ||
      sodium_memcmp(derived_sign, out->sign_pk, 32) != 0) {
    *err = in_dir(dir, kSignPkFile) + " is not the public key of " + in_dir(dir, kSignSkFile);
    return false;
  }
  return true;
}

bool load_peer_keys(const std::string& dir, PeerKeys* out, std::string* err) {
  return keyfiles::read_key_file(in_dir(dir, kBoxPkFile), out->box_pk, 32, err) &&
         keyfiles::read_key_file(in_dir(dir, kSignPkFile), out->sign_pk, 32, err);
}

bool generate_service_keys(const std::string& dir, bool with_noise, std::string* err) {
  if (sodium_init() < 0) {
    *err = "libsodium did not initialise";
    return false;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    *err = dir + ": " + ec.message();
    return false;
  }
  ServiceKeys k;
  crypto_box_keypair(k.box_pk, k.box_sk);
  crypto_sign_keypair(k.sign_pk, k.sign_sk);
  randombytes_buf(k.noise.data(), k.noise.size());
  using keyfiles::KeyKind;
  const bool ok =
      keyfiles::create_key_file(in_dir(dir, kBoxPkFile), k.box_pk, 32, KeyKind::public_key, err) &&
      keyfiles::create_key_file(in_dir(dir, kBoxSkFile), k.box_sk, 32, KeyKind::secret_key, err) &&
      keyfiles::create_key_file(in_dir(dir, kSignPkFile), k.sign_pk, 32, KeyKind::public_key,
                                err) &&
      keyfiles::create_key_file(in_dir(dir, kSignSkFile), k.sign_sk, 64, KeyKind::secret_key,
                                err) &&
      (!with_noise || keyfiles::create_key_file(in_dir(dir, kNoiseSkFile), k.noise.data(), 32,
                                                KeyKind::secret_key, err));
  sodium_memzero(&k, sizeof k);
  return ok;
}

// ---- conversions -------------------------------------------------------------

ClusterStats to_wire_stats(const Stats& s, uint32_t dim) {
  ClusterStats c;
  c.dim = dim;
  c.count = s.count;
  c.gram_upper.reserve(gram_upper_count(dim));
  for (uint32_t i = 0; i < dim; ++i) {
    for (uint32_t j = i; j < dim; ++j) c.gram_upper.push_back(s.gram(i, j));
  }
  c.moment.assign(s.moment.data(), s.moment.data() + dim);
  return c;
}

Stats from_wire_stats(const ClusterStats& c) {
  Stats s = Stats::zero(c.dim);
  s.count = c.count;
  std::size_t at = 0;
  for (uint32_t i = 0; i < c.dim; ++i) {
    for (uint32_t j = i; j < c.dim; ++j) {
      s.gram(i, j) = s.gram(j, i) = c.gram_upper[at++];
    }
  }
  for (uint32_t i = 0; i < c.dim; ++i) s.moment(i) = c.moment[i];
  return s;
}

// ---- global ----------------------------------------------------------------

GlobalService::GlobalService(const FclubConfig& cfg, const ServiceKeys& keys,
                             std::map<uint32_t, PeerKeys> locals, common::Logger* log)
    : cfg_(cfg), log_(log), keys_(keys), locals_(std::move(locals)), global_(cfg) {
  std::vector<VerifyKey> verify;
  for (const auto& [id, k] : locals_) {
    VerifyKey v{};
    std::memcpy(v.data(), k.sign_pk, 32);
    verify.push_back(v);
    signer_server_[fp_of(k.sign_pk)] = id;
  }
  signers_ = pinned_signers(verify);
  deployment_fingerprint(keys_.box_pk, expect_.deployment_fp);
  expect_.dim = cfg_.dim;
}

Reply GlobalService::refuse(int status, const std::string& code) {
  ++stats_.uploads_refused;
  ++stats_.refused_by_reason[code];
  return error_reply(status, code);
}

bool GlobalService::open_store(const std::string& path, std::string* err) {
  std::lock_guard<std::mutex> lock(mu_);
  try {
    journal_ = std::make_unique<GlobalJournal>(path);
    // Through the handlers that accepted each input; every one of them was
    // accepted before, so a refusal now means the file and this build
    // disagree (another deployment's keys, another dim): refuse to start.
    replaying_ = true;
    uint64_t replayed = 0;
    std::string refused;
    journal_->replay([&](const JournalEntry& e) {
      Reply r;
      switch (e.kind) {
        case JournalKind::upload: {
          Upload u;
          std::string why;
          const auto* b = reinterpret_cast<const uint8_t*>(e.body.data());
          const OpenStatus st = open_upload(b, e.body.size(), keys_.box_pk, keys_.box_sk, signers_,
                                            expect_, &u, &why);
          r = upload_locked(e.body, u, st);
          break;
        }
        case JournalKind::phase_done:
          r = phase_done_locked(e.server, e.phase, static_cast<uint32_t>(e.number), e.body);
          break;
        case JournalKind::advance:
          r = advance_locked();
          break;
        case JournalKind::downloads_ack:
          r = downloads_ack_locked(e.server, e.number, e.body);
          break;
      }
      if (r.status != 200 && refused.empty()) {
        refused =
            "journal entry " + std::to_string(replayed + 1) + " refused on replay (" + r.code + ")";
      }
      ++replayed;
    });
    replaying_ = false;
    if (!refused.empty()) {
      *err = path + ": " + refused;
      return false;
    }
    if (log_ != nullptr) {
      log_->info("store_replayed", {{"entries", replayed},
                                    {"phase", phase_},
                                    {"uploads_accepted", stats_.uploads_accepted}});
    }
    return true;
  } catch (const std::exception& e) {
    replaying_ = false;
    *err = e.what();
    return false;
  }
}

bool GlobalService::journal_locked(const JournalEntry& e) {
  if (journal_ == nullptr || replaying_) return true;
  try {
    journal_->append(e);
    return true;
  } catch (const std::exception& ex) {
    // The memory is now ahead of the store: answer nothing more, so that no
    // local takes a download or an acceptance the store does not hold.
    store_failed_ = true;
    if (log_ != nullptr) log_->error("store_failed", {{"error", ex.what()}});
    return false;
  }
}

bool GlobalService::store_ok() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !store_failed_;
}

Reply GlobalService::upload(const std::string& body) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(body.data());
  Upload u;
  std::string err;
  const OpenStatus st =
      open_upload(bytes, body.size(), keys_.box_pk, keys_.box_sk, signers_, expect_, &u, &err);
  std::lock_guard<std::mutex> lock(mu_);
  if (store_failed_) return error_reply(503, "store_failed");
  return upload_locked(body, u, st);
}

Reply GlobalService::upload_locked(const std::string& body, const Upload& u, OpenStatus st) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(body.data());
  if (st != OpenStatus::ok) return refuse(400, open_status_name(st));
  const JournalEntry entry{JournalKind::upload, u.server_id, u.phase, u.local_cluster, u.seq, body};
  std::vector<uint8_t> h = hash_of(bytes, body.size());
  if (!seen_.insert(h).second) {
    ++stats_.replays_refused;
    return refuse(409, "replay");
  }
  const auto who = signer_server_.find(std::vector<uint8_t>(u.signer_fp, u.signer_fp + kFpBytes));
  if (who == signer_server_.end() || who->second != u.server_id) {
    return refuse(400, "wrong_signer");
  }
  StatsUpload up;
  up.server = u.server_id;
  up.local_cluster = u.local_cluster;
  up.phase = u.phase;
  up.seq = u.seq;
  up.members = u.member_count;
  up.stats = from_wire_stats(u.stats);
  up.epsilon_spent = u.epsilon_spent;
  const auto key = std::make_tuple(up.server, up.phase, up.local_cluster);
  if (up.seq == 0) {
    if (started_.count(key) != 0) {
      ++stats_.replays_refused;
      return refuse(409, "replay");
    }
    auto it = starts_.find(up.phase);
    if (up.phase != phase_ || it == starts_.end() || it->second.merged) {
      return refuse(400, "not_this_phase");
    }
    if (it->second.announced.count(up.server) != 0) return refuse(400, "phase_start_closed");
    started_.insert(key);
    it->second.uploads.push_back(std::move(up));
    ++stats_.uploads_accepted;
    ++state_version_;
    ++state_version_;
    ++stats_.accepted_by_server[u.server_id];
    if (!journal_locked(entry)) return error_reply(503, "store_failed");
    return json_reply({{"accepted", true}});
  }
  const uint32_t last = last_seq_.count(key) != 0 ? last_seq_[key] : 0;
  if (up.seq <= last) {
    ++stats_.replays_refused;
    return refuse(409, "replay");
  }
  if (up.seq != last + 1) return refuse(400, "seq_gap");
  auto it = starts_.find(up.phase);
  if (it != starts_.end() && !it->second.merged && up.phase == phase_) {
    it->second.early.push_back(std::move(up));  // applied at the merge
  } else {
    std::vector<StatsDownload> downs;
    if (!global_.receive(up, &downs)) return refuse(400, "not_a_member");
    queue_locked(downs);
  }
  last_seq_[key] = u.seq;
  ++stats_.uploads_accepted;
  ++state_version_;
  ++stats_.accepted_by_server[u.server_id];
  if (!journal_locked(entry)) return error_reply(503, "store_failed");
  return json_reply({{"accepted", true}});
}

Reply GlobalService::phase_done(uint32_t server, uint32_t phase, uint32_t count,
                                const std::string& signature) {
  std::lock_guard<std::mutex> lock(mu_);
  if (store_failed_) return error_reply(503, "store_failed");
  return phase_done_locked(server, phase, count, signature);
}

Reply GlobalService::phase_done_locked(uint32_t server, uint32_t phase, uint32_t count,
                                       const std::string& signature) {
  const auto local = locals_.find(server);
  if (local == locals_.end()) return error_reply(400, "unknown_server");
  // Before any state is read: an unsigned caller learns nothing about phases.
  if (!verify_phase_done(local->second.sign_pk, expect_.deployment_fp, {server, phase, count},
                         signature)) {
    ++stats_.refused_by_reason["phase_done_bad_signature"];
    return error_reply(400, "bad_signature");
  }
  auto it = starts_.find(phase);
  // Before the phase check: a local's retry of a phase-done the global took
  // (its answer lost) is told so, even once the phase has merged.
  if (it != starts_.end() && it->second.announced.count(server) != 0) {
    return error_reply(409, "already_done");
  }
  if (phase != phase_ || it == starts_.end() || it->second.merged) {
    return error_reply(400, "not_this_phase");
  }
  it->second.announced[server] = count;
  try_merge_locked(phase);
  if (!journal_locked({JournalKind::phase_done, server, phase, 0, count, signature})) {
    return error_reply(503, "store_failed");
  }
  return json_reply({{"phase", phase}, {"merged", it->second.merged}});
}

void GlobalService::try_merge_locked(uint32_t phase) {
  PhaseStart& ps = starts_[phase];
  if (ps.merged || ps.announced.size() != locals_.size()) return;
  std::map<uint32_t, uint32_t> have;
  for (const StatsUpload& up : ps.uploads) ++have[up.server];
  for (const auto& [server, n] : ps.announced) {
    if (have[server] != n) return;  // an upload is still on its way
  }
  const std::vector<StatsDownload> downs = global_.merge_phase(phase, ps.uploads);
  ps.merged = true;
  ++stats_.merges;
  ++state_version_;
  queue_locked(downs);
  std::size_t early_refused = 0;
  for (const StatsUpload& up : ps.early) {
    std::vector<StatsDownload> more;
    if (global_.receive(up, &more)) {
      queue_locked(more);
    } else {
      ++early_refused;
    }
  }
  ps.early.clear();
  // What older phases kept is of no use any more.
  for (auto s = starts_.begin(); s != starts_.end();) {
    s = s->first < phase ? starts_.erase(s) : std::next(s);
  }
  for (auto s = last_seq_.begin(); s != last_seq_.end();) {
    s = std::get<1>(s->first) < phase ? last_seq_.erase(s) : std::next(s);
  }
  for (auto s = started_.begin(); s != started_.end();) {
    s = std::get<1>(*s) < phase ? started_.erase(s) : std::next(s);
  }
  if (log_ != nullptr) {
    log_->info("phase_merged", {{"phase", phase},
                                {"uploads", ps.uploads.size()},
                                {"clusters", global_.cluster_count()},
                                {"downloads", downs.size()},
                                {"early_refused", early_refused}});
  }
}

void GlobalService::queue_locked(const std::vector<StatsDownload>& downs) {
  for (const StatsDownload& d : downs) {
    const auto peer = locals_.find(d.server);
    if (peer == locals_.end()) continue;
    Download w;
    deployment_fingerprint(keys_.box_pk, w.deployment_fp);
    w.server_id = d.server;
    w.phase = d.phase;
    w.version = ++next_version_[d.server];
    w.local_cluster = d.local_cluster;
    w.global_cluster = d.global_cluster;
    w.kind = d.replace ? kDownloadReplace : kDownloadDelta;
    w.stats = to_wire_stats(d.stats, cfg_.dim);
    Queued q{w.version, {}};
    std::string err;
    if (!seal_download(w, keys_.sign_sk, peer->second.box_pk, &q.wire, &err)) {
      if (log_ != nullptr) log_->error("download_unsealable", {{"error", err}});
      continue;
    }
    queues_[d.server].push_back(std::move(q));
    ++stats_.downloads_queued;
    ++stats_.queued_by_server[d.server];
  }
}

Reply GlobalService::downloads(uint32_t server, uint64_t after) {
  std::lock_guard<std::mutex> lock(mu_);
  if (store_failed_) return error_reply(503, "store_failed");
  if (locals_.count(server) == 0) return error_reply(400, "unknown_server");
  Reply r;
  r.content_type = "application/octet-stream";
  const auto q = queues_.find(server);
  if (q == queues_.end()) return r;
  std::size_t n = 0;
  for (const Queued& m : q->second) {
    if (m.version <= after) continue;
    if (n++ == kMaxDownloadsPerAnswer) break;
    r.body.append(m.wire.begin(), m.wire.end());
  }
  return r;
}

Reply GlobalService::downloads_ack(uint32_t server, uint64_t version,
                                   const std::string& signature) {
  std::lock_guard<std::mutex> lock(mu_);
  if (store_failed_) return error_reply(503, "store_failed");
  return downloads_ack_locked(server, version, signature);
}

Reply GlobalService::downloads_ack_locked(uint32_t server, uint64_t version,
                                          const std::string& signature) {
  const auto local = locals_.find(server);
  if (local == locals_.end()) return error_reply(400, "unknown_server");
  if (!verify_downloads_ack(local->second.sign_pk, expect_.deployment_fp, {server, version},
                            signature)) {
    ++stats_.acks_refused;
    return error_reply(403, "ack_bad_signature");
  }
  std::deque<Queued>& q = queues_[server];
  std::size_t deleted = 0;
  while (!q.empty() && q.front().version <= version) {
    q.pop_front();
    ++deleted;
  }
  stats_.downloads_acked += deleted;
  ++stats_.acks_accepted;
  // An ack that deleted nothing changes nothing: not journalled.
  if (deleted > 0 &&
      !journal_locked({JournalKind::downloads_ack, server, 0, 0, version, signature})) {
    return error_reply(503, "store_failed");
  }
  return json_reply({{"acked", deleted}});
}

Reply GlobalService::cluster_model(uint32_t server, uint32_t local_cluster, uint64_t now_unix) {
  std::lock_guard<std::mutex> lock(mu_);
  const int g = global_.cluster_of(server, local_cluster);
  if (g < 0) return error_reply(404, "unknown_cluster");
  const Stats& sum = global_.cluster_stats(static_cast<uint32_t>(g));
  server::ModelSpec spec;
  spec.dim = cfg_.dim;
  spec.n_actions = 1;
  spec.alpha = cfg_.beta_scale;
  spec.ridge_lambda = cfg_.ridge;
  spec.version = state_version_ + 1;  // 0 is no model on the device
  spec.created_unix = now_unix;
  if (cfg_.private_uploads) {
    spec.central_epsilon = cfg_.epsilon;
    spec.central_delta = cfg_.delta;
  }
  Eigen::MatrixXd gram = sum.gram;
  if (cfg_.private_uploads) {
    // Noisy sums can be indefinite; devices factor A. Post-processing.
    dp::raise_eigenvalues(gram.data(), cfg_.dim, 0.0);
  }
  Reply r;
  std::vector<uint8_t> bundle;
  std::string err;
  if (!server::build_shared_model_bundle(spec, gram.data(), sum.moment.data(), keys_.sign_sk,
                                         &bundle, &err)) {
    if (log_ != nullptr) log_->error("model_build_failed", {{"error", err}});
    return error_reply(500, "model_build_failed");
  }
  ++stats_.models_served;
  r.content_type = "application/octet-stream";
  r.body.assign(bundle.begin(), bundle.end());
  return r;
}

Reply GlobalService::advance() {
  std::lock_guard<std::mutex> lock(mu_);
  if (store_failed_) return error_reply(503, "store_failed");
  return advance_locked();
}

Reply GlobalService::advance_locked() {
  ++phase_;
  starts_[phase_];
  seen_.clear();  // the phase checks and seqs refuse anything of an older phase
  if (!journal_locked({JournalKind::advance, 0, phase_, 0, 0, {}})) {
    return error_reply(503, "store_failed");
  }
  if (log_ != nullptr && !replaying_) log_->info("phase_advanced", {{"phase", phase_}});
  return json_reply({{"phase", phase_}});
}

uint32_t GlobalService::phase() const {
  std::lock_guard<std::mutex> lock(mu_);
  return phase_;
}

nlohmann::json GlobalService::stats_json() const {
  std::lock_guard<std::mutex> lock(mu_);
  nlohmann::json by_server = nlohmann::json::object();
  for (const auto& [s, n] : stats_.accepted_by_server) by_server[std::to_string(s)] = n;
  nlohmann::json queued_by = nlohmann::json::object();
  for (const auto& [s, n] : stats_.queued_by_server) queued_by[std::to_string(s)] = n;
  nlohmann::json by_reason = nlohmann::json::object();
  for (const auto& [r, n] : stats_.refused_by_reason) by_reason[r] = n;
  std::size_t queued = 0;
  for (const auto& [s, q] : queues_) queued += q.size();
  return {{"phase", phase_},
          {"merges", stats_.merges},
          {"models_served", stats_.models_served},
          {"clusters", global_.cluster_count()},
          {"uploads_accepted", stats_.uploads_accepted},
          {"uploads_refused", stats_.uploads_refused},
          {"replays_refused", stats_.replays_refused},
          {"accepted_by_server", by_server},
          {"refused_by_reason", by_reason},
          {"downloads_queued", stats_.downloads_queued},
          {"downloads_acked", stats_.downloads_acked},
          {"queued_by_server", queued_by},
          {"acks_accepted", stats_.acks_accepted},
          {"acks_refused", stats_.acks_refused},
          {"store_failed", uint64_t{store_failed_ ? 1U : 0U}},
          {"downloads_pending", queued}};
}

std::string stats_as_prometheus(const std::string& prefix, const nlohmann::json& stats) {
  // Levels that go down as well as up; every other number only counts up.
  static const char* const kGauges[] = {"phase",       "clusters",        "downloads_pending",
                                        "outbox",      "applied_version", "server",
                                        "store_failed"};
  common::PrometheusText out;
  for (const auto& [key, value] : stats.items()) {
    const std::string name = prefix + key;
    const std::string help = "FCLUB " + key + " (docs/fclub-services.md)";
    if (value.is_object()) {
      std::vector<std::pair<std::string, uint64_t>> samples;
      for (const auto& [k, v] : value.items()) {
        if (v.is_number_unsigned()) samples.emplace_back(k, v.get<uint64_t>());
      }
      const std::size_t by = key.rfind("_by_");
      const std::string label = by == std::string::npos ? "key" : key.substr(by + 4);
      out.labelled_counter(name + "_total", help, label, samples);
    } else if (value.is_number_unsigned()) {
      const std::string& level = key;  // a structured binding cannot be captured in C++17
      const bool gauge = std::any_of(std::begin(kGauges), std::end(kGauges),
                                     [&level](const char* g) { return level == g; });
      if (gauge) {
        out.gauge(name, help, value.get<uint64_t>());
      } else {
        out.counter(name + "_total", help, value.get<uint64_t>());
      }
    }
  }
  return out.text();
}

// ---- local -----------------------------------------------------------------

LocalService::LocalService(const FclubConfig& cfg, uint32_t id, uint32_t users,
                           const ServiceKeys& keys, const PeerKeys& global, common::Logger* log)
    : cfg_(cfg),
      log_(log),
      id_(id),
      keys_(keys),
      global_(global),
      local_(cfg, id, users, keys.noise) {
  VerifyKey v{};
  std::memcpy(v.data(), global_.sign_pk, 32);
  signers_ = pinned_signers({v});
  deployment_fingerprint(global_.box_pk, expect_.deployment_fp);
  expect_.dim = cfg_.dim;
}

Reply LocalService::recommend(const std::string& body) {
  RecommendRequest req;
  if (!parse_recommend(body, cfg_.dim, local_.n_users(), &req)) {
    return error_reply(400, "bad_request");
  }
  std::lock_guard<std::mutex> lock(mu_);
  const uint32_t k = local_.recommend(req.user, req.items);
  ++stats_.recommends;
  return json_reply({{"item", k}});
}

bool LocalService::open_store(const std::string& path, std::string* err, bool* refused) {
  std::lock_guard<std::mutex> lock(mu_);
  *refused = false;
  try {
    journal_ = std::make_unique<LocalJournal>(path, derive_store_key(keys_.box_sk));
  } catch (const common::StoreRefused& e) {
    *refused = true;
    *err = e.what();
    return false;
  } catch (const std::exception& e) {
    *err = e.what();  // cannot be opened (permissions, held by another process)
    return false;
  }
  // Every entry was taken before, so a refusal now means the file and this
  // process disagree (another deployment's keys, another --dim or --users).
  replaying_ = true;
  uint64_t replayed = 0;
  std::string why;
  try {
    journal_->replay([&](const LocalEntry& e) {
      if (why.empty() && !replay_locked(e)) {
        why = "journal entry " + std::to_string(replayed + 1) + " refused on replay";
      }
      ++replayed;
    });
  } catch (const std::exception& e) {
    why = e.what();
  }
  replaying_ = false;
  if (!why.empty()) {
    *refused = true;
    *err = path + ": " + why;
    journal_.reset();
    return false;
  }
  if (log_ != nullptr) {
    log_->info("store_replayed", {{"entries", replayed},
                                  {"phase", phase_},
                                  {"rewards", stats_.rewards},
                                  {"outbox", outbox_.size()},
                                  {"applied_version", applied_version_}});
  }
  return true;
}

bool LocalService::replay_locked(const LocalEntry& e) {
  switch (e.kind) {
    case LocalEntryKind::reward: {
      RewardRequest req;
      if (!decode_reward(e.body, cfg_.dim, local_.n_users(), &req)) return false;
      reward_locked(req);
      return true;
    }
    case LocalEntryKind::phase:
      if (e.number <= phase_ || e.number > UINT32_MAX) return false;
      start_phase_locked(static_cast<uint32_t>(e.number));
      return true;
    case LocalEntryKind::download: {
      Download d;
      std::string why;
      const auto* b = reinterpret_cast<const uint8_t*>(e.body.data());
      if (open_download(b, e.body.size(), keys_.box_pk, keys_.box_sk, signers_, expect_, &d,
                        &why) != OpenStatus::ok ||
          d.server_id != id_ || d.version != e.number || d.version <= applied_version_) {
        return false;
      }
      apply_download_locked(d);
      return true;
    }
    case LocalEntryKind::sent: {
      if (outbox_.empty() || e.number > 999) return false;
      const Outgoing& o = outbox_.front();
      if (outbox_id(o.phase_done, o.phase, o.local_cluster, o.seq) != e.body) return false;
      return sent_locked(o, static_cast<int>(e.number));
    }
  }
  return false;
}

bool LocalService::journal_locked(const std::vector<LocalEntry>& batch) {
  if (journal_ == nullptr || replaying_) return true;
  try {
    journal_->append(batch);
    return true;
  } catch (const std::exception& ex) {
    // Nothing of `batch` was applied, but whether the commit reached the
    // disk is unknown: change and answer nothing more until a restart
    // replays what the store holds.
    store_failed_ = true;
    if (log_ != nullptr) log_->error("store_failed", {{"error", ex.what()}});
    return false;
  }
}

bool LocalService::store_ok() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !store_failed_;
}

Reply LocalService::reward(const std::string& body) {
  RewardRequest req;
  if (!parse_reward(body, cfg_.dim, local_.n_users(), &req)) return error_reply(400, "bad_request");
  // The privatizer's noise is sized for these bounds (docs/fclub.md).
  if (cfg_.private_uploads && !within_sensitivity(cfg_, req.x.data(), cfg_.dim, req.reward)) {
    return error_reply(400, "out_of_bounds");
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (store_failed_) return error_reply(503, "store_failed");
  // A resend of a reward already applied (its answer was lost): the same
  // answer's meaning, nothing applied twice.
  if (!req.id.empty() && reward_id_set_.count(req.id) != 0) {
    ++stats_.rewards_repeated;
    return json_reply({{"uploaded", false}, {"repeated", true}});
  }
  // Committed before it is applied: the 200 below is only ever said of a
  // reward a restart replays.
  if (!journal_locked({{LocalEntryKind::reward, 0, encode_reward(req)}})) {
    return error_reply(503, "store_failed");
  }
  const uint64_t fired = stats_.uploads_fired;
  reward_locked(req);
  return json_reply({{"uploaded", stats_.uploads_fired > fired && phase_ > 0}});
}

void LocalService::reward_locked(const RewardRequest& req) {
  ++stats_.rewards;
  if (!req.id.empty()) {
    reward_ids_.push_back(req.id);
    reward_id_set_.insert(req.id);
    if (reward_ids_.size() > kRewardIdWindow) {
      reward_id_set_.erase(reward_ids_.front());
      reward_ids_.pop_front();
    }
  }
  StatsUpload up;
  if (local_.observe(req.user, req.x, req.reward, &up)) {
    ++stats_.uploads_fired;
    // Before the first phase nobody has a global cluster: the data stays local.
    if (phase_ > 0) queue_upload_locked(up);
  }
}

void LocalService::queue_upload_locked(const StatsUpload& up) {
  Upload w;
  deployment_fingerprint(global_.box_pk, w.deployment_fp);
  w.server_id = id_;
  w.phase = up.phase;
  w.seq = up.seq;
  w.local_cluster = up.local_cluster;
  w.member_count = up.members;
  w.stats = to_wire_stats(up.stats, cfg_.dim);
  w.epsilon_spent = up.epsilon_spent;
  w.delta = cfg_.private_uploads ? cfg_.delta : 0.0;
  Outgoing o;
  o.phase = up.phase;
  o.local_cluster = up.local_cluster;
  o.seq = up.seq;
  std::string err;
  if (!seal_upload(w, keys_.sign_sk, global_.box_pk, &o.wire, &err)) {
    if (log_ != nullptr) log_->error("upload_unsealable", {{"error", err}});
    return;
  }
  outbox_.push_back(std::move(o));
}

void LocalService::poll(const GlobalLink& link) {
  if (!store_ok()) return;  // a restart replays the store; nothing more until then
  poll_phase(link);
  flush(link);
  poll_downloads(link);
  send_ack(link);
}

bool LocalService::too_large(int status, const char* what) {
  if (status != kAnswerTooLarge) return false;
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.answers_too_large;
  if (log_ != nullptr) log_->warn("global_answer_too_large", {{"call", what}});
  return true;
}

void LocalService::poll_phase(const GlobalLink& link) {
  std::string reply;
  const int status = link.get("/v1/fclub/phase", kMaxJsonAnswerBytes, &reply);
  if (too_large(status, "phase") || status != 200) return;
  const nlohmann::json j = nlohmann::json::parse(reply, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("phase") ||
      !j["phase"].is_number_unsigned()) {
    return;
  }
  const auto phase = j["phase"].get<uint64_t>();
  std::lock_guard<std::mutex> lock(mu_);
  if (phase <= phase_ || phase > UINT32_MAX) return;
  // A phase start spends budget (its releases): journalled first, so that
  // a restart spends it again only as the same, regenerated noise.
  if (!journal_locked({{LocalEntryKind::phase, phase, {}}})) return;
  start_phase_locked(static_cast<uint32_t>(phase));
}

void LocalService::start_phase_locked(uint32_t phase) {
  phase_ = phase;
  const std::vector<StatsUpload> ups = local_.start_phase(phase_);
  for (const StatsUpload& up : ups) queue_upload_locked(up);
  Outgoing done;
  done.phase_done = true;
  done.phase = phase_;
  done.count = static_cast<uint32_t>(ups.size());
  outbox_.push_back(std::move(done));
  ++stats_.phases_started;
  if (log_ != nullptr && !replaying_) {
    log_->info("phase_started",
               {{"phase", phase_}, {"clusters", local_.cluster_count()}, {"uploads", ups.size()}});
  }
}

void LocalService::flush(const GlobalLink& link) {
  for (;;) {
    Outgoing o;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (outbox_.empty()) return;
      o = outbox_.front();
    }
    std::string reply;
    int status = 0;
    if (o.phase_done) {
      status = link.post(
          "/v1/fclub/phase-done?server=" + std::to_string(id_) +
              "&phase=" + std::to_string(o.phase) + "&clusters=" + std::to_string(o.count),
          sign_phase_done(keys_.sign_sk, expect_.deployment_fp, {id_, o.phase, o.count}), &reply);
    } else {
      status = link.post("/v1/fclub/upload", std::string(o.wire.begin(), o.wire.end()), &reply);
    }
    if (too_large(status, o.phase_done ? "phase_done" : "upload")) return;  // try later
    if (status < 0 || status >= 500) return;  // the global is away: keep it, try later
    // A 409 to a retry means the global took it before (its answer was
    // lost, e.g. in a restart): delivered, not refused.
    const bool delivered =
        status == 200 || (status == 409 && (reply.find("\"replay\"") != std::string::npos ||
                                            reply.find("\"already_done\"") != std::string::npos));
    // Journalled as delivered or refused: either way it leaves the outbox,
    // and a restart must not send it again. Killed before this commit, the
    // restarted local sends it again (resealed, same content, same id): the
    // global answers 409 and it is counted as delivered then.
    std::lock_guard<std::mutex> lock(mu_);
    const int recorded = delivered ? 200 : status;
    if (!journal_locked({{LocalEntryKind::sent, static_cast<uint64_t>(recorded),
                          outbox_id(o.phase_done, o.phase, o.local_cluster, o.seq)}})) {
      return;
    }
    if (!sent_locked(o, recorded)) return;
    if (delivered && !o.phase_done && log_ != nullptr) {
      // The per-id ledger of what the global acknowledged (tests).
      log_->debug(
          "upload_delivered",
          {{"phase", o.phase}, {"cluster", o.local_cluster}, {"seq", o.seq}, {"status", status}});
    }
  }
}

bool LocalService::sent_locked(const Outgoing& o, int status) {
  if (outbox_.empty()) return false;
  // Replay passes the outbox's front itself: read it before it is popped.
  const bool phase_done = o.phase_done;
  const std::size_t bytes = o.wire.size();
  outbox_.pop_front();
  if (status == 200) {
    if (!phase_done) ++stats_.uploads_sent;
  } else {
    ++stats_.uploads_refused;
    if (log_ != nullptr && !replaying_) {
      log_->warn("upload_refused",
                 {{"status", status}, {"phase_done", phase_done}, {"bytes", bytes}});
    }
  }
  return true;
}

void LocalService::poll_downloads(const GlobalLink& link) {
  uint64_t after = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    after = applied_version_;
  }
  const std::size_t size = download_wire_size(cfg_.dim);
  std::string reply;
  const int status = link.get(
      "/v1/fclub/downloads?server=" + std::to_string(id_) + "&after=" + std::to_string(after),
      kMaxDownloadsPerAnswer * size, &reply);
  if (too_large(status, "downloads") || status != 200) return;
  if (size == 0 || reply.size() % size != 0) {
    if (log_ != nullptr) log_->warn("downloads_misframed", {{"bytes", reply.size()}});
    return;
  }
  // Each opened download with its sealed bytes, which is what the journal
  // keeps: sealed to this local, so the store holds no more than the wire did.
  std::vector<std::pair<Download, std::size_t>> got;
  const auto* bytes = reinterpret_cast<const uint8_t*>(reply.data());
  std::lock_guard<std::mutex> lock(mu_);
  for (std::size_t at = 0; at < reply.size(); at += size) {
    Download d;
    std::string err;
    const OpenStatus st =
        open_download(bytes + at, size, keys_.box_pk, keys_.box_sk, signers_, expect_, &d, &err);
    if (st != OpenStatus::ok || d.server_id != id_) {
      ++stats_.downloads_refused;
      if (log_ != nullptr) log_->warn("download_refused", {{"error", open_status_name(st)}});
      continue;
    }
    got.emplace_back(std::move(d), at);
  }
  std::sort(got.begin(), got.end(),
            [](const auto& a, const auto& b) { return a.first.version < b.first.version; });
  std::vector<LocalEntry> batch;
  std::vector<const Download*> fresh;
  uint64_t last = applied_version_;
  for (const auto& [d, at] : got) {
    if (d.version <= last) continue;  // a repeat within the answer, or applied before
    last = d.version;
    batch.push_back({LocalEntryKind::download, d.version, reply.substr(at, size)});
    fresh.push_back(&d);
  }
  // One commit for the answer, before any is applied and so before send_ack
  // can tell the global to delete them: an acknowledged download is never
  // lost nor, after a restart, applied twice.
  if (batch.empty() || !journal_locked(batch)) return;
  for (const Download* d : fresh) apply_download_locked(*d);
}

void LocalService::apply_download_locked(const Download& d) {
  StatsDownload sd;
  sd.server = d.server_id;
  sd.local_cluster = d.local_cluster;
  sd.global_cluster = d.global_cluster;
  sd.phase = d.phase;
  sd.replace = d.kind == kDownloadReplace;
  sd.stats = from_wire_stats(d.stats);
  if (local_.apply(sd)) {
    ++stats_.downloads_applied;
  } else {
    ++stats_.downloads_stale;
    if (log_ != nullptr && !replaying_) {
      log_->info("download_stale", {{"version", d.version}, {"phase", d.phase}});
    }
  }
  applied_version_ = d.version;  // acknowledged by send_ack
}

void LocalService::send_ack(const GlobalLink& link) {
  uint64_t version = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (applied_version_ <= acked_version_) return;
    version = applied_version_;
  }
  std::string reply;
  const int status =
      link.post("/v1/fclub/downloads-ack?server=" + std::to_string(id_) +
                    "&version=" + std::to_string(version),
                sign_downloads_ack(keys_.sign_sk, expect_.deployment_fp, {id_, version}), &reply);
  if (too_large(status, "downloads_ack") || status < 0 || status >= 500) return;  // next poll
  std::lock_guard<std::mutex> lock(mu_);
  if (status == 200) {
    ++stats_.acks_sent;
    acked_version_ = std::max(acked_version_, version);
  } else {
    // Not retried: the global refuses it for good (another deployment's
    // keys); the downloads stay queued and are acknowledged with the next.
    ++stats_.acks_refused;
    acked_version_ = std::max(acked_version_, version);
    if (log_ != nullptr) log_->warn("ack_refused", {{"status", status}, {"version", version}});
  }
}

nlohmann::json LocalService::stats_json() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {{"server", id_},
          {"phase", phase_},
          {"clusters", local_.cluster_count()},
          {"recommends", stats_.recommends},
          {"rewards", stats_.rewards},
          {"rewards_repeated", stats_.rewards_repeated},
          {"uploads_fired", stats_.uploads_fired},
          {"uploads_sent", stats_.uploads_sent},
          {"uploads_refused", stats_.uploads_refused},
          {"outbox", outbox_.size()},
          {"downloads_applied", stats_.downloads_applied},
          {"downloads_stale", stats_.downloads_stale},
          {"downloads_refused", stats_.downloads_refused},
          {"acks_sent", stats_.acks_sent},
          {"acks_refused", stats_.acks_refused},
          {"answers_too_large", stats_.answers_too_large},
          {"applied_version", applied_version_},
          {"phases_started", stats_.phases_started},
          {"store_failed", uint64_t{store_failed_ ? 1U : 0U}},
          // The CDP ledger: the worst record's released nodes and its cost.
          {"cdp_nodes_charged", local_.ledger().nodes_charged()},
          {"rho_spent", local_.ledger().rho_spent()},
          {"epsilon_spent", local_.ledger().epsilon_spent(cfg_.delta)},
          {"state_digest", hex_of(local_.state_digest())}};
}

}  // namespace p2b::fclub
