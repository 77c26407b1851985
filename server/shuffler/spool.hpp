// The shuffler's storage, behind an interface so that another backend (for
// example PostgreSQL) can be added without touching the protocol code. The
// protocol decides what to shuffle, drop and send; a backend only promises
// that each call is one atomic, durable transaction.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/store_health.hpp"
#include "wire/batch_format.hpp"

namespace p2b::shuffler {

// BLAKE2b-256 of a whole envelope: what outer replays are recognised by.
using EnvelopeDigest = std::array<uint8_t, 32>;

// What the shuffler keeps of a report. There is deliberately no room for
// sender metadata (address, headers, arrival time).
struct SpoolRecord {
  EnvelopeDigest digest{};
  // BLAKE2b-256 of the inner ciphertext alone: the same inner re-sealed in a
  // fresh outer layer is a replay too. Kept apart from the outer digests.
  server::InnerDigest inner_digest{};
  uint32_t crowd_id = 0;
  server::InnerCiphertext inner{};
};

struct InsertCounts {
  std::size_t accepted = 0;
  std::size_t duplicates = 0;        // the envelope itself was seen
  std::size_t inner_duplicates = 0;  // a new envelope around an inner that was seen
};

// Given the crowd ids of the records taken for a batch, returns the indices
// of the records to keep, in the order they must be sent; every other
// record is deleted.
using BatchSelector = std::function<std::vector<std::size_t>(const std::vector<uint32_t>&)>;

struct ClosedBatch {
  std::size_t taken = 0;        // unbatched records the batch started from
  std::size_t kept = 0;         // records assigned to the batch
  std::size_t thresholded = 0;  // records deleted by the selector
};

class SpoolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Spool {
 public:
  virtual ~Spool() = default;
  Spool() = default;
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;

  // One transaction: a record whose digest or inner digest was ever seen
  // before (even in an earlier request whose batch is long gone, or earlier
  // in `records`) counts as a duplicate; the others are stored. Committed durably before
  // it returns; on error nothing is stored.
  virtual InsertCounts insert(const std::vector<SpoolRecord>& records) = 0;

  // Several requests' records in one transaction, as if each had been
  // insert()ed in turn (a record seen in an earlier request of the group is
  // a duplicate in the later one); the counts of each request, in order.
  // Committed durably before it returns; on error nothing of any request is
  // stored. GroupCommit coalesces concurrent requests with it.
  virtual std::vector<InsertCounts> insert_all(
      const std::vector<const std::vector<SpoolRecord>*>& requests) = 0;

  // One transaction: takes up to `max_records` unbatched records, lets
  // `select` choose and order the survivors, deletes the rest and assigns
  // the survivors to batch `id` (of `partition`) at positions 0..kept-1. No
  // batch is created when nothing survives.
  virtual ClosedBatch close_batch(const server::BatchId& id, uint32_t partition,
                                  std::size_t max_records, const BatchSelector& select) = 0;

  // The oldest batch that was assigned but not acknowledged, records (crowd
  // id and inner) in their assigned order, with the partition it closed in:
  // a re-sent batch is the same batch, byte for byte.
  virtual std::optional<server::Batch> oldest_unacknowledged() = 0;

  // Deletes the batch and its records; returns how many records went.
  virtual std::size_t acknowledge(const server::BatchId& id) = 0;

  // Records stored, batched or not.
  virtual std::size_t depth() = 0;
  virtual std::size_t unbatched() = 0;
  // Batches closed and not yet acknowledged.
  virtual std::size_t unacknowledged_batches() = 0;

  // The backend's storage health (common/store_health.hpp), if it keeps one.
  virtual const common::StoreHealth* health() const { return nullptr; }
};

}  // namespace p2b::shuffler
