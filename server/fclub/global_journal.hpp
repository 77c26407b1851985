// p2b-fclub-global's store (--store PATH): a journal of every input the
// global accepted, in the order it accepted them, committed before the 2xx
// answer. On start the service replays it through the very handlers that
// accepted the inputs (GlobalService::open_store), which rebuilds the
// GlobalServer's clusters, the phase clock, the seq and replay checks, the
// download queues and their versions exactly: the handlers are
// deterministic given their inputs (download seals differ, their contents
// and versions do not).
//
// Why a journal and not a snapshot of the state: the state is a dozen
// interlocking maps of floating-point sums, whose every change is caused by
// one of four small inputs; journalling the inputs cannot miss a field or
// drift from the code that changes them, and a kill -9 between two
// commits loses nothing that was answered. The cost is replay time and a
// file that grows with every upload (a snapshot at phase merges would
// bound both; not done yet).
//
// SQLite through the services' own layer (common/sqlite_db.hpp,
// store_open.hpp): WAL, synchronous=FULL, owner-only, one process per file,
// its own application_id. Every failure throws common::SqliteError (or
// common::StoreRefused when opening); the service turns that into an answer.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/sqlite_db.hpp"
#include "common/store_open.hpp"

namespace p2b::fclub {

// "P2FG". `journal` is this kind's table, should a file ever lack the id.
inline constexpr common::StoreKind kFclubGlobalStore{"fclub global store", 0x50324647, "journal",
                                                     false};

enum class JournalKind : int { upload = 1, phase_done = 2, advance = 3, downloads_ack = 4 };

// One accepted input. For an upload, its id (server, phase, local_cluster,
// seq) and its sealed bytes; a phase-done: server, phase, number = its
// count, body = its signature; an advance: phase = the phase it started;
// an ack: server, number = its version, body = its signature.
struct JournalEntry {
  JournalKind kind = JournalKind::upload;
  uint32_t server = 0;
  uint32_t phase = 0;
  uint32_t local_cluster = 0;
  uint64_t number = 0;
  std::string body;
};

class GlobalJournal {
 public:
  // Opens or creates the store at `path` (see store_open.hpp for its checks).
  explicit GlobalJournal(const std::string& path);
  // Appends one entry in its own committed transaction. An upload whose id
  // is already there is a constraint violation: it throws, so nothing is
  // ever journalled twice.
  void append(const JournalEntry& e);
  // Every entry, oldest first.
  void replay(const std::function<void(const JournalEntry&)>& each) const;
  uint64_t entries() const;

 private:
  std::unique_ptr<common::StoreLock> lock_;
  std::unique_ptr<common::Database> db_;
};

}  // namespace p2b::fclub
