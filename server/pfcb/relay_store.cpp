#include "pfcb/relay_store.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cstring>
#include <utility>

namespace p2b::pfcb {

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  producers INTEGER NOT NULL,
  consortium_fp BLOB NOT NULL
);
-- AUTOINCREMENT: a sequence number is never reused, even after retention
-- deleted the newest rows, so an agent's cursor never skips a posting.
CREATE TABLE IF NOT EXISTS postings (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  sender_fp BLOB NOT NULL,
  release INTEGER NOT NULL,
  received_unix INTEGER NOT NULL,
  bytes BLOB NOT NULL,
  UNIQUE (sender_fp, release)
);
CREATE INDEX IF NOT EXISTS postings_received ON postings (received_unix);
CREATE TABLE IF NOT EXISTS senders (
  sender_fp BLOB PRIMARY KEY,
  last_release INTEGER NOT NULL
);
)sql";

template <typename F>
auto guarded(F&& f) -> decltype(f()) {
  return common::translate_errors<StoreError>("relay store: ", std::forward<F>(f));
}

}  // namespace

RelayStore::RelayStore(const std::string& path, uint32_t m, const uint8_t* consortium_fp) {
  wire_size_ = posting_wire_size(m);
  if (wire_size_ == 0 || consortium_fp == nullptr) throw StoreError("relay store: bad deployment");
  guarded([&] {
    db_ = std::make_unique<common::Database>(path);
    // Deleted postings are overwritten in place, not left in free pages.
    db_->exec("PRAGMA secure_delete=ON");
    db_->exec(kSchema);
    common::Transaction tx(*db_);
    common::Statement q(*db_, "SELECT producers, consortium_fp FROM meta WHERE id = 1");
    if (q.step()) {
      const std::vector<uint8_t> fp = q.column_blob(1);
      if (q.column_int(0) != m || fp.size() != kFpBytes ||
          std::memcmp(fp.data(), consortium_fp, kFpBytes) != 0) {
        throw StoreError("relay store: " + path +
                         " belongs to another deployment (m or consortium differ)");
      }
    } else {
      common::Statement ins(*db_,
                            "INSERT INTO meta (id, producers, consortium_fp) VALUES (1, ?, ?)");
      ins.bind_int(1, m);
      ins.bind_blob(2, consortium_fp, kFpBytes);
      ins.run();
    }
    tx.commit();
    return 0;
  });
  db_->arm_health_log();
}

RelayStore::Insert RelayStore::insert(const uint8_t* sender_fp, uint32_t release,
                                      uint64_t received_unix, const std::vector<uint8_t>& bytes,
                                      uint64_t* seq) {
  if (bytes.size() != wire_size_) throw StoreError("relay store: a posting of the wrong length");
  return guarded([&] {
    common::Transaction tx(*db_);
    common::Statement last(*db_, "SELECT last_release FROM senders WHERE sender_fp = ?");
    last.bind_blob(1, sender_fp, kFpBytes);
    if (last.step() && static_cast<uint64_t>(last.column_int(0)) >= release) {
      return Insert::replay;  // the transaction rolls back: nothing written
    }
    common::Statement ins(*db_,
                          "INSERT INTO postings (sender_fp, release, received_unix, bytes) "
                          "VALUES (?, ?, ?, ?)");
    ins.bind_blob(1, sender_fp, kFpBytes);
    ins.bind_int(2, release);
    ins.bind_int(3, static_cast<int64_t>(received_unix));
    ins.bind_blob(4, bytes.data(), bytes.size());
    if (!ins.run_unless_constraint()) return Insert::replay;
    const auto id = static_cast<uint64_t>(sqlite3_last_insert_rowid(db_->handle()));
    common::Statement up(
        *db_,
        "INSERT INTO senders (sender_fp, last_release) VALUES (?, ?) "
        "ON CONFLICT (sender_fp) DO UPDATE SET last_release = excluded.last_release");
    up.bind_blob(1, sender_fp, kFpBytes);
    up.bind_int(2, release);
    up.run();
    tx.commit();
    *seq = id;
    return Insert::stored;
  });
}

std::vector<StoredPosting> RelayStore::list(uint64_t after, const uint8_t* exclude_fp,
                                            uint32_t limit, uint64_t* cursor) {
  return guarded([&] {
    std::vector<StoredPosting> out;
    // Cursors above INT64_MAX match nothing (SQLite integers are signed).
    const int64_t from =
        after > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(after);
    common::Transaction tx(*db_);  // one snapshot for the rows and the cursor
    common::Statement q(*db_,
                        exclude_fp != nullptr
                            ? "SELECT seq, bytes FROM postings WHERE seq > ? AND sender_fp != ? "
                              "ORDER BY seq LIMIT ?"
                            : "SELECT seq, bytes FROM postings WHERE seq > ? ORDER BY seq LIMIT ?");
    int at = 1;
    q.bind_int(at++, from);
    if (exclude_fp != nullptr) q.bind_blob(at++, exclude_fp, kFpBytes);
    q.bind_int(at, limit);
    while (q.step()) {
      StoredPosting p;
      p.seq = static_cast<uint64_t>(q.column_int(0));
      p.bytes = q.column_blob(1);
      if (p.bytes.size() != wire_size_) db_->fail_damaged("relay store: a stored posting's length");
      out.push_back(std::move(p));
    }
    uint64_t next = out.empty() ? after : out.back().seq;
    if (out.size() < limit) {
      common::Statement top(*db_, "SELECT COALESCE(MAX(seq), 0) FROM postings");
      if (top.step()) next = std::max(next, static_cast<uint64_t>(top.column_int(0)));
    }
    tx.commit();
    *cursor = next;
    return out;
  });
}

uint64_t RelayStore::delete_before(uint64_t cutoff_unix) {
  return guarded([&] {
    uint64_t n = 0;
    {
      common::Transaction tx(*db_);
      common::Statement del(*db_, "DELETE FROM postings WHERE received_unix < ?");
      del.bind_int(1, static_cast<int64_t>(cutoff_unix));
      del.run();
      n = static_cast<uint64_t>(db_->changes());
      tx.commit();
    }
    if (n > 0) db_->checkpoint_truncate();  // busy: the next sweep tries again
    return n;
  });
}

uint64_t RelayStore::count() const {
  return guarded([&] {
    common::Statement q(*db_, "SELECT COUNT(*) FROM postings");
    return q.step() ? static_cast<uint64_t>(q.column_int(0)) : uint64_t{0};
  });
}

uint32_t RelayStore::last_release(const uint8_t* sender_fp) {
  return guarded([&] {
    common::Statement q(*db_, "SELECT last_release FROM senders WHERE sender_fp = ?");
    q.bind_blob(1, sender_fp, kFpBytes);
    return q.step() ? static_cast<uint32_t>(q.column_int(0)) : 0U;
  });
}

}  // namespace p2b::pfcb
