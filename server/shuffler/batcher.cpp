#include "shuffler/batcher.hpp"

#include <sodium.h>

#include <algorithm>
#include <exception>
#include <string>
#include <utility>

#include "common/json_log.hpp"
#include "shuffler/ack_check.hpp"
#include "wire/batch_format.hpp"

namespace p2b::shuffler {

namespace {

using Clock = std::chrono::steady_clock;

server::BatchId random_batch_id() {
  server::BatchId id{};
  randombytes_buf(id.data(), id.size());
  return id;
}

}  // namespace

Batcher::Batcher(Spool& spool, AnalyzerSink& sink, Metrics& metrics, BatchingPolicy policy,
                 BatchKeys keys)
    : spool_(spool), sink_(sink), metrics_(metrics), policy_(policy), keys_(keys) {}

Batcher::~Batcher() {
  stop();
}

void Batcher::start() {
  pending_ = static_cast<int64_t>(spool_.unbatched());
  thread_ = std::thread([this] { run(); });
}

void Batcher::stop() {
  {
    const std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
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

ClosedBatch Batcher::close_batch() {
  const ThresholdPolicy threshold = policy_.threshold;
  const server::BatchId id = random_batch_id();
  const ClosedBatch closed = spool_.close_batch(id, policy_.partition, server::kMaxBatchRecords,
                                                [&](const std::vector<uint32_t>& crowds) {
                                                  return shuffle_and_threshold(crowds, threshold);
                                                });
  {
    const std::lock_guard<std::mutex> lock(mu_);
    pending_ -= static_cast<int64_t>(closed.taken);
  }
  metrics_.thresholded.fetch_add(closed.thresholded);
  if (closed.taken > 0) {
    common::service_log().info(
        "batch_closed", {{"batch_id", closed.kept > 0 ? server::batch_id_hex(id) : std::string()},
                         {"records", closed.taken},
                         {"kept", closed.kept},
                         {"thresholded", closed.thresholded}});
  }
  return closed;
}

bool Batcher::deliver_pending() {
  while (std::optional<server::Batch> batch = spool_.oldest_unacknowledged()) {
    const std::string id_hex = server::batch_id_hex(batch->id);
    // Ed25519 signatures are deterministic: a re-sent batch is the same
    // bytes, so the analyzer recognises it as the batch it applied.
    const std::vector<uint8_t> encoded = server::encode_signed_batch(*batch, keys_.sign_sk);
    const server::BatchDigest digest = server::batch_digest(encoded.data(), encoded.size());
    std::string answer, detail;
    const int status = sink_.deliver(encoded, &answer, &detail);
    bool acknowledged = status == 200;
    AckVerdict verdict;
    if (acknowledged) {
      verdict = check_ack(answer, *batch, digest, keys_.analyzer_verify_pk);
      acknowledged = verdict.matches;
      if (!acknowledged) metrics_.bad_acks.fetch_add(1);
      detail = verdict.error;
    }
    if (!acknowledged) {
      metrics_.forward_failures.fetch_add(1);
      common::service_log().warn("batch_delivery_failed", {{"batch_id", id_hex},
                                                           {"records", batch->records.size()},
                                                           {"status", status},
                                                           {"error", detail}});
      return false;
    }
    const std::size_t deleted = spool_.acknowledge(batch->id);
    metrics_.forwarded.fetch_add(deleted);
    metrics_.batches.fetch_add(1);
    common::service_log().info(
        "batch_forwarded",
        {{"batch_id", id_hex},
         {"records", deleted},
         {"applied", uint64_t{verdict.ack.applied}},
         {"quarantined", uint64_t{verdict.ack.quarantined}},
         {"refused", verdict.ack.accounted() - verdict.ack.applied - verdict.ack.quarantined}});
  }
  return true;
}

void Batcher::run() {
  auto backoff = policy_.min_retry;
  auto next_retry = Clock::now();
  bool undelivered = true;
  // One delivery round; on failure (or a spool error) the next waits for a
  // growing pause, so a down analyzer is not hammered.
  const auto attempt = [&](const auto& step) {
    try {
      step();
      return;
    } catch (const std::exception& e) {
      common::service_log().error("batcher_step_failed", {{"error", e.what()}});
      undelivered = true;
    }
    next_retry = Clock::now() + backoff;
    backoff = std::min(backoff * 2, policy_.max_retry);
  };
  const auto deliver = [&] {
    attempt([&] {
      undelivered = !deliver_pending();
      if (!undelivered) {
        backoff = policy_.min_retry;
      } else {
        next_retry = Clock::now() + backoff;
        backoff = std::min(backoff * 2, policy_.max_retry);
      }
    });
  };

  // Recovery comes first: batches an earlier run assigned but never saw
  // acknowledged go out, under their old ids, before anything new closes.
  deliver();
  auto next_close = Clock::now() + policy_.interval;
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    const auto now = Clock::now();
    const bool due_close =
        pending_ >= static_cast<int64_t>(policy_.batch_size) || now >= next_close;
    const bool due_retry = undelivered && now >= next_retry;
    if (!due_close && !due_retry) {
      wake_.wait_until(lock, undelivered ? std::min(next_close, next_retry) : next_close);
      continue;
    }
    lock.unlock();
    if (due_close) {
      next_close = Clock::now() + policy_.interval;
      attempt([&] {
        if (close_batch().kept > 0) undelivered = true;
      });
    }
    if (undelivered && Clock::now() >= next_retry) deliver();
    lock.lock();
  }
}

}  // namespace p2b::shuffler
