// The shuffler's storage, behind an interface with two backends: SQLite (one
// process, the embedded default) and PostgreSQL (any number of ingest and
// batching processes around one database). The protocol decides what to
// shuffle, drop and send; a backend only promises that each call is one
// atomic, durable transaction.
//
// Three ideas make a shared backend safe (docs/scaling.md):
// - partitions: a crowd lives in exactly one partition (partition_of), so a
//   batch closed from one partition counts every report of its crowds;
// - leases: one batcher per partition at a time, and close_batch is fenced by
//   the lease's token, so a paused batcher that lost its lease cannot commit;
// - epochs: replay state is kept per outer key (its fingerprint); retiring a
//   key drops that state, and from then on its envelopes are refused.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/quarantine_command.hpp"
#include "common/store_health.hpp"
#include "p2b/crypto.hpp"
#include "wire/batch_format.hpp"

namespace p2b::shuffler {

// BLAKE2b-256 of a whole envelope: what outer replays are recognised by.
using EnvelopeDigest = std::array<uint8_t, 32>;

// The fingerprint of the shuffler box key an envelope was sealed to: its
// epoch. Replay state lives and dies with it.
using EpochId = std::array<uint8_t, kFingerprintBytes>;

// What the shuffler keeps of a report. There is deliberately no room for
// sender metadata (address, headers, arrival time).
struct SpoolRecord {
  EnvelopeDigest digest{};
  // BLAKE2b-256 of the inner ciphertext alone: the same inner re-sealed in a
  // fresh outer layer is a replay too. Kept apart from the outer digests.
  server::InnerDigest inner_digest{};
  uint32_t crowd_id = 0;
  server::InnerCiphertext inner{};
  EpochId epoch{};         // the outer key's fingerprint
  uint32_t partition = 0;  // Spool::partition_of(crowd_id)
};

struct InsertCounts {
  std::size_t accepted = 0;
  std::size_t duplicates = 0;        // the envelope itself was seen
  std::size_t inner_duplicates = 0;  // a new envelope around an inner that was seen
  // Records sealed to a retired epoch. A request with any stores nothing
  // (its other counts are 0): it is refused whole, like a bad envelope.
  std::size_t retired = 0;
};

// The right to close batches of one partition for the lease's time to live.
// The token grows with every new holder; a store refuses a close whose token is not the
// partition's current one or whose lease ran out (LeaseLost).
struct Lease {
  uint32_t partition = 0;
  uint64_t token = 0;
};

// Given the crowd ids of the records taken for a batch, returns the indices
// of the records to keep, in the order they must be sent; every other
// record is deleted.
using BatchSelector = std::function<std::vector<std::size_t>(const std::vector<uint32_t>&)>;

struct ClosedBatch {
  std::size_t taken = 0;        // unbatched records the batch started from
  std::size_t kept = 0;         // records assigned to the batch
  std::size_t thresholded = 0;  // records deleted by the selector
  // Records whose row failed its checksum (row_checksum.hpp): set aside in
  // the quarantine, neither counted by the selector nor sent.
  std::size_t damaged = 0;
};

// The reason a row is set aside when its checksum no longer matches.
inline constexpr const char* kDamagedInSpool = "damaged_in_spool";

// A record the shuffler set aside instead of sending. Its contents are not
// kept: a damaged row's bytes are not what was accepted, so there is
// nothing to send again, and keeping them would only keep report data.
struct QuarantineEntry {
  int64_t id = 0;      // the quarantine's own number, for the log and purge
  std::string origin;  // where the row was: "unbatched" or "batch HEX position N"
  std::string reason;  // kDamagedInSpool
  int64_t quarantined_unix = 0;
};

// Which entries purge_quarantine deletes: every one that matches both.
using QuarantineFilter = common::QuarantineFilter;

class SpoolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// close_batch under a lease that is no longer held: nothing changed.
class LeaseLost : public SpoolError {
 public:
  using SpoolError::SpoolError;
};

// open_epoch of a retired key: a service must not start with it.
class EpochRetired : public SpoolError {
 public:
  using SpoolError::SpoolError;
};

class Spool {
 public:
  virtual ~Spool() = default;
  Spool() = default;
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;

