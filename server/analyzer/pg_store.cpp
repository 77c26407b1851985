#include "pg_store.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <utility>

#include "common/store_open.hpp"
#include "pg_central_dp.hpp"

namespace p2b::analyzer {

namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "statistics are stored as f64le");

// Version 2 adds central DP's rows (pg_central_dp.hpp). Statistics are
// exact sums (f64le, as in the SQLite store); applied_batches.refused holds the ack's refusal
// counts as u32le.
const std::vector<pg::Migration>& migrations() {
  static const std::vector<pg::Migration> all{{1, R"sql(
CREATE TABLE analyzer_meta(key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE applied_batches(
  batch_id bytea PRIMARY KEY, digest bytea NOT NULL, partition_id int4 NOT NULL,
  applied_unix int8 NOT NULL, records int4 NOT NULL, applied int4 NOT NULL,
  quarantined int4 NOT NULL, refused bytea NOT NULL, version int8 NOT NULL);
CREATE TABLE seen_inner(epoch bytea NOT NULL, digest bytea NOT NULL,
  PRIMARY KEY (epoch, digest)) PARTITION BY LIST (epoch);
CREATE TABLE retired_epochs(epoch bytea PRIMARY KEY, retired_unix int8 NOT NULL,
  digests_dropped int8 NOT NULL);
CREATE TABLE accumulators(kind int4 NOT NULL, arm int4 NOT NULL, shard int4 NOT NULL,
  count int8 NOT NULL, gram bytea NOT NULL, reward bytea NOT NULL,
  PRIMARY KEY (kind, arm, shard));
CREATE TABLE models(kind int4 NOT NULL, version int8 NOT NULL, created_unix int8 NOT NULL,
  reports int8 NOT NULL, bundle bytea NOT NULL, PRIMARY KEY (kind, version));
CREATE TABLE quarantine(digest bytea PRIMARY KEY, batch_id bytea NOT NULL,
  position int4 NOT NULL, crowd_id int4 NOT NULL, inner_ct bytea NOT NULL,
  reason int4 NOT NULL, quarantined_unix int8 NOT NULL);
)sql"},
                                              {2, pg_central_dp::kSchema}};
  return all;
}

// Advisory lock keys (constants: the publisher's, and the one that orders
// partition creation against retirement).
constexpr int64_t kPublisherLock = 0x7032625075624c6bLL;   // "p2bPubLk"
constexpr int64_t kEpochLock = 0x7032624570636847LL;       // "p2bEpchG"
constexpr int64_t kQuarantineLock = 0x7032625172746e4cLL;  // "p2bQrtnL"
constexpr int kModelsKept = 8;
constexpr int kAttempts = 5;

int32_t kind_id(ModelKind kind) {
  return kind == ModelKind::raw_baseline ? 1 : 0;
}

std::string hex(const uint8_t* p, std::size_t n) {
  return server::hex_of(p, n);
}

// Fingerprints are ours, never input: the hex is safe in DDL.
std::string partition_name(const Epoch& e) {
  return "seen_inner_" + hex(e.data(), e.size());
}

std::map<std::string, std::string> identity_fields(const StoreIdentity& id) {
  return {{"dim", std::to_string(id.dim)},
          {"n_actions", std::to_string(id.n_actions)},
          {"mode", id.mode},
          {"codebook_fp", id.codebook_fp_hex},
          {"shards", std::to_string(kAccumulatorShards)}};
}

std::vector<uint8_t> f64_bytes(const double* p, std::size_t n) {
  std::vector<uint8_t> out(n * sizeof(double));
  std::memcpy(out.data(), p, out.size());
  return out;
}

void add_f64(const std::vector<uint8_t>& stored, double* into, std::size_t n) {
  if (stored.size() != n * sizeof(double)) throw StoreError("corrupt accumulator row");
  for (std::size_t i = 0; i < n; ++i) {
    double v = 0;
    std::memcpy(&v, stored.data() + i * sizeof(double), sizeof v);
    into[i] += v;
  }
}

template <typename Fn>
auto retried(PgPool* pool, Fn&& fn) {
  return pg::with_retries(
      [&] {
        PgPool::Lease conn = pool->take();
        return fn(*conn);
      },
      kAttempts);
}

AppliedBatch read_applied(const pg::Result& r) {
  AppliedBatch b;
  const std::vector<uint8_t> digest = r.bytes(0, 0);
  if (digest.size() != b.digest.size()) throw StoreError("corrupt row in applied_batches");
  std::copy(digest.begin(), digest.end(), b.digest.begin());
  b.version = static_cast<uint64_t>(r.int8(0, 1));
  b.counts.records = static_cast<uint32_t>(r.int4(0, 2));
  b.counts.applied = static_cast<uint32_t>(r.int4(0, 3));
  b.counts.quarantined = static_cast<uint32_t>(r.int4(0, 4));
  const std::vector<uint8_t> refused = r.bytes(0, 5);
  if (refused.size() != b.counts.refused.size() * 4) {
    throw StoreError("corrupt row in applied_batches");
  }
  std::memcpy(b.counts.refused.data(), refused.data(), refused.size());
  return b;
}

server::InnerDigest digest_at(const pg::Result& r, int row, int col) {
  const std::vector<uint8_t> b = r.bytes(row, col);
  server::InnerDigest d{};
  if (b.size() != d.size()) throw StoreError("corrupt digest");
  std::copy(b.begin(), b.end(), d.begin());
  return d;
}

// Inserts digests into their epochs' partitions; returns those that were
// new (ON CONFLICT: any other is a replay, whichever worker stored it).
std::set<server::InnerDigest> insert_seen(
    pg::Connection& conn, const std::vector<std::pair<const uint8_t*, std::size_t>>& epochs,
    const std::vector<std::pair<const uint8_t*, std::size_t>>& digests) {
  std::set<server::InnerDigest> fresh;
  if (digests.empty()) return fresh;
  const pg::Result r = conn.query(
      "INSERT INTO seen_inner(epoch, digest) SELECT * FROM unnest($1::bytea[], $2::bytea[]) "
      "ON CONFLICT DO NOTHING RETURNING digest",
      pg::Params().bytea_array(epochs).bytea_array(digests));
  for (int i = 0; i < r.rows(); ++i) fresh.insert(digest_at(r, i, 0));
  return fresh;
}

// Adds `add` into one shard, picked at random, of the private model's rows.
void add_to_shard(pg::Connection& conn, const Statistics& add) {
  const uint32_t d = add.dim();
  std::vector<int32_t> arms;
  for (uint32_t a = 0; a < add.n_actions(); ++a) {
    if (add.count(a) > 0) arms.push_back(static_cast<int32_t>(a));
  }
  uint32_t pick = 0;
  randombytes_buf(&pick, sizeof pick);
  const auto shard = static_cast<int32_t>(pick % kAccumulatorShards);
  const std::vector<uint8_t> zero_gram(static_cast<std::size_t>(d) * d * sizeof(double), 0);
  const std::vector<uint8_t> zero_reward(static_cast<std::size_t>(d) * sizeof(double), 0);
  conn.query(
      "INSERT INTO accumulators(kind, arm, shard, count, gram, reward) "
      "SELECT 0, a, $1, 0, $2, $3 FROM unnest($4::int4[]) AS a ON CONFLICT DO NOTHING",
      pg::Params()
          .int4(shard)
          .bytes(zero_gram.data(), zero_gram.size())
          .bytes(zero_reward.data(), zero_reward.size())
          .int4_array(arms));
  // Locked in arm order, so two workers on one shard cannot deadlock.
  const pg::Result rows = conn.query(
      "SELECT arm, count, gram, reward FROM accumulators WHERE kind = 0 AND shard = $1 "
      "AND arm = ANY($2::int4[]) ORDER BY arm FOR UPDATE",
      pg::Params().int4(shard).int4_array(arms));
  for (int i = 0; i < rows.rows(); ++i) {
    const auto arm = static_cast<uint32_t>(rows.int4(i, 0));
    if (arm >= add.n_actions()) throw StoreError("corrupt row in accumulators");
    std::vector<double> gram(add.gram(arm), add.gram(arm) + static_cast<std::size_t>(d) * d);
    std::vector<double> reward(add.reward_sum(arm), add.reward_sum(arm) + d);
    add_f64(rows.bytes(i, 2), gram.data(), gram.size());
    add_f64(rows.bytes(i, 3), reward.data(), reward.size());
    const std::vector<uint8_t> g = f64_bytes(gram.data(), gram.size());
    const std::vector<uint8_t> rw = f64_bytes(reward.data(), reward.size());
    conn.query(
        "UPDATE accumulators SET count = $1, gram = $2, reward = $3 "
        "WHERE kind = 0 AND arm = $4 AND shard = $5",
        pg::Params()
            .int8(rows.int8(i, 1) + static_cast<int64_t>(add.count(arm)))
            .bytes(g.data(), g.size())
            .bytes(rw.data(), rw.size())
            .int4(static_cast<int32_t>(arm))
            .int4(shard));
  }
}

// Stores `model` (its version the latest plus one, else StoreError) in the
// caller's transaction, dropping all but the newest few versions.
void insert_model(pg::Connection& conn, ModelKind kind, const SignedModel& model, uint64_t reports,
                  double released_reports) {
  const pg::Result v =
      conn.query("SELECT coalesce(max(version), 0)::int8 FROM models WHERE kind = $1",
                 pg::Params().int4(kind_id(kind)));
  if (static_cast<uint64_t>(v.int8(0, 0)) + 1 != model.version) {
    throw StoreError("model version moved underneath this publisher");
  }
  conn.query(
      "INSERT INTO models(kind, version, created_unix, reports, bundle, released_reports) "
      "VALUES ($1, $2, $3, $4, $5, $6)",
      pg::Params()
          .int4(kind_id(kind))
          .int8(static_cast<int64_t>(model.version))
          .int8(static_cast<int64_t>(model.created_unix))
          .int8(static_cast<int64_t>(reports))
          .bytes(model.bundle.data(), model.bundle.size())
          .float8(released_reports));
  conn.query(
      "DELETE FROM models WHERE kind = $1 AND version <= $2",
      pg::Params().int4(kind_id(kind)).int8(static_cast<int64_t>(model.version) - kModelsKept));
}

constexpr const char* kSelectApplied =
    "SELECT digest, version, records, applied, quarantined, refused FROM applied_batches "
    "WHERE batch_id = $1";

}  // namespace

