#include "shuffler/pg_spool.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/json_log.hpp"
#include "common/pg/pg.hpp"
#include "common/store_health.hpp"
#include "common/store_open.hpp"
#include "shuffler/row_checksum.hpp"

namespace p2b::shuffler {

namespace {

// Version 1. Replay tables are LIST-partitioned by epoch (child tables are
// made by open_epoch); records carry their partition, a random id and no
// time; a batch's order among its partition's is the lease row's close
// counter, not a clock.
//
// Version 3: one replay table. Every envelope whose digest was in
// shuffler_seen had its inner digest in shuffler_seen_inner (marked then,
// or already there), so the inner table alone refuses every replay the two
// did; its rows now also keep the envelope's digest, which only tells a
// re-sent envelope from a re-sealed inner in the counts (rows from before
// keep none and count as re-sealed). Half the replay writes per envelope.
// A process of an older release still running on the store has its inserts
// refused (the table it writes first is gone): its clients retry elsewhere.
//
// Version 2: each record's checksum (row_checksum.hpp) and the quarantine
// of rows that fail it. The column is nullable so that it can be added to
// existing rows, which fill_row_sums then fills from their bytes as they
// are (found through the partial index, empty once filled). The NOT VALID
// check holds only for rows written from now on: a process of an older
// release still running on the store has its inserts refused (its clients
// retry elsewhere) instead of storing rows without a checksum, which a
// close would set aside as damaged although they were accepted. Quarantine
// numbers count up: the entries hold no report data.
const std::vector<pg::Migration> kMigrations = {
    {1, R"sql(
CREATE TABLE shuffler_config (name text PRIMARY KEY, value int8 NOT NULL);
CREATE TABLE shuffler_epochs (
  fp bytea PRIMARY KEY CHECK (length(fp) = 16),
  id int4 GENERATED ALWAYS AS IDENTITY UNIQUE,
  retired boolean NOT NULL DEFAULT false);
CREATE TABLE shuffler_seen (epoch int4 NOT NULL, digest bytea NOT NULL,
  PRIMARY KEY (epoch, digest)) PARTITION BY LIST (epoch);
CREATE TABLE shuffler_seen_inner (epoch int4 NOT NULL, digest bytea NOT NULL,
  PRIMARY KEY (epoch, digest)) PARTITION BY LIST (epoch);
CREATE TABLE shuffler_records (
  id int8 PRIMARY KEY,
  part int4 NOT NULL,
  crowd_id int4 NOT NULL,
  inner_ct bytea NOT NULL,
  batch_id bytea,
  pos int4);
CREATE INDEX shuffler_records_unbatched ON shuffler_records (part) WHERE batch_id IS NULL;
CREATE INDEX shuffler_records_by_batch ON shuffler_records (batch_id, pos)
  WHERE batch_id IS NOT NULL;
CREATE TABLE shuffler_leases (
  part int4 PRIMARY KEY,
  holder text NOT NULL DEFAULT '',
  token int8 NOT NULL DEFAULT 0,
  expires_at timestamptz NOT NULL DEFAULT '-infinity',
  closes int8 NOT NULL DEFAULT 0);
CREATE TABLE shuffler_batches (id bytea PRIMARY KEY, part int4 NOT NULL, seq int8 NOT NULL,
  UNIQUE (part, seq));
)sql"},
    {2, R"sql(
ALTER TABLE shuffler_records ADD COLUMN row_sum bytea;
ALTER TABLE shuffler_records ADD CONSTRAINT shuffler_records_row_sum_written
  CHECK (row_sum IS NOT NULL) NOT VALID;
CREATE INDEX shuffler_records_unsummed ON shuffler_records (id) WHERE row_sum IS NULL;
CREATE TABLE shuffler_quarantine (id int8 GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  origin text NOT NULL, reason text NOT NULL, quarantined_unix int8 NOT NULL);
)sql"},
    {3, R"sql(
ALTER TABLE shuffler_seen_inner ADD COLUMN envelope bytea;
DROP TABLE shuffler_seen;
)sql"},
};

// Serialises open_epoch and retire_epoch across processes (DDL on the
// replay tables' children).
constexpr int64_t kEpochLockKey = 0x7032625f65706f63;  // "p2b_epoc"

// The replay table (schema 3): one row per inner digest and epoch.
constexpr const char* kSeenTable = "shuffler_seen_inner";

constexpr int kAttempts = 4;
constexpr std::size_t kMaxIdle = 8;
// Rows fill_row_sums gives checksums per transaction, each one well within
// the session's statement timeout however large the backlog.
constexpr int64_t kFillChunk = 10000;

int64_t random_record_id() {
  uint64_t v = 0;
  randombytes_buf(&v, sizeof v);
  return static_cast<int64_t>(v & INT64_MAX);
}

template <typename Array>
std::pair<const uint8_t*, std::size_t> span(const Array& a) {
  return {a.data(), a.size()};
}

std::string child_name(const char* table, int32_t epoch_id) {
  return std::string(table) + "_e" + std::to_string(epoch_id);
}

// The epoch's row, locked FOR SHARE: a retirement waits for this
// transaction, or this transaction sees it retired.
struct EpochRow {
  int32_t id = 0;
  bool retired = false;
};

std::map<EpochId, EpochRow> lock_epochs(pg::Connection& c, const std::set<EpochId>& epochs) {
  std::vector<std::pair<const uint8_t*, std::size_t>> fps;
  fps.reserve(epochs.size());
  for (const EpochId& e : epochs) fps.push_back(span(e));
  const pg::Result rows = c.query(
      "SELECT fp, id, retired FROM shuffler_epochs WHERE fp = ANY($1::bytea[]) ORDER BY fp "
      "FOR SHARE",
      pg::Params().bytea_array(fps));
  std::map<EpochId, EpochRow> out;
  for (int i = 0; i < rows.rows(); ++i) {
    const std::vector<uint8_t> fp = rows.bytes(i, 0);
    EpochId id{};
    if (fp.size() != id.size()) throw SpoolError("spool: a malformed epoch row");
    std::memcpy(id.data(), fp.data(), id.size());
    out[id] = EpochRow{rows.int4(i, 1), rows.boolean(i, 2)};
  }
  if (out.size() != epochs.size()) throw SpoolError("spool: a record of an epoch never opened");
  return out;
}

// A record of a group that is new within the group, with where it came
// from: the request it counts towards and its epoch's number.
struct Candidate {
  std::size_t request;
  const SpoolRecord* record;
  int32_t epoch;
};

// What one statement did with the candidates: `fresh[k]` if candidate k's
// inner digest was new in its epoch (it is now marked seen), `stored[k]` if
// its record was stored too (a fresh one is not only when its random id
// collided).
struct Marked {
  std::vector<bool> fresh, stored;
};

// Marks every candidate's inner digest seen in its epoch, with the digest of
// the envelope it came in, and stores the record of each one that was new:
// one statement, and one replay row with its index entry per envelope.
// The envelope digest only tells a re-sent envelope from its inner
// re-sealed (InsertCounts); replay protection is the inner digest, which
// every envelope carrying that inner shares.
Marked mark_and_store(pg::Connection& c, const std::vector<Candidate>& candidates) {
  const std::size_t n = candidates.size();
  std::vector<int32_t> epochs, parts, crowds;
  std::vector<int64_t> ids;
  std::vector<std::pair<const uint8_t*, std::size_t>> digests, envelopes, inners, sum_spans;
  std::vector<RowSum> sums;
  sums.reserve(n);  // sum_spans point into it
  // Every id of the group from one draw (a draw is a getrandom call), and
  // distinct: the reply tells stored records by their ids.
  ids.resize(n);
  randombytes_buf(ids.data(), n * sizeof(int64_t));
  std::set<int64_t> drawn;
  for (int64_t& id : ids) {
    id &= INT64_MAX;
    while (!drawn.insert(id).second) id = random_record_id();
  }
  for (const Candidate& k : candidates) {
    const SpoolRecord& r = *k.record;
    epochs.push_back(k.epoch);
    digests.push_back(span(r.inner_digest));
    envelopes.push_back(span(r.digest));
    parts.push_back(static_cast<int32_t>(r.partition));
    crowds.push_back(static_cast<int32_t>(r.crowd_id));
    inners.push_back(span(r.inner));
    sums.push_back(row_sum(r.crowd_id, r.inner.data(), r.inner.size()));
    sum_spans.push_back(span(sums.back()));
  }
  const pg::Result rows = c.query(
      "WITH u AS (SELECT * FROM unnest($1::int4[], $2::bytea[], $3::bytea[], $4::int8[], "
      "$5::int4[], $6::int4[], $7::bytea[], $8::bytea[]) WITH ORDINALITY "
      "AS u(epoch, digest, envelope, id, part, crowd_id, inner_ct, row_sum, n)), "
      "seen AS (INSERT INTO shuffler_seen_inner (epoch, digest, envelope) "
      "SELECT epoch, digest, envelope FROM u ON CONFLICT DO NOTHING RETURNING epoch, digest), "
      "fresh AS (SELECT u.* FROM u JOIN seen USING (epoch, digest)), "
      "stored AS (INSERT INTO shuffler_records (id, part, crowd_id, inner_ct, row_sum) "
      "SELECT id, part, crowd_id, inner_ct, row_sum FROM fresh "
      "ON CONFLICT (id) DO NOTHING RETURNING id) "
      "SELECT fresh.n, stored.id IS NOT NULL FROM fresh LEFT JOIN stored USING (id)",
      pg::Params()
          .int4_array(epochs)
          .bytea_array(digests)
          .bytea_array(envelopes)
          .int8_array(ids)
          .int4_array(parts)
          .int4_array(crowds)
          .bytea_array(inners)
          .bytea_array(sum_spans));
  Marked out{std::vector<bool>(n, false), std::vector<bool>(n, false)};
  for (int i = 0; i < rows.rows(); ++i) {
    const int64_t k = rows.int8(i, 0) - 1;  // ordinality counts from 1
    if (k < 0 || static_cast<std::size_t>(k) >= n) throw SpoolError("spool: a malformed reply");
    out.fresh[static_cast<std::size_t>(k)] = true;
    out.stored[static_cast<std::size_t>(k)] = rows.boolean(i, 1);
  }
  return out;
}

// For candidates whose inner digest was seen before: true where the stored
// envelope digest is theirs (the same envelope sent again), false where it
// differs or was not kept (replay rows from before schema 3).
std::vector<bool> same_envelope(pg::Connection& c, const std::vector<const Candidate*>& replays) {
  std::vector<int32_t> epochs;
  std::vector<std::pair<const uint8_t*, std::size_t>> digests;
  for (const Candidate* k : replays) {
    epochs.push_back(k->epoch);
    digests.push_back(span(k->record->inner_digest));
  }
  const pg::Result rows = c.query(
      "SELECT s.epoch, s.digest, s.envelope FROM shuffler_seen_inner s "
      "JOIN unnest($1::int4[], $2::bytea[]) AS u(epoch, digest) USING (epoch, digest) "
      "WHERE s.envelope IS NOT NULL",
      pg::Params().int4_array(epochs).bytea_array(digests));
  std::map<std::pair<int32_t, std::vector<uint8_t>>, std::vector<uint8_t>> envelope_of;
  for (int i = 0; i < rows.rows(); ++i) {
    envelope_of[{rows.int4(i, 0), rows.bytes(i, 1)}] = rows.bytes(i, 2);
  }
  std::vector<bool> same(replays.size(), false);
  for (std::size_t i = 0; i < replays.size(); ++i) {
    const SpoolRecord& r = *replays[i]->record;
    const auto it = envelope_of.find(
        {replays[i]->epoch, std::vector<uint8_t>(r.inner_digest.begin(), r.inner_digest.end())});
    same[i] = it != envelope_of.end() &&
              it->second == std::vector<uint8_t>(r.digest.begin(), r.digest.end());
  }
  return same;
}

void store_records(pg::Connection& c, const std::vector<const SpoolRecord*>& records) {
  std::vector<const SpoolRecord*> left = records;
  // A random id collides with odds of about n / 2^63; the colliding ones get
  // new ids rather than assume it never happens.
  for (int attempt = 0; attempt < 8 && !left.empty(); ++attempt) {
    std::vector<int64_t> ids;
    std::vector<int32_t> parts, crowds;
    std::vector<std::pair<const uint8_t*, std::size_t>> inners, sum_spans;
    // Computed here and sent in the same statement: the checksum costs the
    // insert no round trip.
    std::vector<RowSum> sums;
    sums.reserve(left.size());
    for (const SpoolRecord* r : left) {
      ids.push_back(random_record_id());
      parts.push_back(static_cast<int32_t>(r->partition));
      crowds.push_back(static_cast<int32_t>(r->crowd_id));
      inners.push_back(span(r->inner));
      sums.push_back(row_sum(r->crowd_id, r->inner.data(), r->inner.size()));
    }
    sum_spans.reserve(sums.size());
    for (const RowSum& sum : sums) sum_spans.push_back(span(sum));
    const pg::Result rows = c.query(
        "INSERT INTO shuffler_records (id, part, crowd_id, inner_ct, row_sum) SELECT * FROM "
        "unnest($1::int8[], $2::int4[], $3::int4[], $4::bytea[], $5::bytea[]) "
        "ON CONFLICT (id) DO NOTHING RETURNING id",
        pg::Params()
            .int8_array(ids)
            .int4_array(parts)
            .int4_array(crowds)
            .bytea_array(inners)
            .bytea_array(sum_spans));
    std::set<int64_t> stored;
    for (int i = 0; i < rows.rows(); ++i) stored.insert(rows.int8(i, 0));
    std::vector<const SpoolRecord*> again;
    for (std::size_t i = 0; i < left.size(); ++i) {
      if (stored.count(ids[i]) == 0) again.push_back(left[i]);
    }
    left = std::move(again);
  }
  if (!left.empty()) throw SpoolError("spool: no free record id");
}

bool lease_live(pg::Connection& c, const Lease& lease, bool lock) {
  return c.query(std::string("SELECT 1 FROM shuffler_leases WHERE part = $1 AND token = $2 "
                             "AND expires_at > clock_timestamp()") +
                     (lock ? " FOR UPDATE" : ""),
                 pg::Params()
                     .int4(static_cast<int32_t>(lease.partition))
                     .int8(static_cast<int64_t>(lease.token)))
             .rows() == 1;
}

[[noreturn]] void lease_lost(const Lease& lease) {
  throw LeaseLost("spool: the lease of partition " + std::to_string(lease.partition) +
                  " is no longer held");
}

// Row `i` of `rows` (crowd id, inner ciphertext and checksum in columns
// `col`, `col` + 1 and `col` + 2) as read back; `intact` only if the inner
// ciphertext has the one length there is and the checksum, which a row
// from before schema 2 may lack, matches. Every int4 is some crowd id (it
// holds the id's 32 bits), so the crowd id has no range to check.
struct StoredRow {
  uint32_t crowd_id = 0;
  std::vector<uint8_t> inner;
  bool intact = false;
};

StoredRow read_row(const pg::Result& rows, int i, int col) {
  StoredRow row;
  row.crowd_id = static_cast<uint32_t>(rows.int4(i, col));
  row.inner = rows.bytes(i, col + 1);
  const std::vector<uint8_t> sum =
      rows.is_null(i, col + 2) ? std::vector<uint8_t>() : rows.bytes(i, col + 2);
  row.intact = row.inner.size() == kInnerBytes &&
               row_intact(row.crowd_id, row.inner.data(), row.inner.size(), sum.data(), sum.size());
  return row;
}

// Damaged rows on their way out of shuffler_records (ids, and where each
// was, as QuarantineEntry::origin puts it).
struct Damaged {
  std::vector<int64_t> ids;
  std::vector<std::string> origins;
  void add(int64_t id, std::string origin) {
    ids.push_back(id);
    origins.push_back(std::move(origin));
  }
};

// Entries filed in this transaction, logged once it committed.
using Filed = std::vector<std::pair<int64_t, std::string>>;

// Moves the rows to the quarantine, in one statement: deleted and filed
// with their place and the database's time, never their contents.
void set_aside(pg::Connection& c, const Damaged& damaged, Filed* filed) {
  if (damaged.ids.empty()) return;
  const pg::Result rows = c.query(
      "WITH gone AS (DELETE FROM shuffler_records WHERE id = ANY($1::int8[]) RETURNING id) "
      "INSERT INTO shuffler_quarantine (origin, reason, quarantined_unix) "
      "SELECT u.origin, $3, floor(extract(epoch FROM clock_timestamp()))::int8 "
      "FROM unnest($1::int8[], $2::text[]) AS u(id, origin) JOIN gone USING (id) "
      "RETURNING id, origin",
      pg::Params().int8_array(damaged.ids).text_array(damaged.origins).text(kDamagedInSpool));
  for (int i = 0; i < rows.rows(); ++i) filed->emplace_back(rows.int8(i, 0), rows.text(i, 1));
}

// Logged after COMMIT, so that a close rolled back (a lost lease, a retry
// on a new connection) logs nothing it did not file.
void log_filed(const Filed& filed) {
  for (const auto& [id, origin] : filed) {
    common::service_log().error(
        "record_set_aside",
        {{"quarantine_id", id}, {"origin", origin}, {"reason", std::string(kDamagedInSpool)}});
  }
}

}  // namespace

uint32_t partition_hash(uint32_t crowd_id, uint32_t partitions) {
  if (partitions <= 1) return 0;
  const uint8_t in[4] = {static_cast<uint8_t>(crowd_id), static_cast<uint8_t>(crowd_id >> 8),
                         static_cast<uint8_t>(crowd_id >> 16),
                         static_cast<uint8_t>(crowd_id >> 24)};
  uint8_t out[32];
  crypto_generichash(out, sizeof out, in, sizeof in, nullptr, 0);
  const uint32_t h = uint32_t{out[0]} | (uint32_t{out[1]} << 8) | (uint32_t{out[2]} << 16) |
                     (uint32_t{out[3]} << 24);
  return h % partitions;
}

// A pooled connection for one call; back to the pool if still healthy.
class PgSpool::Borrowed {
 public:
  explicit Borrowed(PgSpool& spool) : spool_(spool) {
    {
      const std::lock_guard<std::mutex> lock(spool_.pool_mu_);
      if (!spool_.idle_.empty()) {
        conn_ = std::move(spool_.idle_.back());
        spool_.idle_.pop_back();
      }
    }
    if (!conn_) conn_ = spool_.connect();
  }
  ~Borrowed() {
    if (!conn_->healthy()) return;
    const std::lock_guard<std::mutex> lock(spool_.pool_mu_);
    if (spool_.idle_.size() < kMaxIdle) spool_.idle_.push_back(std::move(conn_));
  }
  Borrowed(const Borrowed&) = delete;
  Borrowed& operator=(const Borrowed&) = delete;
  pg::Connection& get() { return *conn_; }

