#include "pfcb/relay_store.hpp"

#include <sodium.h>
#include <sqlite3.h>

#include <algorithm>
#include <array>
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
  -- row_checksum() of the other columns; NULL only in a store made before
  -- the column existed, until the open fills it in.
  checksum BLOB,
  UNIQUE (sender_fp, release)
);
CREATE INDEX IF NOT EXISTS postings_received ON postings (received_unix);
CREATE TABLE IF NOT EXISTS senders (
  sender_fp BLOB PRIMARY KEY,
  last_release INTEGER NOT NULL
);
-- Signed reads: the highest read time (unix microseconds) accepted per reader.
CREATE TABLE IF NOT EXISTS readers (
  reader_fp BLOB PRIMARY KEY,
  last_read_us INTEGER NOT NULL
);
-- Rows that failed their check on read, as they were, never served.
CREATE TABLE IF NOT EXISTS quarantine (
  seq INTEGER PRIMARY KEY,
  reason TEXT NOT NULL,
  quarantined_unix INTEGER NOT NULL,
  sender_fp BLOB,
  release INTEGER,
  received_unix INTEGER,
  bytes BLOB,
  checksum BLOB
);
)sql";

constexpr char kRowLabel[] = "p2b relay row v1";
constexpr std::size_t kChecksumBytes = 16;   // BLAKE2b-128
constexpr std::size_t kQuarantineNamed = 5;  // seqs a readiness detail names

void hash_u64(crypto_generichash_state* st, uint64_t v) {
  uint8_t b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
  crypto_generichash_update(st, b, sizeof b);
}

// BLAKE2b-128 over a label and every column but itself, lengths included
// where they vary, so that no change of one column can be made up by
// another.
std::array<uint8_t, kChecksumBytes> row_checksum(uint64_t seq, const std::vector<uint8_t>& sender,
                                                 uint64_t release, uint64_t received_unix,
                                                 const std::vector<uint8_t>& bytes) {
  crypto_generichash_state st;
  crypto_generichash_init(&st, nullptr, 0, kChecksumBytes);
  crypto_generichash_update(&st, reinterpret_cast<const uint8_t*>(kRowLabel), sizeof kRowLabel - 1);
  hash_u64(&st, seq);
  hash_u64(&st, sender.size());
  crypto_generichash_update(&st, sender.data(), sender.size());
  hash_u64(&st, release);
  hash_u64(&st, received_unix);
  hash_u64(&st, bytes.size());
  crypto_generichash_update(&st, bytes.data(), bytes.size());
  std::array<uint8_t, kChecksumBytes> out{};
  crypto_generichash_final(&st, out.data(), out.size());
  return out;
}

void set_checksum(common::Database& db, uint64_t seq,
                  const std::array<uint8_t, kChecksumBytes>& sum) {
  common::Statement up(db, "UPDATE postings SET checksum = ? WHERE seq = ?");
  up.bind_blob(1, sum.data(), sum.size());
  up.bind_int(2, static_cast<int64_t>(seq));
  up.run();
}

// A store made before the checksum column: add it, and fill in the rows
// that have none (they are taken as they are now: the start of the check).
void add_checksums(common::Database& db) {
  bool has_column = false;
  {
    common::Statement cols(db, "SELECT name FROM pragma_table_info('postings')");
    while (cols.step()) has_column = has_column || cols.column_text(0) == "checksum";
  }
  if (!has_column) db.exec("ALTER TABLE postings ADD COLUMN checksum BLOB");
  common::Statement rows(db,
                         "SELECT seq, sender_fp, release, received_unix, bytes FROM postings "
                         "WHERE checksum IS NULL");
  std::vector<std::pair<uint64_t, std::array<uint8_t, kChecksumBytes>>> sums;
  while (rows.step()) {
    const auto seq = static_cast<uint64_t>(rows.column_int(0));
    sums.emplace_back(
        seq, row_checksum(seq, rows.column_blob(1), static_cast<uint64_t>(rows.column_int(2)),
                          static_cast<uint64_t>(rows.column_int(3)), rows.column_blob(4)));
  }
  for (const auto& [seq, sum] : sums) set_checksum(db, seq, sum);
}

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
    add_checksums(*db_);
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
    // The seq is known only now; the checksum lands in the same commit.
    set_checksum(*db_, id,
                 row_checksum(id, std::vector<uint8_t>(sender_fp, sender_fp + kFpBytes), release,
                              received_unix, bytes));
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