PgPool::Lease::~Lease() {
  if (pool_ == nullptr) return;
  if (conn_ && !conn_->healthy()) conn_.reset();
  pool_->give_back(std::move(conn_));
}

PgPool::Lease PgPool::take() {
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (!freed_.wait_for(lock, std::chrono::seconds(30), [this] { return out_ < kMaxOpen; })) {
      throw StoreError("no database connection free within 30 s");
    }
    ++out_;
    if (!idle_.empty()) {
      std::unique_ptr<pg::Connection> c = std::move(idle_.back());
      idle_.pop_back();
      return Lease(this, std::move(c));
    }
  }
  try {
    return Lease(this, std::make_unique<pg::Connection>(conninfo_));
  } catch (...) {
    give_back(nullptr);
    throw;
  }
}

void PgPool::give_back(std::unique_ptr<pg::Connection> conn) {
  {
    const std::lock_guard<std::mutex> lock(mu_);
    --out_;
    if (conn) idle_.push_back(std::move(conn));
  }
  freed_.notify_one();
}

PgAnalyzerStore::PgAnalyzerStore(const std::string& conninfo, const StoreIdentity& id)
    : pool_(conninfo) {
  PgPool::Lease conn = pool_.take();
  pg::migrate(*conn, "analyzer", migrations());
  const std::map<std::string, std::string> want = identity_fields(id);
  pg::Transaction tx(*conn);
  for (const auto& [key, value] : want) {
    // Two nodes may bind a new database at once: the first insert wins.
    conn->query(
        "INSERT INTO analyzer_meta(key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
        pg::Params().text(key).text(value));
  }
  const pg::Result rows = conn->query("SELECT key, value FROM analyzer_meta");
  std::map<std::string, std::string> have;
  for (int r = 0; r < rows.rows(); ++r) have[rows.text(r, 0)] = rows.text(r, 1);
  for (const auto& [key, value] : want) {
    const auto it = have.find(key);
    const std::string stored = it == have.end() ? "(none)" : it->second;
    if (stored != value) {
      std::string why = "the database was created for ";
      why.append(key).append(" = ").append(stored).append(", not ").append(value);
      throw common::StoreRefused(why);
    }
  }
  tx.commit();
}

