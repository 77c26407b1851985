#include "shuffler/batcher.hpp"

#include <sodium.h>

#include <algorithm>
#include <exception>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/json_log.hpp"
#include "shuffler/ack_check.hpp"
#include "wire/batch_format.hpp"

namespace p2b::shuffler {

namespace {

using Clock = std::chrono::steady_clock;

int64_t steady_ms(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

// The error code of an analyzer's JSON answer ({"error": code, "detail":
// why}), at most 64 characters: a code, not a story; empty if none.
std::string error_code(const std::string& answer) {
  const nlohmann::json body = nlohmann::json::parse(answer, nullptr, false);
  if (body.is_object() && body.contains("error") && body["error"].is_string()) {
    return body["error"].get<std::string>().substr(0, 64);
  }
  return {};
}

// The analyzer's own words on a refusal, bounded (the answer already is, to
// 4 KiB): for the one refusal an operator must act on at once.
std::string error_detail(const std::string& answer) {
  const nlohmann::json body = nlohmann::json::parse(answer, nullptr, false);
  if (body.is_object() && body.contains("detail") && body["detail"].is_string()) {
    return body["detail"].get<std::string>().substr(0, 400);
  }
  return {};
}

// The analyzer refuses the thresholds this shuffler signs: retrying cannot
// help until an operator makes the two agree.
bool is_threshold_mismatch(int status, const std::string& answer) {
  return status == 409 && error_code(answer) == "threshold_mismatch";
}

// Why a delivery failed, stable across retries of the same fault so that it
// is logged once: the transport error, or the status and the error code of
// the analyzer's answer.
std::string failure_reason(int status, const std::string& answer, const std::string& detail) {
  if (status < 0) return "no answer: " + detail;
  if (status == 200) return "HTTP 200 without a valid ack: " + detail;
  std::string reason = "HTTP " + std::to_string(status);
  const std::string code = error_code(answer);
  if (!code.empty()) reason += " " + code;
  if (is_threshold_mismatch(status, answer)) {
    reason += ": " + error_detail(answer) +
              "; a configuration error: the batch waits until both services run the same "
              "--threshold and --noisy-threshold";
  }
  if (status == 413) {
    // The batch is signed and its crowds were thresholded as a whole: cut
    // in parts, each could fall below the threshold. It waits instead.
    reason +=
        ": the analyzer's --max-batch-records is below this batch; a signed, thresholded "
        "batch cannot be split, so it waits until the analyzer's limit is raised";
  }
  return reason;
}

server::BatchId random_batch_id() {
  server::BatchId id{};
  randombytes_buf(id.data(), id.size());
  return id;
}

std::string random_holder() {
  uint8_t bytes[8];
  randombytes_buf(bytes, sizeof bytes);
  char hex[2 * sizeof bytes + 1];
  sodium_bin2hex(hex, sizeof hex, bytes, sizeof bytes);
  return hex;
}

}  // namespace

Batcher::Batcher(Spool& spool, AnalyzerSink& sink, Metrics& metrics, BatchingPolicy policy,
                 BatchKeys keys)
    : spool_(spool),
      sink_(sink),
      metrics_(metrics),
      policy_(policy),
      keys_(std::move(keys)),
      holder_(random_holder()),
      closing_("batch_close", policy.min_retry, policy.max_retry),
      delivery_("batch_delivery", policy.min_retry, policy.max_retry) {}

Batcher::~Batcher() {
  stop();
}

void Batcher::start() {
  pending_ = static_cast<int64_t>(spool_.unbatched());
  note_backlog();
  running_ = true;
  thread_ = std::thread([this] {
    try {
      run();
    } catch (const std::exception& e) {
      // Not expected (spool errors are caught per step); /readyz shows it.
      common::service_log().error("batcher_stopped", {{"error", e.what()}});
    }
    running_ = false;
  });
}

void Batcher::stop() {
  {
    const std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  // A delivery may start just after a cancel; cancel again until the thread
  // is out (each delivery is bounded by the sink's timeouts anyway).
  while (running_) {
    sink_.cancel();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (thread_.joinable()) thread_.join();
  // A clean stop hands the partition over at once rather than after the ttl.
  // Once only: the destructor's stop() may come after the spool is gone.
  if (lease_released_) return;
  lease_released_ = true;
  try {
    if (const std::optional<Lease> lease = hold_lease()) spool_.release_lease(*lease);
  } catch (const SpoolError&) {
    // The lease simply expires.
  }
}

bool Batcher::stop_requested() {
  const std::lock_guard<std::mutex> lock(mu_);
  return stopping_;
}

void Batcher::notify_stored(std::size_t n) {
  bool full = false;
  {
    const std::lock_guard<std::mutex> lock(mu_);
    pending_ += static_cast<int64_t>(n);
    full = pending_ >= static_cast<int64_t>(policy_.batch_size);
  }
  if (full) wake_.notify_all();
}

bool Batcher::poll_shared_count() {
  std::optional<std::size_t> count;
  try {
    count = spool_.shared_unbatched(policy_.partition);
  } catch (const SpoolError&) {
    return true;  // a shared store that is down now; the close step reports it
  }
  if (!count) return false;
  const std::lock_guard<std::mutex> lock(mu_);
  pending_ = static_cast<int64_t>(*count);
  return true;
}

void Batcher::note_backlog() {
  metrics_.unacknowledged_batches = spool_.unacknowledged_batches();
}

void Batcher::note_quarantine() {
  if (!spool_.has_quarantine()) return;
  const std::size_t now = spool_.quarantine_size();
  const uint64_t before = metrics_.quarantined.exchange(now);
  if (now > before) metrics_.damaged_in_spool.fetch_add(now - before);
}

std::optional<Lease> Batcher::hold_lease() {
  return spool_.acquire_lease(policy_.partition, holder_, policy_.lease_ttl);
}

ClosedBatch Batcher::close_batch() {
  const ThresholdPolicy threshold = policy_.threshold;
  const server::BatchId id = random_batch_id();
  const std::optional<Lease> lease = hold_lease();
  if (!lease) return ClosedBatch{};  // another batcher has the partition
  const ClosedBatch closed =
      spool_.close_batch(id, *lease, policy_.batch_size, [&](const std::vector<uint32_t>& crowds) {
        return shuffle_and_threshold(crowds, threshold);
      });
  // Fewer than asked for: the estimate ran ahead of the spool; recount so
  // that it cannot keep asking for closes that find nothing.
  const int64_t left =
      closed.taken < policy_.batch_size ? static_cast<int64_t>(spool_.unbatched()) : int64_t{-1};
  {
    const std::lock_guard<std::mutex> lock(mu_);
    pending_ = left >= 0 ? left : pending_ - static_cast<int64_t>(closed.taken);
  }
  metrics_.thresholded.fetch_add(closed.thresholded);
  if (closed.kept > 0) note_backlog();
  if (closed.damaged > 0) note_quarantine();
  if (closed.taken > 0) {
    common::service_log().info(
        "batch_closed", {{"batch_id", closed.kept > 0 ? server::batch_id_hex(id) : std::string()},
                         {"records", closed.taken},
                         {"kept", closed.kept},
                         {"thresholded", closed.thresholded},
                         {"damaged", closed.damaged}});
  }
  return closed;
}

void Batcher::delivery_failed(const std::string& reason, FailureState::Kind kind) {
  metrics_.forward_failures.fetch_add(1);
  delivery_pause_ = delivery_.failed(reason, kind);
  metrics_.delivery_failing = true;
  metrics_.delivery_misconfigured = kind == FailureState::Kind::configuration;
  metrics_.delivery_consecutive_failures = delivery_.snapshot().consecutive;
}

Batcher::Sent Batcher::send_signed(const server::Batch& batch, const uint8_t* sign_sk) {
  Sent sent;
  // Ed25519 signatures are deterministic: a re-sent batch is the same
  // bytes, so the analyzer recognises it as the batch it applied.
  const std::vector<uint8_t> encoded = server::encode_signed_batch(batch, sign_sk);
  sent.digest = server::batch_digest(encoded.data(), encoded.size());
  sent.status = sink_.deliver(encoded, &sent.answer, &sent.detail);
  return sent;
}

Batcher::Sent Batcher::send_under_any_key(const server::Batch& batch, bool* by_previous) {
  *by_previous = false;
  Sent sent = send_signed(batch, keys_.sign_sk);
  for (const uint8_t* previous : keys_.previous_sign_sks) {
    if (sent.status != 409 || error_code(sent.answer) != "batch_conflict" || stop_requested()) {
      break;
    }
    // The conflict may be this batch as an earlier run signed it: offer
    // exactly those bytes. Anything else stays a conflict.
    sent = send_signed(batch, previous);
    *by_previous = true;
  }
  return sent;
}

bool Batcher::deliver_pending() {
  // Only the partition's lease holder sends its batches: a second sender
  // would be harmless (the analyzer deduplicates) but doubles the work.
  try {
    if (!hold_lease()) return true;
  } catch (const SpoolError& e) {
    delivery_failed(e.what());
    return false;
  }
  for (;;) {
    if (stop_requested()) return false;
    std::optional<server::Batch> batch;
    try {
      batch = spool_.oldest_unacknowledged(policy_.partition);
      note_quarantine();  // it may have set damaged rows of the batch aside
    } catch (const SpoolError& e) {
      delivery_failed(e.what());
      return false;
    }
    if (!batch) break;
    if (batch->id != oldest_id_ || metrics_.oldest_unacknowledged_since_ms < 0) {
      oldest_id_ = batch->id;
      metrics_.oldest_unacknowledged_since_ms = steady_ms(Clock::now());
    }
    const std::string id_hex = server::batch_id_hex(batch->id);
    // The thresholds this shuffler applies, signed with the batch so that an
    // analyzer with other settings refuses it (wire/batch_format.hpp).
    batch->thresholds = {static_cast<uint32_t>(policy_.threshold.threshold),
                         policy_.threshold.noise_sigma};
    bool by_previous = false;
    Sent sent = send_under_any_key(*batch, &by_previous);
    bool acknowledged = sent.status == 200;
    AckVerdict verdict;
    if (acknowledged) {
      verdict = check_ack(sent.answer, *batch, sent.digest, keys_.analyzer_verify_pk);
      acknowledged = verdict.matches;
      if (!acknowledged) metrics_.bad_acks.fetch_add(1);
      sent.detail = verdict.error;
    }
    if (!acknowledged) {
      // Cut short by stop(): not a fault of the analyzer's.
      if (stop_requested()) return false;
      std::string reason = by_previous ? "re-signed by an earlier signing key: " : "";
      reason += failure_reason(sent.status, sent.answer, sent.detail);
      if (is_threshold_mismatch(sent.status, sent.answer)) {
        metrics_.threshold_mismatches.fetch_add(1);
        delivery_failed(reason, FailureState::Kind::configuration);
      } else {
        delivery_failed(reason);
      }
      return false;
    }
    if (by_previous) metrics_.previous_key_acks.fetch_add(1);
    try {
      const std::size_t deleted = spool_.acknowledge(batch->id);
      metrics_.forwarded.fetch_add(deleted);
      metrics_.batches.fetch_add(1);
      common::service_log().info(
          "batch_forwarded",
          {{"batch_id", id_hex},
           {"records", deleted},
           {"signed_by", by_previous ? "previous_key" : "current_key"},
           {"applied", uint64_t{verdict.ack.applied}},
           {"quarantined", uint64_t{verdict.ack.quarantined}},
           {"refused", verdict.ack.accounted() - verdict.ack.applied - verdict.ack.quarantined}});
      note_backlog();
    } catch (const SpoolError& e) {
      delivery_failed(e.what());
      return false;
    }
    delivery_.succeeded();
    metrics_.delivery_failing = false;
    metrics_.delivery_misconfigured = false;
    metrics_.delivery_consecutive_failures = 0;
    metrics_.oldest_unacknowledged_since_ms = -1;  // the next batch's clock starts when tried
  }
  delivery_.succeeded();
  metrics_.delivery_failing = false;
  metrics_.delivery_misconfigured = false;
  metrics_.delivery_consecutive_failures = 0;
  metrics_.oldest_unacknowledged_since_ms = -1;
  return true;
}

BatcherStatus Batcher::status() const {
  BatcherStatus s;
  s.running = running_;
  s.closing = closing_.snapshot();
  s.delivery = delivery_.snapshot();
  s.unacknowledged_batches = metrics_.unacknowledged_batches;
  const int64_t since = metrics_.oldest_unacknowledged_since_ms;
  if (since >= 0) {
    s.oldest_unacknowledged_age = std::chrono::seconds((steady_ms(Clock::now()) - since) / 1000);
  }
  return s;
}

void Batcher::run() {
  const auto size = static_cast<int64_t>(policy_.batch_size);
  // On a shared store other processes ingest too: poll the partition's
  // count so a size trigger fires on their records, not on the timer only.
  const bool shared = poll_shared_count();
  auto next_poll = Clock::now() + kSharedPoll;
  // Recovery comes first: batches an earlier run assigned but never saw
  // acknowledged go out, under their old ids, before anything new closes.
  bool undelivered = true;
  auto next_delivery = Clock::now();
  auto next_close = Clock::now() + policy_.interval;
  auto close_not_before = Clock::time_point{};  // the pause after a failed close
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    auto now = Clock::now();
    if (shared && now >= next_poll) {
      lock.unlock();
      poll_shared_count();
      lock.lock();
      now = Clock::now();
      next_poll = now + kSharedPoll;
      if (stopping_) break;
    }
    const bool due_close = now >= close_not_before && (pending_ >= size || now >= next_close);
    const bool due_delivery = undelivered && now >= next_delivery;
    if (!due_close && !due_delivery) {
      auto wake = std::max(pending_ >= size ? now : next_close, close_not_before);
      if (undelivered) wake = std::min(wake, next_delivery);
      if (shared) wake = std::min(wake, next_poll);
      wake_.wait_until(lock, wake);
      continue;
    }
    lock.unlock();
    if (due_delivery) {
      undelivered = !deliver_pending();
      if (undelivered) next_delivery = Clock::now() + delivery_pause_;
    }
    if (due_close && !stop_requested()) {
      next_close = Clock::now() + policy_.interval;
      try {
        const ClosedBatch closed = close_batch();
        closing_.succeeded();
        metrics_.close_failing = false;
        // A new batch goes out now, unless delivery is pausing after a failure.
        if (closed.kept > 0 && !undelivered) {
          undelivered = true;
          next_delivery = Clock::now();
        }
      } catch (const std::exception& e) {
        metrics_.close_failures.fetch_add(1);
        metrics_.close_failing = true;
        close_not_before = Clock::now() + closing_.failed(e.what());
      }
    }
    lock.lock();
  }
}

}  // namespace p2b::shuffler