 private:
  PgSpool& spool_;
  std::unique_ptr<pg::Connection> conn_;
};

PgSpool::PgSpool(const std::string& conninfo, PgSpoolOptions options)
    : conninfo_(conninfo), options_(options) {
  if (sodium_init() < 0) throw SpoolError("spool: libsodium cannot start");
  // Below the lease's ttl, so that the server ends a paused batcher's
  // transaction (and its lock on the lease row) before another takes over.
  statement_timeout_ = std::clamp(options_.lease_ttl / 2, std::chrono::milliseconds(500),
                                  std::chrono::milliseconds(30000));
  if (options_.statement_timeout.count() > 0) statement_timeout_ = options_.statement_timeout;
  health_ = std::make_unique<common::StoreHealth>(pg::redact_conninfo(conninfo));
  run("start", [&](pg::Connection& c) {
    if (options_.must_exist &&
        c.query("SELECT to_regclass('shuffler_config') IS NULL").boolean(0, 0)) {
      throw SpoolError("spool: no shuffler store in this database");
    }
    pg::migrate(c, "shuffler", kMigrations);
    pg::Transaction tx(c);
    const int64_t wanted = options_.partitions == 0 ? 1 : options_.partitions;
    c.query(
        "INSERT INTO shuffler_config (name, value) VALUES ('partitions', $1) "
        "ON CONFLICT (name) DO NOTHING",
        pg::Params().int8(wanted));
    const int64_t have =
        c.query("SELECT value FROM shuffler_config WHERE name = 'partitions'").int8(0, 0);
    if (options_.partitions != 0 && have != options_.partitions) {
      throw common::StoreRefused("spool: the store has " + std::to_string(have) +
                                 " partitions, not " + std::to_string(options_.partitions) +
                                 " (--partitions is fixed when the store is created)");
    }
    if (have < 1 || have > INT32_MAX) throw common::StoreRefused("spool: bad partition count");
    partitions_ = static_cast<uint32_t>(have);
    c.query(
        "INSERT INTO shuffler_leases (part) SELECT generate_series(0, $1 - 1) "
        "ON CONFLICT (part) DO NOTHING",
        pg::Params().int4(static_cast<int32_t>(partitions_)));
    tx.commit();
    return 0;
  });
  fill_row_sums();
  health_->arm_log();
}

// Rows written before schema 2 get their checksum from their bytes as they
// are, as a SQLite spool's do on upgrade (docs/shuffler.md, "Row
// integrity"). Every process runs it at start, after the migration and
// before it closes a batch: it finds nothing once done (the partial index
// is empty), and processes starting together wait on each other's locked
// rows rather than skip them, so none closes while rows lack checksums.
void PgSpool::fill_row_sums() {
  for (;;) {
    const int filled = run("fill checksums", [&](pg::Connection& c) {
      pg::Transaction tx(c);
      const pg::Result rows = c.query(
          "SELECT id, crowd_id, inner_ct FROM shuffler_records WHERE row_sum IS NULL "
          "LIMIT $1 FOR UPDATE",
          pg::Params().int8(kFillChunk));
      std::vector<int64_t> ids;
      std::vector<RowSum> sums;
      for (int i = 0; i < rows.rows(); ++i) {
        const std::vector<uint8_t> inner = rows.bytes(i, 2);
        ids.push_back(rows.int8(i, 0));
        sums.push_back(row_sum(static_cast<uint32_t>(rows.int4(i, 1)), inner.data(), inner.size()));
      }
      std::vector<std::pair<const uint8_t*, std::size_t>> sum_spans;
      sum_spans.reserve(sums.size());
      for (const RowSum& sum : sums) sum_spans.push_back(span(sum));
      if (!ids.empty()) {
        c.query(
            "UPDATE shuffler_records r SET row_sum = u.sum "
            "FROM unnest($1::int8[], $2::bytea[]) AS u(id, sum) WHERE r.id = u.id",
            pg::Params().int8_array(ids).bytea_array(sum_spans));
      }
      tx.commit();
      return rows.rows();
    });
    if (filled == 0) return;
  }
}

PgSpool::~PgSpool() = default;

std::unique_ptr<pg::Connection> PgSpool::connect() {
  auto c =
      std::make_unique<pg::Connection>(conninfo_, options_.connect_timeout, statement_timeout_);
  // Durable on return whatever the server's default; a transaction left
  // open (a paused process) is ended by the server.
  c->exec("SET synchronous_commit = on; SET idle_in_transaction_session_timeout = " +
          std::to_string(statement_timeout_.count()));
  return c;
}

template <typename Fn>
auto PgSpool::run(const char* what, Fn&& fn) -> decltype(fn(std::declval<pg::Connection&>())) {
  try {
    return pg::with_retries(
        [&] {
          Borrowed conn(*this);
          return fn(conn.get());
        },
        kAttempts);
  } catch (const pg::Error& e) {
    health_->record_error(false, e.what());
    throw SpoolError(std::string("spool (postgresql) ") + what + ": " + e.what());
  }
}

InsertCounts PgSpool::insert(const std::vector<SpoolRecord>& records) {
  return insert_all({&records}).front();
}

std::vector<InsertCounts> PgSpool::insert_all(
    const std::vector<const std::vector<SpoolRecord>*>& requests) {
  std::set<EpochId> epochs;
  for (const auto* request : requests) {
    for (const SpoolRecord& r : *request) {
      if (r.partition != partition_of(r.crowd_id)) {
        throw SpoolError("spool: a record in the wrong partition");
      }
      epochs.insert(r.epoch);
    }
  }
  return run("insert", [&](pg::Connection& c) {
    std::vector<InsertCounts> all(requests.size());
    if (epochs.empty()) return all;
    pg::Transaction tx(c);
    const std::map<EpochId, EpochRow> rows = lock_epochs(c, epochs);
    // A request with a record of a retired epoch is refused whole.
    std::vector<bool> live(requests.size(), true);
    for (std::size_t i = 0; i < requests.size(); ++i) {
      for (const SpoolRecord& r : *requests[i]) {
        if (rows.at(r.epoch).retired) ++all[i].retired;
      }
      live[i] = all[i].retired == 0;
    }
    // A repeat within the group is a duplicate of its first occurrence:
    // the same envelope, or the same inner in another envelope. The rest
    // are marked seen and stored in one statement.
    std::vector<Candidate> candidates;
    std::map<std::pair<int32_t, server::InnerDigest>, const EnvelopeDigest*> in_group;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      if (!live[i]) continue;
      for (const SpoolRecord& r : *requests[i]) {
        const int32_t e = rows.at(r.epoch).id;
        const auto first = in_group.emplace(std::make_pair(e, r.inner_digest), &r.digest);
        if (!first.second) {
          ++(*first.first->second == r.digest ? all[i].duplicates : all[i].inner_duplicates);
          continue;
        }
        candidates.push_back({i, &r, e});
      }
    }
    if (candidates.empty()) {
      tx.commit();
      return all;
    }
    const Marked marked = mark_and_store(c, candidates);
    std::vector<const Candidate*> replays;
    std::vector<const SpoolRecord*> unstored;  // fresh, but their random id collided
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      if (!marked.fresh[k]) {
        replays.push_back(&candidates[k]);
        continue;
      }
      ++all[candidates[k].request].accepted;
      if (!marked.stored[k]) unstored.push_back(candidates[k].record);
    }
    if (!replays.empty()) {
      const std::vector<bool> same = same_envelope(c, replays);
      for (std::size_t k = 0; k < replays.size(); ++k) {
        InsertCounts& counts = all[replays[k]->request];
        ++(same[k] ? counts.duplicates : counts.inner_duplicates);
      }
    }
    if (!unstored.empty()) store_records(c, unstored);
    tx.commit();
    return all;
  });
}

