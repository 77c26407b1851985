// p2b-relay's store (docs/pfcb-relay.md): postings in arrival order in
// SQLite (WAL, synchronous=FULL, secure_delete), so that a posting is
// acknowledged only once its commit is durable, and the replay guard: the
// highest release stored per sender, kept after its postings are deleted,
// so a posting that aged out cannot be replayed into the store again.
//
// Integrity: each row carries a BLAKE2b-128 checksum over its seq, sender,
// release, arrival time and bytes, checked on every read. A row that fails
// moves to the quarantine table with its reason and is never served; the
// page checks SQLite runs cannot see a row whose bytes changed. Unkeyed on
// purpose: whoever can write the file can delete rows anyway, and can gain
// no more by rewriting one, since agents verify each posting's signature;
// what the checksum must catch is damage, and name it as such.
//
// Signed reads (read_auth.hpp): the highest read time accepted per reader,
// updated in the read's own transaction, so a replayed read is refused even
// after a restart.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/sqlite_db.hpp"
#include "pfcb/wire/pfcb_wire.hpp"

namespace p2b::pfcb {

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct StoredPosting {
  uint64_t seq = 0;  // the store's sequence number: the fetch cursor
  std::vector<uint8_t> bytes;
};

// A row a read moved to the quarantine table, and why.
struct QuarantinedRow {
  uint64_t seq = 0;
  std::string reason;  // checksum_mismatch, or wrong_length (the sum held)
};

struct QuarantineSummary {
  uint64_t rows = 0;
  std::vector<std::pair<std::string, uint64_t>> by_reason;
  std::vector<uint64_t> first_seqs;  // the lowest few, to name them
};

// Who reads, and when (read_auth.hpp): the store refuses a time not above
// the last it accepted from this reader.
struct ReadStamp {
  const uint8_t* reader_fp = nullptr;
  uint64_t time_us = 0;
};

class RelayStore {
 public:
  // Opens or creates the store at `path` for a deployment of m producers and
  // the consortium `consortium_fp`; a store made for another deployment is
  // refused (StoreError), so postings of two consortia never mix.
  RelayStore(const std::string& path, uint32_t m, const uint8_t* consortium_fp);

  enum class Insert { stored, replay };
  // Stores `bytes` (already verified) unless its sender has stored this or a
  // later release. Returns once the commit is durable. `seq` gets the new
  // sequence number when stored.
  Insert insert(const uint8_t* sender_fp, uint32_t release, uint64_t received_unix,
                const std::vector<uint8_t>& bytes, uint64_t* seq);

  enum class Read { served, replay };
  // For the reader of `stamp`: replay (nothing read, nothing written) unless
  // its time is above the last accepted from it. Then, in one transaction
  // with the new time: up to `limit` rows with seq > after, in seq order,
  // leaving out those of `exclude_fp` (null: none). Rows that fail their
  // checksum or length go to the quarantine (listed in `damaged`); the rest
  // are in `out`. `cursor` gets where the next fetch should start: the last
  // row looked at, or past every stored posting when fewer than `limit`
  // were left (so skipped own postings are not scanned again).
  Read list(const ReadStamp& stamp, uint64_t after, const uint8_t* exclude_fp, uint32_t limit,
            uint64_t now_unix, std::vector<StoredPosting>* out, uint64_t* cursor,
            std::vector<QuarantinedRow>* damaged);

  // Deletes the postings received before `cutoff_unix`, and the quarantined
  // rows quarantined before it, and truncates the WAL, so their pages are
  // zeroed in the file and gone from the WAL. Returns how many postings it
  // deleted (quarantined rows not counted).
  uint64_t delete_before(uint64_t cutoff_unix);

  uint64_t count() const;
  QuarantineSummary quarantine() const;
  // The replay guard's highest release for a sender, 0 if none.
  uint32_t last_release(const uint8_t* sender_fp);
  const common::StoreHealth& health() const { return db_->health(); }

 private:
  std::unique_ptr<common::Database> db_;
  std::size_t wire_size_ = 0;
};

}  // namespace p2b::pfcb