void PgAnalyzerStore::open_epochs(const std::vector<Epoch>& epochs) {
  PgPool::Lease conn = pool_.take();
  pg::Transaction tx(*conn);
  conn->query("SELECT pg_advisory_xact_lock($1)", pg::Params().int8(kEpochLock));
  for (const Epoch& e : epochs) {
    const pg::Result retired = conn->query("SELECT 1 FROM retired_epochs WHERE epoch = $1",
                                           pg::Params().bytes(e.data(), e.size()));
    if (retired.rows() > 0) {
      throw common::StoreRefused("the box key " + hex(e.data(), e.size()) +
                                 " was retired (p2b-analyzer retire-key); remove it from --keys");
    }
    conn->exec("CREATE TABLE IF NOT EXISTS " + partition_name(e) +
               " PARTITION OF seen_inner FOR VALUES IN ('\\x" + hex(e.data(), e.size()) + "')");
  }
  tx.commit();
}

std::set<Epoch> PgAnalyzerStore::retired_epochs() {
  return retried(&pool_, [](pg::Connection& conn) {
    std::set<Epoch> out;
    const pg::Result r = conn.query("SELECT epoch FROM retired_epochs");
    for (int i = 0; i < r.rows(); ++i) {
      const std::vector<uint8_t> b = r.bytes(i, 0);
      Epoch e{};
      if (b.size() != e.size()) throw StoreError("corrupt row in retired_epochs");
      std::copy(b.begin(), b.end(), e.begin());
      out.insert(e);
    }
    return out;
  });
}

