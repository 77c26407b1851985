// The codebook trainer (tools/codebook): grid, determinism across thread
// counts, Lloyd against a plain double-precision reference, mini-batch, the
// file it writes, and the CLI's refusals. Sizes are small: the 92k-point
// benchmark lives in docs/codebook.md.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "codebook/cluster_stats.hpp"
#include "codebook/codebook_file.hpp"
#include "codebook/distance.hpp"
#include "codebook/kmeans_lloyd.hpp"
#include "codebook/kmeans_minibatch.hpp"
#include "codebook/kmeans_refine.hpp"
#include "codebook/kmeans_seed.hpp"
#include "codebook/simplex_grid.hpp"
#include "p2b.h"

namespace cb = p2b::codebook;
namespace fs = std::filesystem;

namespace {

std::vector<float> seeds_for(const std::vector<float>& pts, uint32_t d, uint32_t k, uint64_t seed,
                             unsigned threads) {
  cb::SeedOptions so;
  so.seed = seed;
  so.threads = threads;
  return cb::seed_kmeanspp(pts.data(), pts.size() / d, d, k, so);
}

cb::LloydResult train(const std::vector<float>& pts, uint32_t d, uint32_t k, uint64_t seed,
                      unsigned threads) {
  cb::LloydOptions lo;
  lo.threads = threads;
  return cb::lloyd(pts.data(), pts.size() / d, d, seeds_for(pts, d, k, seed, threads), lo);
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Plain Lloyd in double: full scans, ties to the lower index, run until no
// point moves. The reference the pruned trainer must agree with.
std::vector<double> reference_lloyd(const std::vector<float>& pts, uint32_t d,
                                    const std::vector<float>& seeds) {
  const std::size_t n = pts.size() / d, k = seeds.size() / d;
  std::vector<double> c(seeds.begin(), seeds.end());
  std::vector<std::size_t> label(n, k);
  for (bool moved = true; moved;) {
    moved = false;
    for (std::size_t p = 0; p < n; ++p) {
      double best = std::numeric_limits<double>::infinity();
      std::size_t arg = 0;
      for (std::size_t j = 0; j < k; ++j) {
        double s = 0.0;
        for (uint32_t i = 0; i < d; ++i) s += std::pow(pts[p * d + i] - c[j * d + i], 2);
        if (s < best) best = s, arg = j;
      }
      moved = moved || label[p] != arg;
      label[p] = arg;
    }
    std::vector<double> sum(k * d, 0.0);
    std::vector<std::size_t> count(k, 0);
    for (std::size_t p = 0; p < n; ++p) {
      ++count[label[p]];
      for (uint32_t i = 0; i < d; ++i) sum[label[p] * d + i] += pts[p * d + i];
    }
    for (std::size_t j = 0; j < k; ++j) {
      for (uint32_t i = 0; i < d && count[j] > 0; ++i) c[j * d + i] = sum[j * d + i] / count[j];
    }
  }
  return c;
}

int run_cli(const std::string& args) {
  const std::string cmd = std::string(P2B_CODEBOOK_BIN) + " " + args + " >/dev/null 2>&1";
  const int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

fs::path temp_dir(const std::string& name) {
  fs::path dir = fs::path(P2B_TEST_TMP) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST(SimplexGrid, CountsMatchStarsAndBars) {
  EXPECT_EQ(cb::grid_point_count(10, 1), 92'378U);
  EXPECT_EQ(cb::grid_point_count(20, 1), 20'030'010U);
  EXPECT_EQ(cb::grid_point_count(3, 2), 5'151U);  // C(102, 2)
  EXPECT_EQ(cb::grid_point_count(2, 1), 11U);
  EXPECT_EQ(cb::grid_point_count(64, 6), std::numeric_limits<uint64_t>::max());  // saturates
}

TEST(SimplexGrid, EveryPointIsOnTheGridAndSumsToOne) {
  for (const auto& [d, q] : {std::pair<uint32_t, uint32_t>{4, 1}, {6, 1}, {3, 2}}) {
    const std::vector<float> g = cb::enumerate_grid(d, q);
    ASSERT_EQ(g.size() / d, cb::grid_point_count(d, q));
    const double units = std::pow(10.0, q);
    for (std::size_t p = 0; p < g.size() / d; ++p) {
      double sum = 0.0;
      for (uint32_t i = 0; i < d; ++i) {
        const double v = g[p * d + i];
        EXPECT_NEAR(v * units, std::round(v * units), 1e-4);
        sum += v;
      }
      EXPECT_NEAR(sum, 1.0, 1e-5);
      if (p > 0) {
        EXPECT_NE(std::memcmp(&g[p * d], &g[(p - 1) * d], d * sizeof(float)), 0);
      }
    }
  }
}

TEST(SimplexGrid, SamplesAreGridPointsAndIndependentOfThreads) {
  const std::vector<float> a = cb::sample_grid(20, 1, 5000, 7, 1);
  const std::vector<float> b = cb::sample_grid(20, 1, 5000, 7, 2);
  EXPECT_TRUE(same_bits(a, b));
  for (std::size_t p = 0; p < 5000; ++p) {
    double sum = 0.0;
    for (uint32_t i = 0; i < 20; ++i) sum += a[p * 20 + i];
    ASSERT_NEAR(sum, 1.0, 1e-5);
  }
}

TEST(Lloyd, BitIdenticalForOneAndTwoThreads) {
  const std::vector<float> g = cb::enumerate_grid(6, 1);  // 3003 points
  const cb::LloydResult one = train(g, 6, 40, 3, 1);
  const cb::LloydResult two = train(g, 6, 40, 3, 2);
  EXPECT_TRUE(one.converged);
  EXPECT_TRUE(same_bits(one.centroids, two.centroids));
  EXPECT_EQ(one.labels, two.labels);
  EXPECT_EQ(one.iterations, two.iterations);
}

TEST(Lloyd, InertiaNeverIncreases) {
  const std::vector<float> g = cb::enumerate_grid(6, 1);
  std::vector<double> trace;
  cb::LloydOptions lo;
  lo.threads = 2;
  lo.track_inertia = true;
  lo.on_iteration = [&](int, std::size_t, double inertia) { trace.push_back(inertia); };
  const cb::LloydResult r = cb::lloyd(g.data(), g.size() / 6, 6, seeds_for(g, 6, 40, 5, 2), lo);
  ASSERT_GE(trace.size(), 3U);
  for (std::size_t i = 1; i < trace.size(); ++i) {
    EXPECT_LE(trace[i], trace[i - 1] * (1.0 + 1e-12)) << "iteration " << i + 1;
  }
  const cb::ClusterStats s =
      cb::stats_from_labels(g.data(), g.size() / 6, 6, r.centroids, r.labels, 1);
  EXPECT_DOUBLE_EQ(s.inertia, trace.back());
}

TEST(Lloyd, MatchesPlainDoubleReference) {
  // Random points, so no exact ties: the pruned float trainer and a plain
  // double Lloyd from the same seeds must reach the same centroids.
  cb::Rng rng(11);
  const uint32_t d = 3, k = 12;
  std::vector<float> pts(std::size_t{600} * d);
  for (float& v : pts) v = static_cast<float>(rng.uniform());
  const std::vector<float> seeds = seeds_for(pts, d, k, 2, 2);
  cb::LloydOptions lo;
  lo.threads = 2;
  lo.groups = 3;  // several groups, so the group bounds are exercised
  const cb::LloydResult r = cb::lloyd(pts.data(), 600, d, seeds, lo);
  const std::vector<double> ref = reference_lloyd(pts, d, seeds);
  ASSERT_TRUE(r.converged);
  for (std::size_t i = 0; i < ref.size(); ++i) EXPECT_NEAR(r.centroids[i], ref[i], 1e-5) << i;
}

TEST(Lloyd, LabelsAreNearestCentroids) {
  const std::vector<float> g = cb::enumerate_grid(6, 1);
  const cb::LloydResult r = train(g, 6, 64, 9, 2);
  const cb::ClusterStats pruned =
      cb::stats_from_labels(g.data(), g.size() / 6, 6, r.centroids, r.labels, 2);
  const cb::ClusterStats full = cb::evaluate(g.data(), g.size() / 6, 6, r.centroids, 2);
  EXPECT_NEAR(pruned.inertia, full.inertia, 1e-9 * full.inertia);
}

TEST(Refine, NeverIncreasesInertiaAndIsThreadIndependent) {
  // d=6 grid, k=64: Lloyd stops at a lattice fixed point that Hartigan moves
  // improve on. 1 and 2 threads must agree bit for bit.
  const std::vector<float> g = cb::enumerate_grid(6, 1);
  const std::size_t n = g.size() / 6;
  std::size_t total_moves = 0;
  for (uint64_t seed : {1, 2, 3}) {
    cb::LloydResult one = train(g, 6, 64, seed, 1);
    cb::LloydResult two = train(g, 6, 64, seed, 2);
    const double before =
        cb::stats_from_labels(g.data(), n, 6, one.centroids, one.labels, 1).inertia;
    std::vector<double> trace;
    cb::RefineOptions ro;
    ro.threads = 1;
    ro.on_round = [&](int, std::size_t moves) { trace.push_back(static_cast<double>(moves)); };
    const cb::RefineResult a = cb::hartigan_refine(g.data(), n, 6, &one, ro);
    ro.threads = 2;
    ro.on_round = nullptr;
    const cb::RefineResult b = cb::hartigan_refine(g.data(), n, 6, &two, ro);
    EXPECT_TRUE(a.converged);
    EXPECT_TRUE(one.converged);
    EXPECT_TRUE(same_bits(one.centroids, two.centroids)) << "seed " << seed;
    EXPECT_EQ(one.labels, two.labels);
    EXPECT_EQ(a.moves, b.moves);
    EXPECT_EQ(a.lloyd_iterations, b.lloyd_iterations);
    ASSERT_FALSE(trace.empty());
    EXPECT_EQ(trace.back(), 0.0);  // converged: the last round found no move
    const double after =
        cb::stats_from_labels(g.data(), n, 6, one.centroids, one.labels, 1).inertia;
    EXPECT_LE(after, before * (1.0 + 1e-9)) << "seed " << seed;
    if (a.moves > 0) {
      EXPECT_LT(after, before) << "seed " << seed;
    }
    total_moves += a.moves;
    // The labels are still the nearest centroids.
    const double full = cb::evaluate(g.data(), n, 6, one.centroids, 2).inertia;
    EXPECT_NEAR(after, full, 1e-9 * full);
  }
  EXPECT_GT(total_moves, 0U);  // the refinement was exercised
}

TEST(Refine, EveryRoundLowersInertia) {
  // Round by round on random points (no ties): each round's Hartigan moves
  // and Lloyd re-run never raise the inertia.
  cb::Rng rng(21);
  const uint32_t d = 4, k = 30;
  std::vector<float> pts(std::size_t{3000} * d);
  for (float& v : pts) v = static_cast<float>(rng.uniform());
  cb::LloydResult r = train(pts, d, k, 4, 2);
  double last = cb::stats_from_labels(pts.data(), 3000, d, r.centroids, r.labels, 1).inertia;
  for (int round = 0; round < 20; ++round) {
    cb::RefineOptions ro;
    ro.threads = 2;
    ro.max_rounds = 1;
    const cb::RefineResult rr = cb::hartigan_refine(pts.data(), 3000, d, &r, ro);
    const double now = cb::stats_from_labels(pts.data(), 3000, d, r.centroids, r.labels, 1).inertia;
    EXPECT_LE(now, last * (1.0 + 1e-9)) << "round " << round;
    last = now;
    if (rr.moves == 0) break;
  }
}

TEST(Seeding, GreedyBeatsPlainOnPotential) {
  const std::vector<float> g = cb::enumerate_grid(6, 1);
  auto potential = [&](uint32_t trials) {
    cb::SeedOptions so;
    so.seed = 4;
    so.threads = 2;
    so.local_trials = trials;
    return cb::evaluate(g.data(), g.size() / 6, 6, cb::seed_kmeanspp(g.data(), 3003, 6, 40, so), 1)
        .inertia;
  };
  EXPECT_LT(potential(0), potential(1));
}

TEST(MiniBatch, DeterministicAndCloseToLloyd) {
  cb::MiniBatchOptions mo;
  mo.seed = 1;
  mo.batch_size = 512;
  mo.max_iterations = 60;
  mo.threads = 1;
  const cb::MiniBatchResult one = cb::minibatch_kmeans(6, 1, 32, mo);
  mo.threads = 2;
  const cb::MiniBatchResult two = cb::minibatch_kmeans(6, 1, 32, mo);
  EXPECT_TRUE(same_bits(one.centroids, two.centroids));
  const std::vector<float> g = cb::enumerate_grid(6, 1);
  const double mb = cb::evaluate(g.data(), g.size() / 6, 6, one.centroids, 2).inertia;
  const cb::LloydResult full = train(g, 6, 32, 1, 2);
  const double lloyd =
      cb::stats_from_labels(g.data(), g.size() / 6, 6, full.centroids, full.labels, 2).inertia;
  // The stated bound (docs/codebook.md): mini-batch within 15% of Lloyd here.
  EXPECT_LT(mb, 1.15 * lloyd);
}

TEST(MiniBatch, StopsEarlyOnceTheSmoothedInertiaStallsAndNotWhenTurnedOff) {
  cb::MiniBatchOptions mo;
  mo.seed = 3;
  mo.batch_size = 512;
  mo.max_iterations = 1000;
  mo.threads = 2;
  // 3,003 grid points, 16 centres: the smoothed inertia settles within a few
  // dozen batches of 512, so the stop must come long before 1,000.
  const cb::MiniBatchResult early = cb::minibatch_kmeans(6, 1, 16, mo);
  EXPECT_TRUE(early.stopped_early);
  EXPECT_GT(early.iterations, mo.max_no_improvement);  // never before the patience
  EXPECT_LT(early.iterations, 1000);
  mo.threads = 1;  // the stop does not depend on the threads either
  const cb::MiniBatchResult one = cb::minibatch_kmeans(6, 1, 16, mo);
  EXPECT_EQ(one.iterations, early.iterations);
  EXPECT_TRUE(same_bits(one.centroids, early.centroids));
  mo.max_no_improvement = 0;
  mo.max_iterations = 150;
  const cb::MiniBatchResult all = cb::minibatch_kmeans(6, 1, 16, mo);
  EXPECT_FALSE(all.stopped_early);
  EXPECT_EQ(all.iterations, 150);
}

TEST(Distance, NearestCentreIsTheLowestIndexAmongTies) {
  // Centres (dim-major, k = 11): every one at distance 1 from x except two
  // equal nearest ones at 5 and 9.
  const uint32_t d = 2, k = 11;
  std::vector<float> t(static_cast<std::size_t>(d) * k);
  for (uint32_t c = 0; c < k; ++c) {
    t[c] = 1.0F;
    t[k + c] = 0.0F;
  }
  t[5] = t[9] = 0.5F;
  const float x[2] = {0.0F, 0.0F};
  std::vector<float> scratch(k);
  float d2 = 0;
  EXPECT_EQ(cb::nearest_centre(x, t.data(), d, k, scratch.data(), &d2), 5U);
  EXPECT_EQ(d2, 0.25F);
  // Against a plain scan on random centres.
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<float> u(0, 1);
  for (int trial = 0; trial < 200; ++trial) {
    for (float& v : t) v = std::round(u(gen) * 4) / 4;  // coarse, so ties happen
    const float y[2] = {std::round(u(gen) * 4) / 4, std::round(u(gen) * 4) / 4};
    uint32_t want = 0;
    float want_d2 = 1e30F;
    for (uint32_t c = 0; c < k; ++c) {
      const float a = y[0] - t[c], b = y[1] - t[k + c];
      const float dist = 0.0F + a * a + b * b;
      if (dist < want_d2) want_d2 = dist, want = c;
    }
    EXPECT_EQ(cb::nearest_centre(y, t.data(), d, k, scratch.data(), &d2), want) << trial;
  }
}

TEST(Crowds, ExpectedReportsPerCode) {
  const cb::CrowdEstimate e = cb::estimate_crowds({30, 10, 60}, 1000, 0.5, 100);
  EXPECT_DOUBLE_EQ(e.smallest_expected, 50.0);  // 1000 * 0.5 * 10 / 100
  EXPECT_EQ(e.smallest_code, 1U);
  EXPECT_EQ(e.below_threshold, 1U);  // 50 is below 100; 150 and 300 are not
}

TEST(CodebookFile, RoundTripsThroughTheCApi) {
  const fs::path dir = temp_dir("roundtrip");
  const std::vector<float> g = cb::enumerate_grid(5, 1);
  const cb::LloydResult r = train(g, 5, 16, 8, 2);
  const std::string file = (dir / "cb.p2bc").string();
  std::string err;
  ASSERT_TRUE(cb::write_codebook_file(file, r.centroids, 5, 1, false, &err)) << err;
  std::ifstream in(file, std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
  std::vector<float> back(r.centroids.size());
  p2b_codebook_info info{};
  ASSERT_EQ(p2b_codebook_parse(bytes.data(), bytes.size(), back.data(), back.size(), &info),
            P2B_OK);
  EXPECT_EQ(info.k, 16U);
  EXPECT_EQ(info.dim, 5U);
  EXPECT_EQ(info.digits, 1U);
  EXPECT_TRUE(same_bits(back, r.centroids));
  // An existing file is kept unless forced.
  EXPECT_FALSE(cb::write_codebook_file(file, r.centroids, 5, 1, false, &err));
  EXPECT_NE(err.find("exists"), std::string::npos);
  EXPECT_TRUE(cb::write_codebook_file(file, r.centroids, 5, 1, true, &err)) << err;
}

TEST(Cli, BadArgumentsExitTwo) {
  const std::string out = (temp_dir("cli-bad") / "x.p2bc").string();
  EXPECT_EQ(run_cli("--dim 1 --codes 4 --out " + out), 2);
  EXPECT_EQ(run_cli("--dim 4 --codes 0 --out " + out), 2);
  EXPECT_EQ(run_cli("--dim 4 --codes 4"), 2);                 // no --out
  EXPECT_EQ(run_cli("--dim 4 --codes 500 --out " + out), 2);  // 286 grid points
  EXPECT_EQ(run_cli("--dim 4 --codes 4 --threads two --out " + out), 2);
  EXPECT_EQ(run_cli("--dim 4 --codes 4 --digits 7 --out " + out), 2);
  EXPECT_EQ(run_cli("--dim 4 --codes 4 --population 100 --out " + out), 2);  // no --threshold
  EXPECT_EQ(
      run_cli("--dim 4 --codes 4 --participation 1.5 --population 9 --threshold 2 --out " + out),
      2);
  EXPECT_EQ(run_cli("--dim 4 --codes 4 --bogus --out " + out), 2);
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(run_cli("--help"), 0);
}

TEST(Cli, RefusesToOverwriteWithoutForce) {
  const fs::path out = temp_dir("cli-force") / "cb.p2bc";
  const std::string args = "--dim 4 --codes 8 --seed 2 --quiet --out " + out.string();
  ASSERT_EQ(run_cli(args), 0);
  const auto first = fs::file_size(out);
  { std::ofstream(out, std::ios::trunc) << "keep me"; }
  EXPECT_EQ(run_cli(args), 2);
  EXPECT_EQ(fs::file_size(out), 7U);
  EXPECT_EQ(run_cli(args + " --force"), 0);
  EXPECT_EQ(fs::file_size(out), first);
}
