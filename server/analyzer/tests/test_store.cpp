// The SQLite store: a reopened analyzer serves exactly what it served before
// (statistics and bundle bytes), applied batch ids survive, the store refuses
// another configuration, and a failed commit changes nothing.
#include <gtest/gtest.h>

#include <random>

#include "analyzer_test_support.hpp"

namespace {

using analyzer_test::Deployment;
using analyzer_test::Harness;
using analyzer_test::TempDir;
namespace an = p2b::analyzer;

TEST(AnalyzerStore, ReopenGivesIdenticalStatisticsAndBundle) {
  const Deployment dep(5, 16);
  const TempDir tmp;
  const std::string db = tmp.file("s.db");
  std::mt19937_64 rng(5);
  an::Statistics stats, raw_stats;
  std::vector<uint8_t> bundle, raw_bundle;
  p2b::server::Batch first;
  {
    Harness h(dep, db, 3, an::AggregationMode::centroid, true);
    first = analyzer_test::make_batch(dep, analyzer_test::random_tuples(rng, 60, 16, 3));
    analyzer_test::apply(*h.analyzer, first);
    analyzer_test::apply(
        *h.analyzer, analyzer_test::make_batch(dep, analyzer_test::random_tuples(rng, 60, 16, 3)));
    an::RawBatch raw;
    std::string err;
    const std::vector<uint8_t> body = an::encode_raw(5, {1, 2, 3, 4, 5}, {2}, {1.0F});
    ASSERT_TRUE(an::decode_raw(body.data(), body.size(), 5, 3, &raw, &err)) << err;
    h.analyzer->apply_raw(raw);
    stats = h.analyzer->statistics(an::ModelKind::private_reports);
    raw_stats = h.analyzer->statistics(an::ModelKind::raw_baseline);
    bundle = h.analyzer->model(an::ModelKind::private_reports)->bundle;
    raw_bundle = h.analyzer->model(an::ModelKind::raw_baseline)->bundle;
  }
  Harness again(dep, db, 3, an::AggregationMode::centroid, true);
  EXPECT_EQ(again.analyzer->statistics(an::ModelKind::private_reports), stats);
  EXPECT_EQ(again.analyzer->statistics(an::ModelKind::raw_baseline), raw_stats);
  const auto model = again.analyzer->model(an::ModelKind::private_reports);
  ASSERT_TRUE(model);
  EXPECT_EQ(model->version, 2u);
  EXPECT_EQ(model->bundle, bundle);
  EXPECT_EQ(again.analyzer->model(an::ModelKind::raw_baseline)->bundle, raw_bundle);
  EXPECT_EQ(again.analyzer->model(an::ModelKind::raw_baseline)->version, 1u);
  // The batch applied before the restart is still known.
  EXPECT_EQ(analyzer_test::apply(*again.analyzer, first).result, an::BatchResult::duplicate);
  EXPECT_EQ(again.analyzer->model(an::ModelKind::private_reports)->version, 2u);
  EXPECT_NE(again.metrics.prometheus_text().find("p2b_analyzer_model_version 2"),
            std::string::npos);
}

TEST(AnalyzerStore, AStoreOfAnotherConfigurationIsRefused) {
  const Deployment dep(5, 16);
  const TempDir tmp;
  const std::string db = tmp.file("s.db");
  { Harness h(dep, db, 3); }
  EXPECT_THROW(Harness(dep, db, 4), an::StoreError);
  EXPECT_THROW(Harness(dep, db, 3, an::AggregationMode::paper), an::StoreError);
  const Deployment other(5, 17);
  EXPECT_THROW(Harness(other, db, 3), an::StoreError);
  EXPECT_NO_THROW(Harness(dep, db, 3));
}

TEST(AnalyzerStore, UnopenablePathThrows) {
  const TempDir tmp;
  EXPECT_THROW(an::SqliteModelStore(tmp.file("missing-dir/s.db")), an::StoreError);
  // A file that is not a database.
  const std::string junk = tmp.file("junk.db");
  FILE* f = std::fopen(junk.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fputs("this is certainly not an SQLite database, not even close to one", f);
  std::fclose(f);
  EXPECT_THROW(an::SqliteModelStore{junk}, an::StoreError);
}

// Passes everything to a real store, but can be told to fail the next
// commit, as a full disk or a kill before COMMIT would.
class FlakyStore : public an::ModelStore {
 public:
  explicit FlakyStore(an::ModelStore* inner) : inner_(inner) {}
  void bind(const an::StoreIdentity& id) override { inner_->bind(id); }
  void load(an::ModelKind k, an::Statistics* s, an::SignedModel* m) override {
    inner_->load(k, s, m);
  }
  std::optional<an::AppliedBatch> find_batch(const p2b::server::BatchId& id) override {
    return inner_->find_batch(id);
  }
  bool inner_seen(const p2b::server::InnerDigest& d) override { return inner_->inner_seen(d); }
  void commit(const an::Commit& c) override {
    if (fail_next) {
      fail_next = false;
      throw an::StoreError("injected failure");
    }
    inner_->commit(c);
  }
  bool fail_next = false;

 private:
  an::ModelStore* inner_;
};

TEST(AnalyzerStore, AFailedCommitChangesNothingAndTheRetryAppliesOnce) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  an::SqliteModelStore sqlite(tmp.file("s.db"));
  FlakyStore flaky(&sqlite);
  std::ostringstream sink;
  an::Logger log(&sink);
  an::Metrics metrics;
  an::AnalyzerSettings s = analyzer_test::settings(2);
  an::Analyzer analyzer(s, dep.codebook, dep.key_ring(), &flaky, &metrics, &log);
  std::mt19937_64 rng(6);
  const p2b::server::Batch b1 =
      analyzer_test::make_batch(dep, analyzer_test::random_tuples(rng, 20, 8, 2));
  analyzer_test::apply(analyzer, b1);
  const an::Statistics before = analyzer.statistics(an::ModelKind::private_reports);
  const std::vector<uint8_t> bundle = analyzer.model(an::ModelKind::private_reports)->bundle;

  const p2b::server::Batch b2 =
      analyzer_test::make_batch(dep, analyzer_test::random_tuples(rng, 20, 8, 2));
  flaky.fail_next = true;
  EXPECT_TRUE(analyzer.last_publish_ok());
  EXPECT_THROW(analyzer_test::apply(analyzer, b2), an::StoreError);
  EXPECT_FALSE(analyzer.last_publish_ok()) << "/readyz reports the publisher failing";
  EXPECT_EQ(analyzer.statistics(an::ModelKind::private_reports), before);
  EXPECT_EQ(analyzer.model(an::ModelKind::private_reports)->bundle, bundle);
  EXPECT_FALSE(sqlite.find_batch(b2.id).has_value());
  for (const p2b::server::BatchRecord& r : b2.records) {
    EXPECT_FALSE(sqlite.inner_seen(p2b::server::inner_digest(r.inner)));
  }

  const an::BatchOutcome retry = analyzer_test::apply(analyzer, b2);
  EXPECT_EQ(retry.result, an::BatchResult::applied);
  EXPECT_EQ(retry.version, 2u);
  EXPECT_TRUE(analyzer.last_publish_ok());
  EXPECT_EQ(analyzer_test::apply(analyzer, b2).result, an::BatchResult::duplicate);
  EXPECT_EQ(analyzer.statistics(an::ModelKind::private_reports).total_count(), 40u);
}

TEST(AnalyzerStore, VersionsMustAdvanceByOne) {
  // A second writer on the same file would make the versions diverge; the
  // store refuses rather than overwrite the other's model.
  const Deployment dep(4, 8);
  const TempDir tmp;
  const std::string db = tmp.file("s.db");
  Harness a(dep, db, 2);
  Harness b(dep, db, 2);
  std::mt19937_64 rng(7);
  analyzer_test::apply(*a.analyzer,
                       analyzer_test::make_batch(dep, analyzer_test::random_tuples(rng, 5, 8, 2)));
  EXPECT_THROW(
      analyzer_test::apply(
          *b.analyzer, analyzer_test::make_batch(dep, analyzer_test::random_tuples(rng, 5, 8, 2))),
      an::StoreError);
}

}  // namespace
