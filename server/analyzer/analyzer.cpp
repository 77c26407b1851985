#include "analyzer.hpp"

#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>

#include "batch_answers.hpp"
#include "batch_opener.hpp"
#include "common/store_open.hpp"
#include "wire/batch_ack.hpp"
#include "wire/model_bundle.hpp"

namespace p2b::analyzer {

namespace {

uint64_t system_unix_seconds() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

// Marks the publisher failed unless succeeded() is reached (for /readyz).
class PublishMark {
 public:
  explicit PublishMark(std::atomic<bool>* ok) : ok_(ok) {}
  ~PublishMark() {
    if (!done_) ok_->store(false);
  }
  PublishMark(const PublishMark&) = delete;
  PublishMark& operator=(const PublishMark&) = delete;
  void succeeded() {
    done_ = true;
    ok_->store(true);
  }

 private:
  std::atomic<bool>* ok_;
  bool done_ = false;
};

std::string exact(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

}  // namespace

Analyzer::Analyzer(AnalyzerSettings settings, const Codebook& codebook, KeyRing keys,
                   ModelStore* store, Metrics* metrics, Logger* log)
    : settings_(std::move(settings)),
      features_(settings_.mode, codebook),
      raw_dim_(codebook.info.dim),
      keys_(std::move(keys)),
      store_(store),
      metrics_(metrics),
      log_(log) {
  if (!settings_.clock) settings_.clock = system_unix_seconds;
  std::memcpy(codebook_fp_, codebook.info.fingerprint, sizeof codebook_fp_);
  store_->bind(StoreIdentity{features_.dim(), raw_dim_, settings_.n_actions,
                             mode_name(settings_.mode),
                             server::hex_of(codebook_fp_, sizeof codebook_fp_)});
  for (const ModelKind kind : {ModelKind::private_reports, ModelKind::raw_baseline}) {
    ModelState& s = state(kind);
    const uint32_t d = kind == ModelKind::raw_baseline ? raw_dim_ : features_.dim();
    s.stats = Statistics(d, settings_.n_actions);
    SignedModel m;
    store_->load(kind, &s.stats, &m);
    if (m.version > 0) s.signed_model = std::make_shared<const SignedModel>(std::move(m));
  }
  for (ModelState* s : {&private_, &raw_}) {
    s->released_count = static_cast<double>(s->stats.total_count());
  }
  retired_ = store_->retired_epochs();
  for (std::size_t i = 0; i < keys_.n_box_keys(); ++i) {
    Epoch fp{};
    std::copy(keys_.box_keys()[i].fp, keys_.box_keys()[i].fp + fp.size(), fp.begin());
    if (retired_.count(fp) > 0) {
      // Its replay state is gone: reports sealed to it could be replayed.
      throw common::StoreRefused("the box key " + server::hex_of(fp.data(), fp.size()) +
                                 " was retired (p2b-analyzer retire-key); remove it from --keys");
    }
  }
  setup_central_dp();
  refresh_served(ModelKind::private_reports);
  refresh_served(ModelKind::raw_baseline);
  metrics_->set_model_version(private_.signed_model ? private_.signed_model->version : 0);
  metrics_->set_raw_model_version(raw_.signed_model ? raw_.signed_model->version : 0);
  release_quarantine();
}

void Analyzer::setup_central_dp() {
  const CentralDpConfig& want = settings_.central_dp;
  std::optional<CentralDpRecord> have = store_->central_dp();
  if (!want.enabled()) {
    // Exact sums after noisy ones would undo the promise the models carry.
    if (have) {
      throw StoreError("the store's models carry central DP (epsilon " + exact(have->epsilon) +
                       "); start with the same --central-epsilon, --central-delta and "
                       "--central-horizon");
    }
    return;
  }
  if (settings_.mode != AggregationMode::centroid) {
    throw std::invalid_argument(
        "central DP needs the default mode: paper mode's x = [code] "
        "has no bound");
  }
  if (have) {
    // Other settings would scale the same node noise differently, and the
    // differences of two releases would expose it.
    if (have->epsilon != want.epsilon || have->delta != want.delta ||
        have->horizon != want.horizon) {
      throw StoreError("the store was created for central DP epsilon " + exact(have->epsilon) +
                       ", delta " + exact(have->delta) + ", horizon " +
                       std::to_string(have->horizon) + "; it cannot change");
    }
  } else {
    have = CentralDpRecord{want.epsilon, want.delta, want.horizon, new_noise_seed()};
    store_->record_central_dp(*have);
  }
  dp_ = std::make_unique<CentralDp>(want, have->seed);
  sodium_memzero(have->seed.data(), have->seed.size());
  const uint64_t version = private_.signed_model ? private_.signed_model->version : 0;
  if (version >= 1 && version <= want.horizon) {
    private_.released_count = dp_->release(private_.stats, version, settings_.lambda).total_count();
  }
  metrics_->set_central_dp(want.epsilon, want.delta, dp_->releases_left(version));
}

uint64_t Analyzer::central_releases_left() const {
  const std::lock_guard<std::mutex> lock(mu_);
  if (!dp_) return 0;
  return dp_->releases_left(private_.signed_model ? private_.signed_model->version : 0);
}

void Analyzer::check_central_horizon(const std::string& batch_id) {
  if (!dp_) return;
  const uint64_t released = private_.signed_model ? private_.signed_model->version : 0;
  if (dp_->releases_left(released) > 0) return;
  metrics_->central_dp_refused();
  log_->error("central_dp_horizon_exhausted",
              {{"batch", batch_id}, {"horizon", dp_->config().horizon}, {"version", released}});
  throw CentralDpExhausted(
      "central DP horizon exhausted: no further private model can be "
      "released within the configured epsilon");
}

uint64_t Analyzer::publish(ModelKind kind, Statistics next, Commit commit) {
  PublishMark mark(&publish_ok_);
  ModelState& s = state(kind);
  auto model = std::make_shared<SignedModel>();
  model->version = (s.signed_model ? s.signed_model->version : 0) + 1;
  model->created_unix = settings_.clock();

  server::ModelSpec spec;
  spec.dim = next.dim();
  spec.n_actions = next.n_actions();
  spec.ridge_lambda = settings_.lambda;
  std::memcpy(spec.codebook_fp, codebook_fp_, sizeof spec.codebook_fp);
  spec.version = model->version;
  spec.created_unix = model->created_unix;
  spec.kind = kind == ModelKind::raw_baseline ? 1 : 0;  // devices refuse kind 1 by default
  if (settings_.model_ttl > 0) spec.not_after_unix = spec.created_unix + settings_.model_ttl;
  std::vector<double> a, b;
  double released_count = static_cast<double>(next.total_count());
  if (kind == ModelKind::private_reports && dp_) {
    NoisyRelease r = dp_->release(next, model->version, settings_.lambda);
    a = std::move(r.a);
    b = std::move(r.b);
    released_count = r.total_count();
    spec.central_epsilon = dp_->config().epsilon;
    spec.central_delta = dp_->config().delta;
  } else {
    next.model_arrays(settings_.lambda, &a, &b);
  }
  std::string err;
  if (!server::build_model_bundle(spec, a.data(), b.data(), keys_.sign_sk(), &model->bundle,
                                  &err)) {
    throw std::runtime_error("signing the model failed: " + err);
  }

  commit.kind = kind;
  commit.stats = &next;
  commit.model = model.get();
  store_->commit(commit);
  // Only a committed state becomes the served one.
  s.stats = std::move(next);
  s.signed_model = std::move(model);
  s.released_count = released_count;
  refresh_served(kind);
  mark.succeeded();
  if (kind == ModelKind::private_reports && dp_) {
    metrics_->set_central_dp(dp_->config().epsilon, dp_->config().delta,
                             dp_->releases_left(s.signed_model->version));
  }
  return s.signed_model->version;
}

std::vector<uint8_t> Analyzer::ack(const server::BatchId& id, const server::BatchDigest& digest,
                                   uint64_t version, server::BatchAck counts) const {
  counts.id = id;
  counts.digest = digest;
  counts.model_version = version;
  return server::encode_signed_ack(counts, keys_.sign_sk());
}

void Analyzer::add_reports(const std::vector<ValidReport>& reports, Statistics* next,
                           std::vector<uint32_t>* touched) {
  std::set<uint32_t> arms;
  std::vector<double> x(features_.dim());
  for (const ValidReport& r : reports) {
    features_.features(r.code, x.data());
    double reward = r.reward;
    // The sensitivity the noise is calibrated to holds only for bounded reports.
    if (dp_) CentralDp::clip_report(x.data(), features_.dim(), &reward);
    next->add(r.action, x.data(), reward);
    arms.insert(r.action);
  }
  touched->assign(arms.begin(), arms.end());
}

BatchOutcome Analyzer::receive_batch(const uint8_t* data, std::size_t len) {
  server::VerifiedBatch verified;
  BatchOutcome out;
  if (!verify_or_refuse(data, len, settings_, &verified, &out, *metrics_, *log_)) {
    return out;
  }
  return apply_verified(verified);
}

BatchOutcome Analyzer::answer_known(const server::VerifiedBatch& verified,
                                    const AppliedBatch& known) {
  return answer_known_batch(
      verified, known,
      [this](const server::BatchAck& a) { return server::encode_signed_ack(a, keys_.sign_sk()); },
      *metrics_, *log_);
}

BatchOutcome Analyzer::apply_verified(const server::VerifiedBatch& verified) {
  const server::Batch& batch = verified.batch;
  const std::string id = server::batch_id_hex(batch.id);
  {
    const std::lock_guard<std::mutex> lock(mu_);
    if (const std::optional<AppliedBatch> known = store_->find_batch(batch.id)) {
      return answer_known(verified, *known);
    }
    check_central_horizon(id);
  }
  // Decryption is the expensive part and needs no state: it runs unlocked.
  const std::vector<OpenedRecord> records =
      open_records(batch, keys_, features_.n_codes(), settings_.n_actions, &retired_);

  const std::lock_guard<std::mutex> lock(mu_);
  // Another request may have applied the same id while this one decrypted.
  if (const std::optional<AppliedBatch> known = store_->find_batch(batch.id)) {
    return answer_known(verified, *known);
  }
  check_central_horizon(id);
  const bool any_quarantined = quarantine_size_ > 0;
  const OpenedBatch opened = screen_opened(
      records,
      [this, any_quarantined](const OpenedRecord& r) {
        return store_->inner_seen(r.epoch, r.digest) ||
               (any_quarantined && store_->in_quarantine(r.digest));
      },
      common::ThresholdPolicy{settings_.threshold, settings_.threshold_noise});
  BatchOutcome out;
  out.quarantined = opened.quarantine.size();
  if (out.quarantined > 0 && quarantine_size_ + out.quarantined > settings_.max_quarantine) {
    // Refused whole, so the shuffler keeps the batch and nothing is lost;
    // an operator must release or inspect the quarantine (docs/analyzer.md).
    out.result = BatchResult::quarantine_full;
    out.error = "the quarantine holds " + std::to_string(quarantine_size_) + " of at most " +
                std::to_string(settings_.max_quarantine) + " records; this batch would add " +
                std::to_string(out.quarantined);
    metrics_->batch_refused(BatchRefusal::quarantine_full);
    log_->error("quarantine_full", {{"batch", id},
                                    {"quarantine", quarantine_size_},
                                    {"max_quarantine", settings_.max_quarantine},
                                    {"would_add", out.quarantined}});
    return out;
  }
  Statistics next = private_.stats;
  Commit commit;
  add_reports(opened.valid, &next, &commit.touched_arms);
  commit.batch_id = batch.id;
  commit.batch_digest = verified.digest;
  commit.partition = batch.partition;
  commit.inner_digests = opened.new_digests;
  commit.inner_epochs = opened.new_epochs;
  commit.records_applied = opened.valid.size();
  commit.records_rejected = opened.rejected_total();
  commit.counts.records = static_cast<uint32_t>(batch.records.size());
  commit.counts.applied = static_cast<uint32_t>(opened.valid.size());
  commit.counts.quarantined = static_cast<uint32_t>(out.quarantined);
  static_assert(server::kAckRefusalReasons == kRejectReasons, "one ack slot per reason");
  for (int i = 0; i < kRejectReasons; ++i) {
    if (!is_quarantined(static_cast<RejectReason>(i))) {
      commit.counts.refused[i] = static_cast<uint32_t>(opened.rejected[i]);
    }
  }
  const uint64_t now = settings_.clock();
  for (const std::size_t i : opened.quarantine) {
    QuarantinedRecord q;
    q.digest = records[i].digest;
    q.batch_id = batch.id;
    q.position = static_cast<uint32_t>(i);
    q.crowd_id = batch.records[i].crowd_id;
    q.inner = batch.records[i].inner;
    q.reason = records[i].reason;
    q.quarantined_unix = now;
    commit.quarantine.push_back(q);
  }
  const server::BatchAck counts = commit.counts;
  out.version = publish(ModelKind::private_reports, std::move(next), std::move(commit));
  out.applied = opened.valid.size();
  out.rejected = opened.rejected_total();
  out.by_reason = opened.rejected;
  out.ack = ack(batch.id, verified.digest, out.version, counts);
  quarantine_size_ += out.quarantined;
  metrics_->batch_applied(out.applied, out.by_reason);
  metrics_->records_quarantined(out.by_reason);
  metrics_->set_quarantine_size(quarantine_size_);
  metrics_->set_model_version(out.version);

  std::vector<LogField> fields{{"batch", id},
                               {"partition", static_cast<uint64_t>(batch.partition)},
                               {"signer", server::hex_of(verified.signer_fp, kFingerprintBytes)},
                               {"records", static_cast<uint64_t>(batch.records.size())},
                               {"applied", out.applied},
                               {"quarantined", out.quarantined},
                               {"rejected", out.rejected},
                               {"version", out.version}};
  add_rejection_fields(out.by_reason, &fields);
  log_->info("batch_applied", fields);
  if (out.quarantined > 0) {
    // Not lost, but not applied either: an operator should know at once
    // (a missing key, another --actions or codebook, or garbage).
    std::vector<LogField> why{
        {"batch", id}, {"quarantined", out.quarantined}, {"quarantine", quarantine_size_}};
    for (int i = 0; i < kRejectReasons; ++i) {
      const auto r = static_cast<RejectReason>(i);
      if (is_quarantined(r) && out.by_reason[i] > 0) {
        why.push_back({std::string("quarantined_") + reject_reason_name(r), out.by_reason[i]});
      }
    }
    log_->error("records_quarantined", why);
  }
  return out;
}

void Analyzer::release_quarantine() {
  const std::lock_guard<std::mutex> lock(mu_);
  quarantine_size_ = store_->quarantine_size();
  metrics_->set_quarantine_size(quarantine_size_);
  if (quarantine_size_ == 0) return;
  Released total;
  uint64_t stay = 0;
  for (const server::BatchId& id : store_->quarantined_batches()) {
    stay += release_batch(id, &total);
  }
  quarantine_size_ = stay;
  metrics_->set_quarantine_size(quarantine_size_);
  const std::vector<LogField> fields{{"applied", total.applied},
                                     {"replayed", total.replayed},
                                     {"below_threshold", total.below_threshold},
                                     {"quarantine", quarantine_size_}};
  if (quarantine_size_ > 0) {
    log_->error("quarantine_waiting", fields);
  } else {
    log_->info("quarantine_released", fields);
  }
}

uint64_t Analyzer::release_batch(const server::BatchId& id, Released* total) {
  const std::vector<QuarantinedRecord> rows = store_->quarantined(id);
  server::Batch group;
  group.id = id;
  for (const QuarantinedRecord& q : rows) group.records.push_back({q.crowd_id, q.inner});
  const std::vector<OpenedRecord> opened =
      open_records(group, keys_, features_.n_codes(), settings_.n_actions, &retired_);
  std::vector<OpenedRecord> now_valid;
  for (const OpenedRecord& r : opened) {
    if (r.valid) now_valid.push_back(r);
  }
  const uint64_t stay = rows.size() - now_valid.size();
  if (now_valid.empty()) return stay;
  const std::string id_hex = server::batch_id_hex(id);
  if (dp_ && dp_->releases_left(private_.signed_model ? private_.signed_model->version : 0) == 0) {
    log_->error("quarantine_kept", {{"batch", id_hex}, {"reason", "central DP horizon exhausted"}});
    return rows.size();
  }
  // The group is judged again as a batch of its own: replays of what was
  // applied meanwhile are refused, and so is every crowd below l among the
  // records that open now (conservative: its other reports were judged
  // with the original batch, and are not counted twice).
  const OpenedBatch screened = screen_opened(
      now_valid, [this](const OpenedRecord& r) { return store_->inner_seen(r.epoch, r.digest); },
      common::ThresholdPolicy{settings_.threshold, settings_.threshold_noise});
  Statistics next = private_.stats;
  Commit commit;
  add_reports(screened.valid, &next, &commit.touched_arms);
  commit.inner_digests = screened.new_digests;
  commit.inner_epochs = screened.new_epochs;
  commit.records_applied = screened.valid.size();
  for (const OpenedRecord& r : now_valid) commit.released.push_back(r.digest);
  const uint64_t version = publish(ModelKind::private_reports, std::move(next), std::move(commit));
  const uint64_t replayed = screened.rejected[static_cast<int>(RejectReason::replayed)];
  const uint64_t below = screened.rejected[static_cast<int>(RejectReason::below_threshold)];
  total->applied += screened.valid.size();
  total->replayed += replayed;
  total->below_threshold += below;
  metrics_->records_released(ReleaseOutcome::applied, screened.valid.size());
  metrics_->records_released(ReleaseOutcome::replayed, replayed);
  metrics_->records_released(ReleaseOutcome::below_threshold, below);
  metrics_->set_model_version(version);
  log_->info("quarantine_batch_released",
             {{"batch", id_hex},
              {"applied", static_cast<uint64_t>(screened.valid.size())},
              {"replayed", replayed},
              {"below_threshold", below},
              {"stay", stay},
              {"version", version}});
  return stay;
}

RawOutcome Analyzer::apply_raw(const RawBatch& raw) {
  if (!settings_.raw_enabled) throw std::logic_error("raw baseline disabled");
  if (raw.dim != raw_dim_) throw std::invalid_argument("raw context dimension mismatch");
  const std::lock_guard<std::mutex> lock(mu_);
  Statistics next = raw_.stats;
  std::set<uint32_t> touched;
  for (std::size_t r = 0; r < raw.size(); ++r) {
    next.add(raw.actions[r], raw.contexts.data() + r * raw.dim, raw.rewards[r]);
    touched.insert(raw.actions[r]);
  }
  Commit commit;
  commit.records_applied = raw.size();
  commit.touched_arms.assign(touched.begin(), touched.end());
  RawOutcome out;
  out.version = publish(ModelKind::raw_baseline, std::move(next), std::move(commit));
  out.applied = raw.size();
  metrics_->raw_applied(out.applied);
  metrics_->set_raw_model_version(out.version);
  log_->info("raw_applied", {{"applied", out.applied}, {"version", out.version}});
  return out;
}

void Analyzer::refresh_served(ModelKind kind) {
  ModelState& s = state(kind);
  bool withheld = false;
  if (kind == ModelKind::private_reports) {
    // With central DP the decision may use only what was released.
    withheld = dp_ ? settings_.min_reports > 0 &&
                         s.released_count < static_cast<double>(settings_.min_reports)
                   : s.stats.total_count() < settings_.min_reports;
  }
  std::atomic_store(&s.served, withheld ? nullptr : s.signed_model);
}

std::shared_ptr<const SignedModel> Analyzer::model(ModelKind kind) const {
  return std::atomic_load(&state(kind).served);
}

Statistics Analyzer::statistics(ModelKind kind) const {
  const std::lock_guard<std::mutex> lock(mu_);
  return state(kind).stats;
}

}  // namespace p2b::analyzer