std::optional<AppliedBatch> PgAnalyzerStore::find_batch(const server::BatchId& id) {
  return retried(&pool_, [&](pg::Connection& conn) -> std::optional<AppliedBatch> {
    const pg::Result r = conn.query(kSelectApplied, pg::Params().bytes(id.data(), id.size()));
    if (r.rows() == 0) return std::nullopt;
    return read_applied(r);
  });
}

PgApplied PgAnalyzerStore::apply_batch(const server::VerifiedBatch& verified,
                                       const std::vector<OpenedRecord>& records,
                                       const Screen& screen, const Sums& sums, const Counts& counts,
                                       uint64_t max_quarantine, uint64_t now_unix) {
  const server::Batch& batch = verified.batch;
  return retried(&pool_, [&](pg::Connection& conn) -> PgApplied {
    PgApplied out;
    pg::Transaction tx(conn);
    if (central_dp_bound_) pg_central_dp::check(conn, central_dp_);
    // The id first: a second worker with the same batch waits here for the
    // first to commit, then finds it applied.
    const pg::Result claimed = conn.query(
        "INSERT INTO applied_batches(batch_id, digest, partition_id, applied_unix, records, "
        "applied, quarantined, refused, version) VALUES ($1, $2, $3, $4, 0, 0, 0, ''::bytea, 0) "
        "ON CONFLICT (batch_id) DO NOTHING",
        pg::Params()
            .bytes(batch.id.data(), batch.id.size())
            .bytes(verified.digest.data(), verified.digest.size())
            .int4(static_cast<int32_t>(batch.partition))
            .int8(static_cast<int64_t>(now_unix)));
    if (claimed.affected() == 0) {
      const pg::Result r =
          conn.query(kSelectApplied, pg::Params().bytes(batch.id.data(), batch.id.size()));
      if (r.rows() == 0) throw StoreError("a claimed batch id vanished");
      out.status = PgApplied::Status::known;
      out.known = read_applied(r);
      return out;
    }
    // The valid records' digests, each once, into their epochs' partitions:
    // those the insert returns are new, every other one a replay.
    std::set<server::InnerDigest> distinct;
    std::vector<std::pair<const uint8_t*, std::size_t>> epochs, digests, invalid;
    for (const OpenedRecord& r : records) {
      if (r.valid && distinct.insert(r.digest).second) {
        epochs.emplace_back(r.epoch.data(), r.epoch.size());
        digests.emplace_back(r.digest.data(), r.digest.size());
      } else if (!r.valid) {
        invalid.emplace_back(r.digest.data(), r.digest.size());
      }
    }
    const std::set<server::InnerDigest> fresh = insert_seen(conn, epochs, digests);
    std::set<server::InnerDigest> quarantined;
    if (!invalid.empty()) {
      const pg::Result r =
          conn.query("SELECT digest FROM quarantine WHERE digest = ANY($1::bytea[])",
                     pg::Params().bytea_array(invalid));
      for (int i = 0; i < r.rows(); ++i) {
        const std::vector<uint8_t> b = r.bytes(i, 0);
        server::InnerDigest d{};
        if (b.size() != d.size()) throw StoreError("corrupt digest");
        std::copy(b.begin(), b.end(), d.begin());
        quarantined.insert(d);
      }
    }
    out.opened = screen([&](const OpenedRecord& r) {
      return r.valid ? fresh.count(r.digest) == 0 : quarantined.count(r.digest) > 0;
    });
    if (!out.opened.quarantine.empty()) {
      const pg::Result n = conn.query("SELECT count(*)::int8 FROM quarantine");
      out.quarantine = static_cast<uint64_t>(n.int8(0, 0));
      if (out.quarantine + out.opened.quarantine.size() > max_quarantine) {
        out.status = PgApplied::Status::quarantine_full;
        return out;  // rolled back: the sender keeps the batch
      }
      std::vector<std::pair<const uint8_t*, std::size_t>> q_digest, q_inner;
      std::vector<int32_t> q_position, q_crowd, q_reason;
      for (const std::size_t i : out.opened.quarantine) {
        q_digest.emplace_back(records[i].digest.data(), records[i].digest.size());
        q_inner.emplace_back(batch.records[i].inner.data(), batch.records[i].inner.size());
        q_position.push_back(static_cast<int32_t>(i));
        q_crowd.push_back(static_cast<int32_t>(batch.records[i].crowd_id));
        q_reason.push_back(static_cast<int32_t>(records[i].reason));
      }
      conn.query(
          "INSERT INTO quarantine(digest, batch_id, position, crowd_id, inner_ct, reason, "
          "quarantined_unix) SELECT d, $2, p, c, i, r, $7 FROM unnest($1::bytea[], "
          "$3::int4[], $4::int4[], $5::bytea[], $6::int4[]) AS t(d, p, c, i, r) "
          "ON CONFLICT (digest) DO NOTHING",
          pg::Params()
              .bytea_array(q_digest)
              .bytes(batch.id.data(), batch.id.size())
              .int4_array(q_position)
              .int4_array(q_crowd)
              .bytea_array(q_inner)
              .int4_array(q_reason)
              .int8(static_cast<int64_t>(now_unix)));
    }
    if (!out.opened.valid.empty()) add_to_shard(conn, sums(out.opened.valid));
    const pg::Result v =
        conn.query("SELECT coalesce(max(version), 0)::int8 FROM models WHERE kind = 0");
    out.version = static_cast<uint64_t>(v.int8(0, 0));
    const server::BatchAck ack = counts(out.opened);
    conn.query(
        "UPDATE applied_batches SET records = $2, applied = $3, quarantined = $4, refused = $5, "
        "version = $6 WHERE batch_id = $1",
        pg::Params()
            .bytes(batch.id.data(), batch.id.size())
            .int4(static_cast<int32_t>(ack.records))
            .int4(static_cast<int32_t>(ack.applied))
            .int4(static_cast<int32_t>(ack.quarantined))
            .bytes(reinterpret_cast<const uint8_t*>(ack.refused.data()), ack.refused.size() * 4)
            .int8(static_cast<int64_t>(out.version)));
    tx.commit();
    out.status = PgApplied::Status::applied;
    return out;
  });
}