std::vector<uint32_t> PgSpool::partitions() const {
  std::vector<uint32_t> all(partitions_);
  for (uint32_t p = 0; p < partitions_; ++p) all[p] = p;
  return all;
}

uint32_t PgSpool::partition_of(uint32_t crowd_id) const {
  return partition_hash(crowd_id, partitions_);
}

std::optional<Lease> PgSpool::acquire_lease(uint32_t partition, const std::string& holder,
                                            std::chrono::milliseconds ttl) {
  if (partition >= partitions_) {
    throw SpoolError("spool: no partition " + std::to_string(partition));
  }
  return run("lease", [&](pg::Connection& c) -> std::optional<Lease> {
    // Renewing a live lease keeps its token; taking a free or expired one
    // (even one this holder let run out) issues the next.
    const pg::Result row = c.query(
        "UPDATE shuffler_leases SET "
        "token = CASE WHEN holder = $2 AND expires_at > clock_timestamp() THEN token "
        "ELSE token + 1 END, "
        "holder = $2, expires_at = clock_timestamp() + make_interval(secs => $3) "
        "WHERE part = $1 AND (holder = $2 OR expires_at <= clock_timestamp()) RETURNING token",
        pg::Params()
            .int4(static_cast<int32_t>(partition))
            .text(holder)
            .float8(static_cast<double>(ttl.count()) / 1000.0));
    if (row.rows() == 0) return std::nullopt;
    return Lease{partition, static_cast<uint64_t>(row.int8(0, 0))};
  });
}