  // One transaction: a record whose digest or inner digest was seen before in
  // its epoch (even in an earlier request whose batch is long gone, or earlier
  // in `records`) counts as a duplicate; the others are stored. A request
  // with a record of a retired epoch stores nothing (InsertCounts::retired).
  // Every epoch must have been opened. Committed durably before it returns;
  // on error nothing is stored.
  virtual InsertCounts insert(const std::vector<SpoolRecord>& records) = 0;

  // Several requests' records in one transaction, as if each had been
  // insert()ed in turn (a record seen in an earlier request of the group is
  // a duplicate in the later one); the counts of each request, in order.
  // Committed durably before it returns; on error nothing of any request is
  // stored. GroupCommit coalesces concurrent requests with it.
  virtual std::vector<InsertCounts> insert_all(
      const std::vector<const std::vector<SpoolRecord>*>& requests) = 0;

  // The partitions this store has, and the one a crowd lives in. Every
  // process on one store computes the same answer.
  virtual std::vector<uint32_t> partitions() const = 0;
  virtual uint32_t partition_of(uint32_t crowd_id) const = 0;

  // Takes the partition's lease for `ttl` if it is free or expired (a new,
  // larger token) or renews it if `holder` has it (same token); nullopt if
  // another holder's lease is live.
  virtual std::optional<Lease> acquire_lease(uint32_t partition, const std::string& holder,
                                             std::chrono::milliseconds ttl) = 0;
  // Gives the lease up (a clean stop), if it is still this one.
  virtual void release_lease(const Lease& lease) = 0;

  // Makes the epoch known (at start, for each key held); throws EpochRetired
  // if it was retired.
  virtual void open_epoch(const EpochId& epoch) = 0;
  // Drops the epoch's replay state and refuses its envelopes from now on.
  // Records already stored stay: they were acknowledged. Returns how many
  // replay entries went.
  virtual std::size_t retire_epoch(const EpochId& epoch) = 0;
  virtual bool epoch_retired(const EpochId& epoch) = 0;

  // One fenced transaction: throws LeaseLost (nothing changes) unless `lease`
  // is still the partition's; takes up to `max_records` of the partition's
  // unbatched records, lets `select` choose and order the survivors, deletes
  // the rest and assigns the survivors to batch `id` (of lease.partition) at
  // positions 0..kept-1. No batch is created when nothing survives.
  virtual ClosedBatch close_batch(const server::BatchId& id, const Lease& lease,
                                  std::size_t max_records, const BatchSelector& select) = 0;

  // The partition's oldest batch that was assigned but not acknowledged,
  // records (crowd id and inner) in their assigned order: a re-sent batch is
  // the same batch, byte for byte.
  virtual std::optional<server::Batch> oldest_unacknowledged(uint32_t partition) = 0;

  // Deletes the batch and its records; returns how many records went.
  virtual std::size_t acknowledge(const server::BatchId& id) = 0;

  // Records stored, batched or not.
  virtual std::size_t depth() = 0;
  virtual std::size_t unbatched() = 0;
  // A partition's unbatched records, for a store other processes insert
  // into (their inserts never reach this process's batcher as
  // notify_stored); nullopt where every insert is local (SQLite), so the
  // batcher counts notifications instead of polling.
  virtual std::optional<std::size_t> shared_unbatched(uint32_t /*partition*/) {
    return std::nullopt;
  }
  // Batches closed and not yet acknowledged.
  virtual std::size_t unacknowledged_batches() = 0;

  // The records set aside (QuarantineEntry), oldest first; and how many.
  // A backend without a quarantine has none.
  virtual std::vector<QuarantineEntry> quarantined() { return {}; }
  virtual std::size_t quarantine_size() { return 0; }
  // Deletes the entries that match; returns how many went.
  virtual std::size_t purge_quarantine(const QuarantineFilter& /*filter*/) { return 0; }
  // Whether this backend checks row checksums and keeps a quarantine.
  virtual bool has_quarantine() const { return false; }

  // The backend's storage health (common/store_health.hpp), if it keeps one.
  virtual const common::StoreHealth* health() const { return nullptr; }
};

}  // namespace p2b::shuffler