std::vector<server::BatchId> PgAnalyzerStore::quarantined_batches() {
  return retried(&pool_, [](pg::Connection& conn) {
    std::vector<server::BatchId> out;
    const pg::Result r = conn.query(
        "SELECT batch_id FROM quarantine GROUP BY batch_id ORDER BY min(quarantined_unix), "
        "batch_id");
    for (int i = 0; i < r.rows(); ++i) {
      const std::vector<uint8_t> b = r.bytes(i, 0);
      server::BatchId id{};
      if (b.size() != id.size()) throw StoreError("corrupt row in quarantine");
      std::copy(b.begin(), b.end(), id.begin());
      out.push_back(id);
    }
    return out;
  });
}

std::vector<QuarantinedRecord> PgAnalyzerStore::quarantined(const server::BatchId& id) {
  return retried(&pool_, [&](pg::Connection& conn) {
    std::vector<QuarantinedRecord> out;
    const pg::Result r = conn.query(
        "SELECT digest, position, crowd_id, inner_ct, reason, quarantined_unix FROM quarantine "
        "WHERE batch_id = $1 ORDER BY position",
        pg::Params().bytes(id.data(), id.size()));
    for (int i = 0; i < r.rows(); ++i) {
      QuarantinedRecord q;
      q.digest = digest_at(r, i, 0);
      q.batch_id = id;
      q.position = static_cast<uint32_t>(r.int4(i, 1));
      q.crowd_id = static_cast<uint32_t>(r.int4(i, 2));
      const std::vector<uint8_t> inner = r.bytes(i, 3);
      if (inner.size() != q.inner.size()) throw StoreError("corrupt row in quarantine");
      std::copy(inner.begin(), inner.end(), q.inner.begin());
      q.reason = static_cast<RejectReason>(r.int4(i, 4));
      q.quarantined_unix = static_cast<uint64_t>(r.int8(i, 5));
      out.push_back(q);
    }
    return out;
  });
}