void PgSpool::release_lease(const Lease& lease) {
  run("lease release", [&](pg::Connection& c) {
    c.query(
        "UPDATE shuffler_leases SET holder = '', expires_at = '-infinity' "
        "WHERE part = $1 AND token = $2",
        pg::Params()
            .int4(static_cast<int32_t>(lease.partition))
            .int8(static_cast<int64_t>(lease.token)));
    return 0;
  });
}

void PgSpool::open_epoch(const EpochId& epoch) {
  run("open epoch", [&](pg::Connection& c) {
    pg::Transaction tx(c);
    c.query("SELECT pg_advisory_xact_lock($1)", pg::Params().int8(kEpochLockKey));
    c.query("INSERT INTO shuffler_epochs (fp) VALUES ($1) ON CONFLICT (fp) DO NOTHING",
            pg::Params().bytes(epoch.data(), epoch.size()));
    const pg::Result row = c.query("SELECT id, retired FROM shuffler_epochs WHERE fp = $1",
                                   pg::Params().bytes(epoch.data(), epoch.size()));
    if (row.boolean(0, 1)) throw EpochRetired("spool: this key's epoch was retired");
    const std::string id = std::to_string(row.int4(0, 0));
    c.exec("CREATE TABLE IF NOT EXISTS " + child_name(kSeenTable, row.int4(0, 0)) +
           " PARTITION OF " + kSeenTable + " FOR VALUES IN (" + id + ")");
    tx.commit();
    return 0;
  });
}