RelayStore::Read RelayStore::list(const ReadStamp& stamp, uint64_t after, const uint8_t* exclude_fp,
                                  uint32_t limit, uint64_t now_unix,
                                  std::vector<StoredPosting>* out, uint64_t* cursor,
                                  std::vector<QuarantinedRow>* damaged) {
  if (stamp.reader_fp == nullptr || stamp.time_us > static_cast<uint64_t>(INT64_MAX)) {
    return Read::replay;  // no reader, or a time SQLite cannot hold (outside any window)
  }
  return guarded([&] {
    std::vector<StoredPosting> got;
    std::vector<QuarantinedRow> bad;
    // One write transaction: the replay check, the new read time, the rows
    // and the cursor, and any quarantine move, all or nothing.
    common::Transaction tx(*db_);
    {
      common::Statement last(*db_, "SELECT last_read_us FROM readers WHERE reader_fp = ?");
      last.bind_blob(1, stamp.reader_fp, kFpBytes);
      if (last.step() && static_cast<uint64_t>(last.column_int(0)) >= stamp.time_us) {
        return Read::replay;  // the transaction rolls back: nothing written
      }
      common::Statement up(
          *db_,
          "INSERT INTO readers (reader_fp, last_read_us) VALUES (?, ?) "
          "ON CONFLICT (reader_fp) DO UPDATE SET last_read_us = excluded.last_read_us");
      up.bind_blob(1, stamp.reader_fp, kFpBytes);
      up.bind_int(2, static_cast<int64_t>(stamp.time_us));
      up.run();
    }
    // Rounds until `limit` good rows or the end: a damaged row is skipped,
    // not counted, so a short answer still means the reader caught up.
    uint64_t last_seq = after;
    bool at_end = false;
    while (got.size() < limit && !at_end) {
      const auto need = static_cast<uint32_t>(limit - got.size());
      const std::size_t bad_before = bad.size();
      uint32_t looked = 0;
      {
        common::Statement q(*db_,
                            exclude_fp != nullptr
                                ? "SELECT seq, sender_fp, release, received_unix, bytes, "
                                  "checksum FROM postings WHERE seq > ? AND sender_fp != ? "
                                  "ORDER BY seq LIMIT ?"
                                : "SELECT seq, sender_fp, release, received_unix, bytes, "
                                  "checksum FROM postings WHERE seq > ? ORDER BY seq LIMIT ?");
        int at = 1;
        // Cursors above INT64_MAX match nothing (SQLite integers are signed).
        q.bind_int(at++, last_seq > static_cast<uint64_t>(INT64_MAX)
                             ? INT64_MAX
                             : static_cast<int64_t>(last_seq));
        if (exclude_fp != nullptr) q.bind_blob(at++, exclude_fp, kFpBytes);
        q.bind_int(at, need);
        while (q.step()) {
          ++looked;
          StoredPosting p;
          p.seq = static_cast<uint64_t>(q.column_int(0));
          last_seq = p.seq;
          p.bytes = q.column_blob(4);
          const auto sum =
              row_checksum(p.seq, q.column_blob(1), static_cast<uint64_t>(q.column_int(2)),
                           static_cast<uint64_t>(q.column_int(3)), p.bytes);
          const std::vector<uint8_t> stored = q.column_blob(5);
          if (stored.size() != sum.size() ||
              sodium_memcmp(stored.data(), sum.data(), sum.size()) != 0) {
            bad.push_back({p.seq, "checksum_mismatch"});
          } else if (p.bytes.size() != wire_size_) {
            bad.push_back({p.seq, "wrong_length"});  // stored so: another build's bug
          } else {
            got.push_back(std::move(p));
          }
        }
      }
      at_end = looked < need;
      // Moved once the SELECT is done with the table.
      for (std::size_t i = bad_before; i < bad.size(); ++i) {
        common::Statement move(*db_,
                               "INSERT OR REPLACE INTO quarantine (seq, reason, quarantined_unix, "
                               "sender_fp, release, received_unix, bytes, checksum) "
                               "SELECT seq, ?, ?, sender_fp, release, received_unix, bytes, "
                               "checksum FROM postings WHERE seq = ?");
        move.bind_text(1, bad[i].reason);
        move.bind_int(2, static_cast<int64_t>(now_unix));
        move.bind_int(3, static_cast<int64_t>(bad[i].seq));
        move.run();
        common::Statement del(*db_, "DELETE FROM postings WHERE seq = ?");
        del.bind_int(1, static_cast<int64_t>(bad[i].seq));
        del.run();
      }
    }
    uint64_t next = last_seq;
    if (at_end) {
      common::Statement top(*db_, "SELECT COALESCE(MAX(seq), 0) FROM postings");
      if (top.step()) next = std::max(next, static_cast<uint64_t>(top.column_int(0)));
    }
    tx.commit();
    *out = std::move(got);
    *damaged = std::move(bad);
    *cursor = next;
    return Read::served;
  });
}

uint64_t RelayStore::delete_before(uint64_t cutoff_unix) {
  return guarded([&] {
    uint64_t n = 0;
    bool quarantine_gone = false;
    {
      common::Transaction tx(*db_);
      common::Statement del(*db_, "DELETE FROM postings WHERE received_unix < ?");
      del.bind_int(1, static_cast<int64_t>(cutoff_unix));
      del.run();
      n = static_cast<uint64_t>(db_->changes());
      common::Statement expire(*db_, "DELETE FROM quarantine WHERE quarantined_unix < ?");
      expire.bind_int(1, static_cast<int64_t>(cutoff_unix));
      expire.run();
      quarantine_gone = db_->changes() > 0;
      tx.commit();
    }
    if (n > 0 || quarantine_gone) db_->checkpoint_truncate();  // busy: the next sweep tries again
    return n;
  });
}

uint64_t RelayStore::count() const {
  return guarded([&] {
    common::Statement q(*db_, "SELECT COUNT(*) FROM postings");
    return q.step() ? static_cast<uint64_t>(q.column_int(0)) : uint64_t{0};
  });
}

QuarantineSummary RelayStore::quarantine() const {
  return guarded([&] {
    QuarantineSummary s;
    common::Statement by(*db_,
                         "SELECT reason, COUNT(*) FROM quarantine GROUP BY reason ORDER BY reason");
    while (by.step()) {
      const auto n = static_cast<uint64_t>(by.column_int(1));
      s.by_reason.emplace_back(by.column_text(0), n);
      s.rows += n;
    }
    common::Statement first(*db_, "SELECT seq FROM quarantine ORDER BY seq LIMIT ?");
    first.bind_int(1, kQuarantineNamed);
    while (first.step()) s.first_seqs.push_back(static_cast<uint64_t>(first.column_int(0)));
    return s;
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