OpenedBatch PgAnalyzerStore::release(const std::vector<OpenedRecord>& now_valid,
                                     const ScreenRecords& screen, const Sums& sums) {
  return retried(&pool_, [&](pg::Connection& conn) {
    pg::Transaction tx(conn);
    conn.query("SELECT pg_advisory_xact_lock($1)", pg::Params().int8(kQuarantineLock));
    if (central_dp_bound_) pg_central_dp::check(conn, central_dp_);
    std::vector<std::pair<const uint8_t*, std::size_t>> all;
    all.reserve(now_valid.size());
    for (const OpenedRecord& r : now_valid) all.emplace_back(r.digest.data(), r.digest.size());
    const pg::Result taken =
        conn.query("DELETE FROM quarantine WHERE digest = ANY($1::bytea[]) RETURNING digest",
                   pg::Params().bytea_array(all));
    std::set<server::InnerDigest> mine;
    for (int i = 0; i < taken.rows(); ++i) mine.insert(digest_at(taken, i, 0));
    std::vector<OpenedRecord> records;
    std::vector<std::pair<const uint8_t*, std::size_t>> epochs, digests;
    for (const OpenedRecord& r : now_valid) {
      if (mine.count(r.digest) == 0) continue;
      records.push_back(r);
    }
    for (const OpenedRecord& r : records) {
      epochs.emplace_back(r.epoch.data(), r.epoch.size());
      digests.emplace_back(r.digest.data(), r.digest.size());
    }
    const std::set<server::InnerDigest> fresh = insert_seen(conn, epochs, digests);
    OpenedBatch out =
        screen(records, [&](const OpenedRecord& r) { return fresh.count(r.digest) == 0; });
    if (!out.valid.empty()) add_to_shard(conn, sums(out.valid));
    tx.commit();
    return out;
  });
}