std::size_t PgSpool::retire_epoch(const EpochId& epoch) {
  return run("retire epoch", [&](pg::Connection& c) -> std::size_t {
    pg::Transaction tx(c);
    c.query("SELECT pg_advisory_xact_lock($1)", pg::Params().int8(kEpochLockKey));
    // Waits for every insert that holds the row FOR SHARE; later ones see
    // the epoch retired.
    const pg::Result row = c.query(
        "INSERT INTO shuffler_epochs (fp, retired) VALUES ($1, true) "
        "ON CONFLICT (fp) DO UPDATE SET retired = true RETURNING id",
        pg::Params().bytes(epoch.data(), epoch.size()));
    const int32_t id = row.int4(0, 0);
    std::size_t dropped = 0;
    const std::string child = child_name(kSeenTable, id);
    if (c.query("SELECT to_regclass($1) IS NOT NULL", pg::Params().text(child)).boolean(0, 0)) {
      dropped = static_cast<std::size_t>(c.query("SELECT count(*) FROM " + child).int8(0, 0));
      c.exec("DROP TABLE " + child);
    }
    tx.commit();
    return dropped;
  });
}

bool PgSpool::epoch_retired(const EpochId& epoch) {
  return run("epoch", [&](pg::Connection& c) {
    const pg::Result row = c.query("SELECT retired FROM shuffler_epochs WHERE fp = $1",
                                   pg::Params().bytes(epoch.data(), epoch.size()));
    return row.rows() == 1 && row.boolean(0, 0);
  });
}

