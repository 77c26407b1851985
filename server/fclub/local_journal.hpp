// p2b-fclub-local's store (--store PATH): a journal of every input that
// changed the local's state, in the order it changed it, committed before
// the 2xx answer (a reward) or before the global is told (a download is
// durable before its ack). On start LocalService::open_store replays it
// through the very handlers that took the inputs; they are deterministic
// given their inputs (the CDP noise is regenerated from fclub.noise.sk,
// never drawn), so the users' and clusters' statistics, the CDP ledger, the
// phase, the applied download version and the outbox come back exactly.
// The same approach as the global's (global_journal.hpp): inputs, not a
// snapshot, so no field can be forgotten.
//
// Unlike the global's, the local's inputs are its users' raw interactions:
// every entry is sealed (XChaCha20-Poly1305) under a key derived from the
// local's box secret key, with the entry's position as associated data. The
// store therefore holds nothing the key directory does not already unlock,
// and an entry edited, moved or deleted from the middle (the CDP-ledger
// reset attack) stops the start. A file cut back to an older length, or an
// older copy restored, cannot be told from a genuine one: that is the
// operator's to prevent (docs/fclub-services.md, "Durability").
//
// SQLite through the services' own layer (common/sqlite_db.hpp,
// store_open.hpp): WAL, synchronous=FULL, owner-only, one process per file.
// Every failure throws common::SqliteError (or common::StoreRefused when
// opening); the service turns that into an answer.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/sqlite_db.hpp"
#include "common/store_open.hpp"

namespace p2b::fclub {

// "P2FL". `local_journal` is this kind's table, distinct from the global's.
inline constexpr common::StoreKind kFclubLocalStore{"fclub local store", 0x5032464C,
                                                    "local_journal", false};

// A reward: number unused, body = user (4 bytes LE), y, then x (doubles).
// A phase start: number = the phase. A download: number = its version, body
// = its sealed P2BD bytes as the global sent them. An outbox message sent:
// number = the HTTP status, body = its id (outbox_id below).
enum class LocalEntryKind : uint8_t { reward = 1, phase = 2, download = 3, sent = 4 };

struct LocalEntry {
  LocalEntryKind kind = LocalEntryKind::reward;
  uint64_t number = 0;
  std::string body;
};

using StoreKey = std::array<uint8_t, 32>;

// The key that seals the local's journal: a keyed hash of the box secret
// key under its own label, so it is never the key itself.
StoreKey derive_store_key(const uint8_t box_sk[32]);

class LocalJournal {
 public:
  // Opens or creates the store at `path` (see store_open.hpp for its checks).
  LocalJournal(const std::string& path, const StoreKey& key);
  ~LocalJournal();
  LocalJournal(const LocalJournal&) = delete;
  LocalJournal& operator=(const LocalJournal&) = delete;

  // Appends the entries in one committed transaction: all or none.
  void append(const std::vector<LocalEntry>& batch);
  // Every entry, oldest first. An entry that fails its seal, or a gap in
  // the positions, is damage: it throws (fail_damaged) before `each` sees
  // anything after it.
  void replay(const std::function<void(const LocalEntry&)>& each) const;
  uint64_t entries() const { return next_ - 1; }

 private:
  std::unique_ptr<common::StoreLock> lock_;
  std::unique_ptr<common::Database> db_;
  StoreKey key_{};
  uint64_t next_ = 1;  // the position the next entry takes
};

}  // namespace p2b::fclub