bool PgAnalyzerStore::try_lead() {
  const std::lock_guard<std::mutex> lock(lead_mu_);
  if (lead_ && !lead_->healthy()) lead_.reset();  // the lock went with the session
  if (!lead_) lead_ = std::make_unique<pg::Connection>(pool_.conninfo());
  const pg::Result r =
      lead_->query("SELECT pg_try_advisory_lock($1)", pg::Params().int8(kPublisherLock));
  return r.boolean(0, 0);
}

uint64_t PgAnalyzerStore::accumulated_reports(ModelKind kind) {
  return retried(&pool_, [&](pg::Connection& conn) {
    const pg::Result r =
        conn.query("SELECT coalesce(sum(count), 0)::int8 FROM accumulators WHERE kind = $1",
                   pg::Params().int4(kind_id(kind)));
    return static_cast<uint64_t>(r.int8(0, 0));
  });
}

Statistics PgAnalyzerStore::sum_shards(ModelKind kind, uint32_t dim, uint32_t n_actions) {
  return retried(&pool_, [&](pg::Connection& conn) {
    Statistics s(dim, n_actions);
    const pg::Result r = conn.query(
        "SELECT arm, count, gram, reward FROM accumulators WHERE kind = $1 ORDER BY arm, shard",
        pg::Params().int4(kind_id(kind)));
    for (int i = 0; i < r.rows(); ++i) {
      const int32_t arm = r.int4(i, 0);
      const int64_t count = r.int8(i, 1);
      if (arm < 0 || static_cast<uint32_t>(arm) >= n_actions || count < 0) {
        throw StoreError("corrupt row in accumulators");
      }
      const auto a = static_cast<uint32_t>(arm);
      add_f64(r.bytes(i, 2), s.gram(a), static_cast<std::size_t>(dim) * dim);
      add_f64(r.bytes(i, 3), s.reward_sum(a), dim);
      s.set_count(a, s.count(a) + static_cast<uint64_t>(count));
    }
    return s;
  });
}

void PgAnalyzerStore::store_model(ModelKind kind, const SignedModel& model, uint64_t reports) {
  const std::lock_guard<std::mutex> lock(lead_mu_);
  if (!lead_) throw StoreError("not the publisher");
  pg::Transaction tx(*lead_);
  if (central_dp_bound_) pg_central_dp::check(*lead_, central_dp_);
  insert_model(*lead_, kind, model, reports, static_cast<double>(reports));
  tx.commit();
}