ClosedBatch PgSpool::close_batch(const server::BatchId& id, const Lease& lease,
                                 std::size_t max_records, const BatchSelector& select) {
  return run("close batch", [&](pg::Connection& c) -> ClosedBatch {
    pg::Transaction tx(c);
    // The lease row stays locked until COMMIT: nobody can take the
    // partition over while this batch is being closed.
    if (!lease_live(c, lease, true)) lease_lost(lease);
    const auto part = static_cast<int32_t>(lease.partition);
    const pg::Result taken = c.query(
        "SELECT id, crowd_id, inner_ct, row_sum FROM shuffler_records "
        "WHERE part = $1 AND batch_id IS NULL LIMIT $2 FOR UPDATE SKIP LOCKED",
        pg::Params().int4(part).int8(static_cast<int64_t>(max_records)));
    ClosedBatch closed;
    closed.taken = static_cast<std::size_t>(taken.rows());
    if (closed.taken == 0) return closed;
    // A damaged row is never counted towards a crowd nor sent: its crowd id
    // may be the damaged part. It leaves shuffler_records in this
    // transaction, fenced by the lease like the rest of the close.
    std::vector<int64_t> ids;
    std::vector<uint32_t> crowds;
    Damaged damaged;
    for (int i = 0; i < taken.rows(); ++i) {
      const StoredRow row = read_row(taken, i, 1);
      const int64_t row_id = taken.int8(i, 0);
      if (!row.intact) {
        damaged.add(row_id, "unbatched row " + std::to_string(row_id));
        continue;
      }
      ids.push_back(row_id);
      crowds.push_back(row.crowd_id);
    }
    Filed filed;
    set_aside(c, damaged, &filed);
    closed.damaged = damaged.ids.size();
    const std::vector<std::size_t> keep = ids.empty() ? std::vector<std::size_t>() : select(crowds);
    std::vector<bool> kept(ids.size(), false);
    std::vector<int64_t> kept_ids, dropped_ids;
    std::vector<int32_t> positions;
    for (std::size_t pos = 0; pos < keep.size(); ++pos) {
      const std::size_t i = keep[pos];
      if (i >= ids.size() || kept[i]) throw SpoolError("spool: the batch selection is invalid");
      kept[i] = true;
      kept_ids.push_back(ids[i]);
      positions.push_back(static_cast<int32_t>(pos));
    }
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (!kept[i]) dropped_ids.push_back(ids[i]);
    }
    if (!dropped_ids.empty()) {
      c.query("DELETE FROM shuffler_records WHERE id = ANY($1::int8[])",
              pg::Params().int8_array(dropped_ids));
    }
    if (!kept_ids.empty()) {
      c.query(
          "UPDATE shuffler_records r SET batch_id = $1, pos = u.pos "
          "FROM unnest($2::int8[], $3::int4[]) AS u(id, pos) WHERE r.id = u.id",
          pg::Params().bytes(id.data(), id.size()).int8_array(kept_ids).int4_array(positions));
      c.query(
          "INSERT INTO shuffler_batches (id, part, seq) SELECT $1, $2, closes + 1 "
          "FROM shuffler_leases WHERE part = $2",
          pg::Params().bytes(id.data(), id.size()).int4(part));
      c.query("UPDATE shuffler_leases SET closes = closes + 1 WHERE part = $1",
              pg::Params().int4(part));
    }
    // Fenced again at the last moment: a close that outlived its lease
    // commits nothing.
    if (!lease_live(c, lease, false)) lease_lost(lease);
    tx.commit();
    log_filed(filed);
    closed.kept = keep.size();
    closed.thresholded = ids.size() - keep.size();
    return closed;
  });
}

