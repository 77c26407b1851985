#include "pg_node.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "batch_answers.hpp"
#include "batch_opener.hpp"
#include "wire/batch_ack.hpp"
#include "wire/model_bundle.hpp"

namespace p2b::analyzer {

namespace {

int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

uint64_t system_unix_seconds() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace

PgNode::PgNode(PgNodeSettings settings, const Codebook& codebook, KeyRing worker_keys,
               common::SecureArray<uint8_t> model_sk, PgAnalyzerStore* store, Metrics* metrics,
               Logger* log)
    : settings_(std::move(settings)),
      features_(settings_.analyzer.mode, codebook),
      worker_keys_(std::move(worker_keys)),
      model_sk_(std::move(model_sk)),
      store_(store),
      metrics_(metrics),
      log_(log) {
  if (!settings_.analyzer.clock) settings_.analyzer.clock = system_unix_seconds;
  std::memcpy(codebook_fp_, codebook.info.fingerprint, sizeof codebook_fp_);
  const bool works = settings_.role != Role::publisher;
  const bool publishes = settings_.role != Role::worker;
  if (works && worker_keys_.n_box_keys() == 0) throw std::invalid_argument("a worker needs keys");
  if (publishes && model_sk_.size() != kSignSecretBytes) {
    throw std::invalid_argument("a publisher needs the model signing key");
  }
  const CentralDpConfig& budget = settings_.analyzer.central_dp;
  if (budget.enabled()) {
    if (settings_.analyzer.mode != AggregationMode::centroid) {
      throw std::invalid_argument(
          "central DP needs the default mode: paper mode's x = [code] "
          "has no bound");
    }
    // The calibration, checked now rather than at the first publication;
    // the seed is never logged (nor known to this calculation).
    const CentralDp calc(budget, dp::NoiseSeed{});
    log_->info("central_dp", {{"epsilon", budget.epsilon},
                              {"delta", budget.delta},
                              {"horizon", budget.horizon},
                              {"levels", calc.levels()},
                              {"sigma", calc.sigma()}});
  }
  store_->bind_central_dp(budget);
  if (works) {
    std::vector<Epoch> epochs;
    for (std::size_t i = 0; i < worker_keys_.n_box_keys(); ++i) {
      Epoch e{};
      std::copy(worker_keys_.box_keys()[i].fp, worker_keys_.box_keys()[i].fp + e.size(), e.begin());
      epochs.push_back(e);
    }
    store_->open_epochs(epochs);
  }
  refresh();
  if (works) release_quarantine();
  refresher_ = std::thread([this] { refresh_loop(); });
  if (publishes) publisher_ = std::thread([this] { publisher_loop(); });
}

PgNode::~PgNode() {
  {
    const std::lock_guard<std::mutex> lock(stop_mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (refresher_.joinable()) refresher_.join();
  if (publisher_.joinable()) publisher_.join();
}

bool PgNode::pause(std::chrono::milliseconds d) {
  std::unique_lock<std::mutex> lock(stop_mu_);
  return !stop_cv_.wait_for(lock, d, [this] { return stopping_; });
}

void PgNode::refresh() {
  std::shared_ptr<const StoredModel> have = std::atomic_load(&latest_);
  std::optional<StoredModel> now =
      store_->latest_model(ModelKind::private_reports, have ? have->model.version : 0, have);
  if (now && (!have || have->model.version != now->model.version)) {
    auto next = std::make_shared<const StoredModel>(std::move(*now));
    std::atomic_store(&latest_, next);
    // With central DP the decision may use only what was released.
    const bool withheld =
        central_dp_on()
            ? settings_.analyzer.min_reports > 0 &&
                  next->released_reports < static_cast<double>(settings_.analyzer.min_reports)
            : next->reports < settings_.analyzer.min_reports;
    std::atomic_store(&served_, withheld ? std::shared_ptr<const SignedModel>()
                                         : std::make_shared<const SignedModel>(next->model));
    metrics_->set_model_version(next->model.version);
  }
  if (central_dp_on()) {
    const CentralDpConfig& budget = settings_.analyzer.central_dp;
    const uint64_t version = now ? now->model.version : 0;
    metrics_->set_central_dp(budget.epsilon, budget.delta,
                             version >= budget.horizon ? 0 : budget.horizon - version);
  }
  std::set<Epoch> retired = store_->retired_epochs();
  {
    const std::lock_guard<std::mutex> lock(retired_mu_);
    retired_ = std::move(retired);
  }
  last_refresh_ms_.store(steady_ms());
}

void PgNode::refresh_loop() {
  while (pause(settings_.refresh)) {
    try {
      refresh();
    } catch (const std::exception& e) {
      log_->warn("model_refresh_failed", {{"error", e.what()}});
    }
  }
}

bool PgNode::database_ok() const {
  const int64_t bound = 4 * settings_.refresh.count() + 5000;
  return steady_ms() - last_refresh_ms_.load() <= bound;
}

std::shared_ptr<const SignedModel> PgNode::model(ModelKind kind) const {
  if (kind != ModelKind::private_reports) return nullptr;
  return std::atomic_load(&served_);
}

RawOutcome PgNode::apply_raw(const RawBatch& /*raw*/) {
  throw std::logic_error("raw baseline disabled");
}

void PgNode::publisher_loop() {
  auto last = std::chrono::steady_clock::now();
  bool announced_standby = false;
  for (;;) {
    try {
      if (!leading_.load()) {
        if (!store_->try_lead()) {
          if (!announced_standby) log_->info("publisher_standby", {});
          announced_standby = true;
          if (!pause(std::chrono::milliseconds(250))) return;
          continue;
        }
        leading_.store(true);
        log_->info("publisher_leading", {});
        last = std::chrono::steady_clock::now();
      }
      publish_if_due(&last);
    } catch (const std::exception& e) {
      // The lock lives with the session: after any failure the next round
      // takes it again (on a new connection) before publishing.
      leading_.store(false);
      publish_ok_.store(false);
      announced_standby = false;
      log_->error("publish_failed", {{"error", e.what()}});
    }
    if (!pause(std::chrono::milliseconds(100))) return;
  }
}

bool PgNode::publish_if_due(std::chrono::steady_clock::time_point* last) {
  const std::shared_ptr<const StoredModel> have = std::atomic_load(&latest_);
  std::optional<StoredModel> head =
      store_->latest_model(ModelKind::private_reports, have ? have->model.version : 0, have);
  const uint64_t published = head ? head->reports : 0;
  const uint64_t total = store_->accumulated_reports(ModelKind::private_reports);
  if (total <= published) return false;
  const uint64_t fresh = total - published;
  const auto waited = std::chrono::steady_clock::now() - *last;
  const bool by_count = settings_.publish_reports > 0 && fresh >= settings_.publish_reports;
  const bool by_time = waited >= std::chrono::duration<double>(settings_.publish_seconds);
  if (!by_count && !by_time) return false;

  const Statistics stats =
      store_->sum_shards(ModelKind::private_reports, features_.dim(), settings_.analyzer.n_actions);
  const uint64_t version = (head ? head->model.version : 0) + 1;
  const uint64_t now = settings_.analyzer.clock();
  if (central_dp_on()) {
    const CentralDpConfig& budget = settings_.analyzer.central_dp;
    if (version > budget.horizon) {
      // The reports stay exact sums in the database, never released.
      if (!horizon_announced_) {
        metrics_->central_dp_refused();
        log_->error("central_dp_horizon_exhausted",
                    {{"horizon", budget.horizon}, {"version", version}});
      }
      horizon_announced_ = true;
      return false;
    }
    store_->store_noisy_model(version, now, [&](const dp::NoiseSeed& seed) {
      const CentralDp calc(budget, seed);
      NoisyRelease r = calc.release(stats, version, settings_.analyzer.lambda);
      NoisyPublication p;
      p.model = sign_model(version, now, r.a, r.b, &budget);
      p.reports = stats.total_count();
      p.released_reports = r.total_count();
      return p;
    });
  } else {
    std::vector<double> a, b;
    stats.model_arrays(settings_.analyzer.lambda, &a, &b);
    store_->store_model(ModelKind::private_reports, sign_model(version, now, a, b, nullptr),
                        stats.total_count());
  }
  *last = std::chrono::steady_clock::now();
  publish_ok_.store(true);
  log_->info("model_published", {{"version", version},
                                 {"reports", stats.total_count()},
                                 {"new_reports", stats.total_count() - published}});
  refresh();
  return true;
}

SignedModel PgNode::sign_model(uint64_t version, uint64_t created_unix,
                               const std::vector<double>& a, const std::vector<double>& b,
                               const CentralDpConfig* dp) const {
  SignedModel model;
  model.version = version;
  model.created_unix = created_unix;
  server::ModelSpec spec;
  spec.dim = features_.dim();
  spec.n_actions = settings_.analyzer.n_actions;
  spec.ridge_lambda = settings_.analyzer.lambda;
  std::memcpy(spec.codebook_fp, codebook_fp_, sizeof spec.codebook_fp);
  spec.version = version;
  spec.created_unix = created_unix;
  spec.kind = 0;
  if (settings_.analyzer.model_ttl > 0) {
    spec.not_after_unix = spec.created_unix + settings_.analyzer.model_ttl;
  }
  if (dp != nullptr) {
    spec.central_epsilon = dp->epsilon;
    spec.central_delta = dp->delta;
  }
  std::string err;
  if (!server::build_model_bundle(spec, a.data(), b.data(), model_sk_.data(), &model.bundle,
                                  &err)) {
    throw std::runtime_error("signing the model failed: " + err);
  }
  return model;
}

Statistics PgNode::sums_of(const std::vector<ValidReport>& reports) const {
  Statistics s(features_.dim(), settings_.analyzer.n_actions);
  std::vector<double> x(features_.dim());
  for (const ValidReport& r : reports) {
    features_.features(r.code, x.data());
    double reward = r.reward;
    // The sensitivity the publisher's noise is calibrated to holds only for
    // bounded reports; the worker adds no noise itself.
    if (central_dp_on()) CentralDp::clip_report(x.data(), features_.dim(), &reward);
    s.add(r.action, x.data(), reward);
  }
  return s;
}

void PgNode::check_central_horizon(const std::string& batch_id) {
  if (!central_dp_on()) return;
  const std::shared_ptr<const StoredModel> have = std::atomic_load(&latest_);
  const uint64_t released = have ? have->model.version : 0;
  const uint64_t horizon = settings_.analyzer.central_dp.horizon;
  if (released < horizon) return;
  metrics_->central_dp_refused();
  log_->error("central_dp_horizon_exhausted",
              {{"batch", batch_id}, {"horizon", horizon}, {"version", released}});
  throw CentralDpExhausted(
      "central DP horizon exhausted: no further private model can be released within the "
      "configured epsilon");
}

void PgNode::release_quarantine() {
  std::set<Epoch> retired;
  {
    const std::lock_guard<std::mutex> lock(retired_mu_);
    retired = retired_;
  }
  const common::ThresholdPolicy policy{settings_.analyzer.threshold,
                                       settings_.analyzer.threshold_noise};
  uint64_t applied = 0, replayed = 0, below = 0, stay = 0;
  for (const server::BatchId& id : store_->quarantined_batches()) {
    const std::vector<QuarantinedRecord> rows = store_->quarantined(id);
    server::Batch group;
    group.id = id;
    for (const QuarantinedRecord& q : rows) group.records.push_back({q.crowd_id, q.inner});
    std::vector<OpenedRecord> now_valid;
    for (const OpenedRecord& r : open_records(group, worker_keys_, features_.n_codes(),
                                              settings_.analyzer.n_actions, &retired)) {
      if (r.valid) now_valid.push_back(r);
    }
    stay += rows.size() - now_valid.size();
    if (now_valid.empty()) continue;
    // Judged again as a batch of its own: replays and crowds below l refused.
    const OpenedBatch done = store_->release(
        now_valid,
        [&policy](const std::vector<OpenedRecord>& records,
                  const std::function<bool(const OpenedRecord&)>& seen) {
          return screen_opened(records, seen, policy);
        },
        [this](const std::vector<ValidReport>& reports) { return sums_of(reports); });
    applied += done.valid.size();
    replayed += done.rejected[static_cast<int>(RejectReason::replayed)];
    below += done.rejected[static_cast<int>(RejectReason::below_threshold)];
    metrics_->records_released(ReleaseOutcome::applied, done.valid.size());
  }
  const std::vector<LogField> fields{{"applied", applied},
                                     {"replayed", replayed},
                                     {"below_threshold", below},
                                     {"quarantine", stay}};
  if (stay > 0) {
    log_->error("quarantine_waiting", fields);
  } else if (applied + replayed + below > 0) {
    log_->info("quarantine_released", fields);
  }
}

BatchOutcome PgNode::receive_batch(const uint8_t* data, std::size_t len) {
  if (settings_.role == Role::publisher) {
    throw BatchesNotTaken("this analyzer is a publisher: send batches to a worker");
  }
  server::VerifiedBatch verified;
  BatchOutcome out;
  if (!verify_or_refuse(data, len, settings_.analyzer, &verified, &out, *metrics_, *log_)) {
    return out;
  }
  return apply_verified(verified);
}

BatchOutcome PgNode::answer_known(const server::VerifiedBatch& verified,
                                  const AppliedBatch& known) {
  return answer_known_batch(
      verified, known,
      [this](const server::BatchAck& a) {
        return server::encode_signed_ack(a, worker_keys_.sign_sk());
      },
      *metrics_, *log_);
}

BatchOutcome PgNode::apply_verified(const server::VerifiedBatch& verified) {
  const server::Batch& batch = verified.batch;
  const std::string id = server::batch_id_hex(batch.id);
  if (const std::optional<AppliedBatch> known = store_->find_batch(batch.id)) {
    return answer_known(verified, *known);
  }
  check_central_horizon(id);
  std::set<Epoch> retired;
  {
    const std::lock_guard<std::mutex> lock(retired_mu_);
    retired = retired_;
  }
  const std::vector<OpenedRecord> records = open_records(batch, worker_keys_, features_.n_codes(),
                                                         settings_.analyzer.n_actions, &retired);
  const common::ThresholdPolicy policy{settings_.analyzer.threshold,
                                       settings_.analyzer.threshold_noise};
  const auto screen = [&](const std::function<bool(const OpenedRecord&)>& seen) {
    return screen_opened(records, seen, policy);
  };
  const auto sums = [this](const std::vector<ValidReport>& reports) { return sums_of(reports); };
  const auto counts = [&batch](const OpenedBatch& opened) {
    server::BatchAck c;
    c.records = static_cast<uint32_t>(batch.records.size());
    c.applied = static_cast<uint32_t>(opened.valid.size());
    c.quarantined = static_cast<uint32_t>(opened.quarantine.size());
    for (int i = 0; i < kRejectReasons; ++i) {
      if (!is_quarantined(static_cast<RejectReason>(i))) {
        c.refused[i] = static_cast<uint32_t>(opened.rejected[i]);
      }
    }
    return c;
  };
  const PgApplied done =
      store_->apply_batch(verified, records, screen, sums, counts,
                          settings_.analyzer.max_quarantine, settings_.analyzer.clock());
  BatchOutcome out;
  switch (done.status) {
    case PgApplied::Status::known:
      return answer_known(verified, done.known);
    case PgApplied::Status::quarantine_full:
      out.result = BatchResult::quarantine_full;
      out.quarantined = done.opened.quarantine.size();
      out.error = "the quarantine holds " + std::to_string(done.quarantine) + " of at most " +
                  std::to_string(settings_.analyzer.max_quarantine) +
                  " records; this batch would add " + std::to_string(out.quarantined);
      metrics_->batch_refused(BatchRefusal::quarantine_full);
      log_->error("quarantine_full", {{"batch", id}, {"quarantine", done.quarantine}});
      return out;
    case PgApplied::Status::applied:
      break;
  }
  out.result = BatchResult::applied;
  out.applied = done.opened.valid.size();
  out.quarantined = done.opened.quarantine.size();
  out.rejected = done.opened.rejected_total();
  out.by_reason = done.opened.rejected;
  out.version = done.version;
  server::BatchAck ack = counts(done.opened);
  ack.id = batch.id;
  ack.digest = verified.digest;
  ack.model_version = done.version;
  out.ack = server::encode_signed_ack(ack, worker_keys_.sign_sk());
  metrics_->batch_applied(out.applied, out.by_reason);
  metrics_->records_quarantined(out.by_reason);
  std::vector<LogField> fields{{"batch", id},
                               {"partition", static_cast<uint64_t>(batch.partition)},
                               {"records", static_cast<uint64_t>(batch.records.size())},
                               {"applied", out.applied},
                               {"quarantined", out.quarantined},
                               {"rejected", out.rejected},
                               {"published_version", out.version}};
  add_rejection_fields(out.by_reason, &fields);
  log_->info("batch_applied", fields);
  if (out.quarantined > 0) {
    log_->error("records_quarantined", {{"batch", id}, {"quarantined", out.quarantined}});
  }
  return out;
}

}  // namespace p2b::analyzer