void PgAnalyzerStore::store_noisy_model(uint64_t version, uint64_t now_unix,
                                        const BuildNoisy& build) {
  const std::lock_guard<std::mutex> lock(lead_mu_);
  if (!lead_) throw StoreError("not the publisher");
  if (!central_dp_.enabled()) throw StoreError("central DP is off for this node");
  pg::Transaction tx(*lead_);
  pg_central_dp::check(*lead_, central_dp_);
  dp::NoiseSeed seed = pg_central_dp::seed_for_publication(*lead_);
  NoisyPublication p;
  try {
    p = build(seed);
  } catch (...) {
    sodium_memzero(seed.data(), seed.size());
    throw;
  }
  sodium_memzero(seed.data(), seed.size());
  if (p.model.version != version) throw StoreError("the noisy model is not the version charged");
  pg_central_dp::charge(*lead_, central_dp_, version, now_unix);
  insert_model(*lead_, ModelKind::private_reports, p.model, p.reports, p.released_reports);
  tx.commit();
}

uint64_t PgAnalyzerStore::central_dp_charges() {
  return retried(&pool_, [](pg::Connection& conn) { return pg_central_dp::charges(conn); });
}

void PgAnalyzerStore::bind_central_dp(const CentralDpConfig& want) {
  PgPool::Lease conn = pool_.take();
  pg::Transaction tx(*conn);
  pg_central_dp::bind(*conn, want);
  tx.commit();
  central_dp_ = want;
  central_dp_bound_ = true;
}

std::optional<StoredModel> PgAnalyzerStore::latest_model(
    ModelKind kind, uint64_t have_version, const std::shared_ptr<const StoredModel>& have) {
  return retried(&pool_, [&](pg::Connection& conn) -> std::optional<StoredModel> {
    const pg::Result head = conn.query(
        "SELECT version, created_unix, reports, coalesce(released_reports, reports::float8) "
        "FROM models WHERE kind = $1 "
        "ORDER BY version DESC LIMIT 1",
        pg::Params().int4(kind_id(kind)));
    if (head.rows() == 0) return std::nullopt;
    const auto version = static_cast<uint64_t>(head.int8(0, 0));
    if (have && version == have_version) return *have;
    const pg::Result r =
        conn.query("SELECT bundle FROM models WHERE kind = $1 AND version = $2",
                   pg::Params().int4(kind_id(kind)).int8(static_cast<int64_t>(version)));
    if (r.rows() == 0) return std::nullopt;  // dropped meanwhile: the next refresh sees a newer
    StoredModel m;
    m.model.version = version;
    m.model.created_unix = static_cast<uint64_t>(head.int8(0, 1));
    m.reports = static_cast<uint64_t>(head.int8(0, 2));
    m.released_reports = head.float8(0, 3);
    m.model.bundle = r.bytes(0, 0);
    return m;
  });
}

uint64_t PgAnalyzerStore::retire_epoch(const std::string& conninfo, const Epoch& epoch,
                                       uint64_t now_unix) {
  pg::Connection conn(conninfo);
  pg::migrate(conn, "analyzer", migrations());
  pg::Transaction tx(conn);
  // Waits for workers opening epochs, and (the DROP) for every transaction
  // still writing into this partition.
  conn.query("SELECT pg_advisory_xact_lock($1)", pg::Params().int8(kEpochLock));
  const pg::Result exists =
      conn.query("SELECT 1 FROM pg_class WHERE relname = $1 AND relkind = 'r'",
                 pg::Params().text(partition_name(epoch)));
  uint64_t dropped = 0;
  if (exists.rows() > 0) {
    const pg::Result n = conn.query("SELECT count(*)::int8 FROM " + partition_name(epoch));
    dropped = static_cast<uint64_t>(n.int8(0, 0));
  }
  conn.query(
      "INSERT INTO retired_epochs(epoch, retired_unix, digests_dropped) VALUES ($1, $2, $3) "
      "ON CONFLICT (epoch) DO NOTHING",
      pg::Params()
          .bytes(epoch.data(), epoch.size())
          .int8(static_cast<int64_t>(now_unix))
          .int8(static_cast<int64_t>(dropped)));
  conn.exec("DROP TABLE IF EXISTS " + partition_name(epoch));
  tx.commit();
  return dropped;
}

}  // namespace p2b::analyzer