std::optional<server::Batch> PgSpool::oldest_unacknowledged(uint32_t partition) {
  return run("batch", [&](pg::Connection& c) -> std::optional<server::Batch> {
    // Repeatable read: the batch and its rows are one snapshot; setting a
    // row aside that someone changed meanwhile fails and is run again.
    pg::Transaction tx(c, pg::Transaction::Isolation::repeatable_read);
    Filed filed;
    std::optional<server::Batch> found;
    // A batch whose every row turns out damaged is gone; the next one is tried.
    while (!found) {
      const pg::Result oldest =
          c.query("SELECT id FROM shuffler_batches WHERE part = $1 ORDER BY seq LIMIT 1",
                  pg::Params().int4(static_cast<int32_t>(partition)));
      if (oldest.rows() == 0) break;
      server::Batch batch;
      batch.partition = partition;
      const std::vector<uint8_t> id = oldest.bytes(0, 0);
      if (id.size() != batch.id.size()) throw SpoolError("spool: a malformed batch id");
      std::memcpy(batch.id.data(), id.data(), id.size());
      const pg::Result records = c.query(
          "SELECT id, pos, crowd_id, inner_ct, row_sum FROM shuffler_records "
          "WHERE batch_id = $1 ORDER BY pos",
          pg::Params().bytes(batch.id.data(), batch.id.size()));
      Damaged damaged;
      for (int i = 0; i < records.rows(); ++i) {
        const StoredRow row = read_row(records, i, 2);
        if (!row.intact) {
          damaged.add(records.int8(i, 0), "batch " + server::batch_id_hex(batch.id) + " position " +
                                              std::to_string(records.int4(i, 1)));
          continue;
        }
        server::BatchRecord& r = batch.records.emplace_back();
        r.crowd_id = row.crowd_id;
        std::memcpy(r.inner.data(), row.inner.data(), r.inner.size());
      }
      // The batch that leaves is then smaller than the one closed
      // (docs/shuffler.md, "Row integrity", on a re-send).
      set_aside(c, damaged, &filed);
      if (batch.records.empty()) {
        c.query("DELETE FROM shuffler_batches WHERE id = $1",
                pg::Params().bytes(batch.id.data(), batch.id.size()));
      } else {
        found = std::move(batch);
      }
    }
    tx.commit();
    log_filed(filed);
    return found;
  });
}

