// POST /v1/reports without the HTTP: a body of concatenated envelopes is
// accepted or refused as a whole. Every envelope is opened before anything
// is stored, so a request with one bad envelope leaves no trace, and a
// client can simply retry a refused request after fixing it. Concurrent
// requests are stored in shared transactions (group_commit.hpp); each is
// answered only once its own records are durable.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "common/secret_keys.hpp"
#include "shuffler/disk_guard.hpp"
#include "shuffler/group_commit.hpp"
#include "shuffler/metrics.hpp"
#include "shuffler/spool.hpp"
#include "wire/envelope_open.hpp"

namespace p2b::shuffler {

// `json` is the body: the counts for a 202, else the shared error body
// (common/http_errors.hpp).
struct IntakeReply {
  int status = 0;
  std::string json;
};

class ReportIntake {
 public:
  // Opens the epoch of every key in `keys` (throws EpochRetired if one was
  // retired, SpoolError if the spool fails). `on_stored` is told how many new
  // records were committed (the batcher counts towards its size trigger with
  // it). While `disk` (if any) is low,
  // every request gets 507 before anything is opened.
  ReportIntake(common::BoxKeys keys, Spool& spool, Metrics& metrics, std::size_t max_body,
               std::function<void(std::size_t)> on_stored = {}, DiskGuard* disk = nullptr);
  ReportIntake(const ReportIntake&) = delete;
  ReportIntake& operator=(const ReportIntake&) = delete;

  IntakeReply handle(const std::string& body);

  // The reply for a body refused before it was read (httplib's own 413).
  IntakeReply refuse_too_large();

 private:
  IntakeReply refuse(Rejection why);

  common::BoxKeys keys_;  // wiped when the intake goes
  Metrics& metrics_;
  GroupCommit commits_;  // concurrent requests share a transaction
  std::size_t max_body_;
  std::function<void(std::size_t)> on_stored_;
  DiskGuard* disk_;
  const common::StoreHealth* store_health_;  // the spool's, if it keeps one
  Spool& spool_;                             // for partition_of
};

}  // namespace p2b::shuffler
