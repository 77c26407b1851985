// p2b-relay's store (docs/pfcb-relay.md): postings in arrival order in
// SQLite (WAL, synchronous=FULL, secure_delete), so that a posting is
// acknowledged only once its commit is durable, and the replay guard: the
// highest release stored per sender, kept after its postings are deleted,
// so a posting that aged out cannot be replayed into the store again.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
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

  // Up to `limit` postings with seq > after, in seq order, leaving out those
  // of `exclude_fp` (null: none). `cursor` gets where the next fetch should
  // start: the last returned seq, or past every stored posting when fewer
  // than `limit` were left (so skipped own postings are not scanned again).
  std::vector<StoredPosting> list(uint64_t after, const uint8_t* exclude_fp, uint32_t limit,
                                  uint64_t* cursor);

  // Deletes the postings received before `cutoff_unix` and truncates the
  // WAL, so their pages are zeroed in the file and gone from the WAL.
  // Returns how many it deleted.
  uint64_t delete_before(uint64_t cutoff_unix);

  uint64_t count() const;
  // The replay guard's highest release for a sender, 0 if none.
  uint32_t last_release(const uint8_t* sender_fp);
  const common::StoreHealth& health() const { return db_->health(); }

 private:
  std::unique_ptr<common::Database> db_;
  std::size_t wire_size_ = 0;
};

}  // namespace p2b::pfcb