std::size_t PgSpool::acknowledge(const server::BatchId& id) {
  return run("acknowledge", [&](pg::Connection& c) -> std::size_t {
    pg::Transaction tx(c);
    const pg::Result records = c.query("DELETE FROM shuffler_records WHERE batch_id = $1",
                                       pg::Params().bytes(id.data(), id.size()));
    c.query("DELETE FROM shuffler_batches WHERE id = $1", pg::Params().bytes(id.data(), id.size()));
    tx.commit();
    return static_cast<std::size_t>(records.affected());
  });
}

std::size_t PgSpool::count(const char* sql) {
  return run("count",
             [&](pg::Connection& c) { return static_cast<std::size_t>(c.query(sql).int8(0, 0)); });
}

std::size_t PgSpool::depth() {
  return count("SELECT count(*) FROM shuffler_records");
}

std::size_t PgSpool::unbatched() {
  return count("SELECT count(*) FROM shuffler_records WHERE batch_id IS NULL");
}

std::optional<std::size_t> PgSpool::shared_unbatched(uint32_t partition) {
  // Served by the partial index shuffler_records_unbatched.
  return run("count", [&](pg::Connection& c) {
    return static_cast<std::size_t>(
        c.query("SELECT count(*) FROM shuffler_records WHERE part = $1 AND batch_id IS NULL",
                pg::Params().int4(static_cast<int32_t>(partition)))
            .int8(0, 0));
  });
}

std::size_t PgSpool::unacknowledged_batches() {
  return count("SELECT count(*) FROM shuffler_batches");
}

std::vector<QuarantineEntry> PgSpool::quarantined() {
  return run("quarantine", [&](pg::Connection& c) {
    const pg::Result rows =
        c.query("SELECT id, origin, reason, quarantined_unix FROM shuffler_quarantine ORDER BY id");
    std::vector<QuarantineEntry> out;
    for (int i = 0; i < rows.rows(); ++i) {
      QuarantineEntry& e = out.emplace_back();
      e.id = rows.int8(i, 0);
      e.origin = rows.text(i, 1);
      e.reason = rows.text(i, 2);
      e.quarantined_unix = rows.int8(i, 3);
    }
    return out;
  });
}

std::size_t PgSpool::quarantine_size() {
  return count("SELECT count(*) FROM shuffler_quarantine");
}

std::size_t PgSpool::purge_quarantine(const QuarantineFilter& filter) {
  return run("quarantine purge", [&](pg::Connection& c) {
    pg::Params params;
    params.text(filter.reason);
    if (filter.quarantined_before) {
      params.int8(*filter.quarantined_before);
    } else {
      params.null();
    }
    return static_cast<std::size_t>(
        c.query("DELETE FROM shuffler_quarantine WHERE ($1 = '' OR reason = $1) AND "
                "($2::int8 IS NULL OR quarantined_unix < $2)",
                params)
            .affected());
  });
}

common::CheckResult PgSpool::storage_check() {
  try {
    Borrowed conn(*this);
    conn.get().query("SELECT 1");
    return common::check_ok("postgresql");
  } catch (const pg::Error& e) {
    return common::check_failed(std::string("postgresql unreachable: ") + e.what());
  }
}

}  // namespace p2b::shuffler
