// p2b-codebook: trains the encoder's k-means codebook over the q-digit
// simplex grid and writes it in the shared codebook file format.
// Algorithm, determinism and benchmark figures: docs/codebook.md.
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "codebook/cluster_stats.hpp"
#include "codebook/codebook_file.hpp"
#include "codebook/kmeans_lloyd.hpp"
#include "codebook/kmeans_minibatch.hpp"
#include "codebook/kmeans_refine.hpp"
#include "codebook/kmeans_seed.hpp"
#include "codebook/simplex_grid.hpp"

namespace cb = p2b::codebook;

namespace {

// Grids up to this many points are trained whole (Lloyd); larger ones only
// by mini-batch over samples.
constexpr uint64_t kMaxFullGrid = 2'000'000;
// Mini-batch runs on large grids are scored on this fixed sample, the same
// for every --seed so runs compare.
constexpr std::size_t kEvalPoints = 262'144;
constexpr uint64_t kEvalSeed = 0x70326265ULL;  // "p2be"

constexpr const char* kUsage =
    "usage: p2b-codebook --dim D --codes K --out FILE [--digits Q] [--seed S] [--threads N]\n"
    "                    [--mini-batch] [--batch-size B] [--max-iterations I] [--no-refine]\n"
    "                    [--population N --threshold L [--participation P]]\n"
    "                    [--force] [--quiet]\n";

constexpr const char* kHelp =
    "Trains the P2B encoder codebook: k-means over every context normalised to sum 1\n"
    "and kept to Q decimal digits (the simplex grid, C(10^Q + D - 1, D - 1) points).\n"
    "\n"
    "  --dim D             context dimension d (2..64)\n"
    "  --digits Q          decimal digits q (1..6, default 1)\n"
    "  --codes K           codebook size k (1..65536, at most the grid size)\n"
    "  --seed S            random seed (default 0); same seed, same file, any --threads\n"
    "  --threads N         worker threads (default: all cores)\n"
    "  --out FILE          codebook file to write; refused if it exists unless --force\n"
    "  --mini-batch        mini-batch k-means on streamed grid samples (automatic above\n"
    "                      2,000,000 grid points); otherwise Lloyd on the whole grid\n"
    "  --batch-size B      mini-batch size (default 4096)\n"
    "  --max-iterations I  Lloyd iterations (default 1000, stops earlier when no point\n"
    "                      moves) or mini-batch batches (default 1000)\n"
    "  --no-refine         skip the Hartigan refinement after Lloyd\n"
    "  --population N      devices reporting, with --threshold: expected crowd per code\n"
    "  --threshold L       shuffler crowd-blending threshold l\n"
    "  --participation P   report probability p (default 0.5)\n"
    "  --force             replace an existing --out\n"
    "  --quiet             no progress line on stderr\n"
    "\n"
    "Prints inertia, smallest and largest cluster, iterations and time. Exit status:\n"
    "0 done, 1 failed, 2 bad arguments.\n";

struct Options {
  uint32_t dim = 0, digits = 1, codes = 0;
  uint64_t seed = 0;
  unsigned threads = 0;
  std::string out;
  bool mini_batch = false, force = false, quiet = false, refine = true;
  std::size_t batch_size = 4096;
  int max_iterations = 1000;
  double population = 0.0, threshold = 0.0, participation = 0.5;
};

int bad(const std::string& msg) {
  std::fprintf(stderr, "p2b-codebook: %s\n%s", msg.c_str(), kUsage);
  return 2;
}

bool parse_u64(const char* s, uint64_t lo, uint64_t hi, uint64_t* v) {
  if (*s == '\0' || *s == '-') return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long long x = std::strtoull(s, &end, 10);
  if (errno != 0 || *end != '\0' || x < lo || x > hi) return false;
  *v = x;
  return true;
}

bool parse_double(const char* s, double lo, double hi, double* v) {
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(s, &end);
  if (*s == '\0' || errno != 0 || *end != '\0' || !std::isfinite(x) || x < lo || x > hi) {
    return false;
  }
  *v = x;
  return true;
}

// Returns 0 when parsed, else the exit status (2 bad arguments, -1 help shown).
int parse(int argc, char** argv, Options* o) {
  bool have_dim = false, have_codes = false, have_pop = false, have_threshold = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::printf("%s\n%s", kUsage, kHelp);
      return -1;
    }
    if (a == "--mini-batch") {
      o->mini_batch = true;
      continue;
    }
    if (a == "--no-refine") {
      o->refine = false;
      continue;
    }
    if (a == "--force") {
      o->force = true;
      continue;
    }
    if (a == "--quiet") {
      o->quiet = true;
      continue;
    }
    if (i + 1 >= argc) return bad(a + " needs a value (or is unknown)");
    const char* v = argv[++i];
    uint64_t u = 0;
    auto u64 = [&](uint64_t lo, uint64_t hi) {
      if (parse_u64(v, lo, hi, &u)) return true;
      bad(a + " must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi) +
          ", got '" + v + "'");
      return false;
    };
    auto real = [&](double lo, double hi, double* out) {
      if (parse_double(v, lo, hi, out)) return true;
      bad(a + " must be a number in [" + std::to_string(lo) + ", " + std::to_string(hi) +
          "], got '" + v + "'");
      return false;
    };
    if (a == "--dim") {
      if (!u64(2, 64)) return 2;
      o->dim = static_cast<uint32_t>(u), have_dim = true;
    } else if (a == "--digits") {
      if (!u64(1, 6)) return 2;
      o->digits = static_cast<uint32_t>(u);
    } else if (a == "--codes") {
      if (!u64(1, 65536)) return 2;
      o->codes = static_cast<uint32_t>(u), have_codes = true;
    } else if (a == "--seed") {
      if (!u64(0, UINT64_MAX)) return 2;
      o->seed = u;
    } else if (a == "--threads") {
      if (!u64(1, 256)) return 2;
      o->threads = static_cast<unsigned>(u);
    } else if (a == "--out") {
      if (*v == '\0') return bad("--out must not be empty");
      o->out = v;
    } else if (a == "--batch-size") {
      if (!u64(1, 1'000'000)) return 2;
      o->batch_size = u;
    } else if (a == "--max-iterations") {
      if (!u64(1, 1'000'000)) return 2;
      o->max_iterations = static_cast<int>(u);
    } else if (a == "--population") {
      if (!real(1.0, 1e12, &o->population)) return 2;
      have_pop = true;
    } else if (a == "--threshold") {
      if (!real(1.0, 1e9, &o->threshold)) return 2;
      have_threshold = true;
    } else if (a == "--participation") {
      if (!real(1e-9, 1.0, &o->participation)) return 2;
    } else {
      return bad("unknown option " + a);
    }
  }
  if (!have_dim || !have_codes || o->out.empty()) return bad("--dim, --codes and --out are needed");
  if (have_pop != have_threshold) return bad("--population and --threshold go together");
  if (o->threads == 0) o->threads = std::max(1U, std::thread::hardware_concurrency());
  return 0;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void print_crowds(const Options& o, const cb::ClusterStats& s) {
  const cb::CrowdEstimate e =
      cb::estimate_crowds(s.sizes, o.population, o.participation, o.threshold);
  double total = 0.0;
  for (uint64_t v : s.sizes) total += static_cast<double>(v);
  const double largest = static_cast<double>(s.largest) * o.population * o.participation / total;
  std::printf(
      "  crowds      population %.0f x participation %.2f, contexts assumed uniform over the "
      "grid:\n"
      "              expected reports per code %.1f (smallest, code %u) .. %.1f (largest); "
      "l = %.0f\n",
      o.population, o.participation, e.smallest_expected, e.smallest_code, largest, o.threshold);
  if (e.below_threshold > 0) {
    std::printf(
        "WARNING: smallest expected crowd %.1f is below the threshold l = %.0f: %u of %zu codes "
        "would be suppressed by the shuffler on average (fewer codes or more devices help)\n",
        e.smallest_expected, o.threshold, e.below_threshold, s.sizes.size());
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  const int rc = parse(argc, argv, &o);
  if (rc != 0) return rc < 0 ? 0 : rc;
  const uint64_t grid = cb::grid_point_count(o.dim, o.digits);
  if (o.codes > grid) {
    return bad("--codes " + std::to_string(o.codes) + " exceeds the " + std::to_string(grid) +
               " grid points");
  }
  if (!o.force && ::access(o.out.c_str(), F_OK) == 0) {
    return bad(o.out + " exists (use --force to replace it)");
  }
  const bool whole = grid <= kMaxFullGrid && !o.mini_batch;
  const bool eval_whole = grid <= kMaxFullGrid;
  if (!whole && !o.mini_batch) {
    std::fprintf(stderr, "p2b-codebook: %" PRIu64 " grid points: using --mini-batch\n", grid);
  }
  auto status = [&](const char* fmt, auto... args) {
    if (o.quiet) return;
    std::fprintf(stderr, "\r  ");
    std::fprintf(stderr, fmt, args...);
    std::fprintf(stderr, "\033[K");
    std::fflush(stderr);
  };

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<float> centroids;
  cb::ClusterStats stats;
  int iterations = 0;
  bool converged = false;
  double seed_seconds = 0.0, lloyd_seconds = 0.0, refine_seconds = 0.0;
  int lloyd_iterations = 0;
  bool lloyd_converged = false;
  cb::RefineResult refined;
  std::size_t eval_points = 0;
  if (whole) {
    status("enumerating %" PRIu64 " grid points", grid);
    const std::vector<float> pts = cb::enumerate_grid(o.dim, o.digits);
    status("seeding: greedy k-means++");
    cb::SeedOptions so;
    so.seed = o.seed;
    so.threads = o.threads;
    std::vector<float> seeds = cb::seed_kmeanspp(pts.data(), grid, o.dim, o.codes, so);
    seed_seconds = seconds_since(t0);
    cb::LloydOptions lo;
    lo.max_iterations = o.max_iterations;
    lo.threads = o.threads;
    lo.on_iteration = [&](int it, std::size_t moved, double) {
      status("Lloyd iteration %d: %zu points moved", it, moved);
    };
    cb::LloydResult r = cb::lloyd(pts.data(), grid, o.dim, std::move(seeds), lo);
    lloyd_iterations = r.iterations;
    lloyd_converged = r.converged;
    lloyd_seconds = seconds_since(t0) - seed_seconds;
    if (o.refine) {
      cb::RefineOptions ro;
      ro.threads = o.threads;
      ro.max_lloyd_iterations = o.max_iterations;
      ro.on_round = [&](int round, std::size_t moves) {
        status("Hartigan round %d: %zu moves", round, moves);
      };
      refined = cb::hartigan_refine(pts.data(), grid, o.dim, &r, ro);
      refine_seconds = seconds_since(t0) - seed_seconds - lloyd_seconds;
    }
    iterations = lloyd_iterations + refined.lloyd_iterations;
    converged = r.converged;
    centroids = std::move(r.centroids);
    stats = cb::stats_from_labels(pts.data(), grid, o.dim, centroids, r.labels, o.threads);
    eval_points = grid;
  } else {
    cb::MiniBatchOptions mo;
    mo.seed = o.seed;
    mo.threads = o.threads;
    mo.batch_size = o.batch_size;
    mo.max_iterations = o.max_iterations;
    mo.on_batch = [&](int it) {
      if (it % 10 == 0 || it == o.max_iterations) {
        status("mini-batch %d/%d (%zu samples each)", it, o.max_iterations, o.batch_size);
      }
    };
    status("seeding: greedy k-means++ on an init sample");
    cb::MiniBatchResult r = cb::minibatch_kmeans(o.dim, o.digits, o.codes, mo);
    iterations = r.iterations;
    centroids = std::move(r.centroids);
    status("scoring");
    const std::vector<float> eval =
        eval_whole ? cb::enumerate_grid(o.dim, o.digits)
                   : cb::sample_grid(o.dim, o.digits, kEvalPoints, kEvalSeed, o.threads);
    eval_points = eval.size() / o.dim;
    stats = cb::evaluate(eval.data(), eval_points, o.dim, centroids, o.threads);
  }
  const double train_seconds = seconds_since(t0);
  if (!o.quiet) std::fputc('\n', stderr);

  std::string err;
  if (!cb::write_codebook_file(o.out, centroids, o.dim, o.digits, o.force, &err)) {
    std::fprintf(stderr, "p2b-codebook: %s\n", err.c_str());
    return 1;
  }

  std::printf("p2b-codebook: d=%u q=%u k=%u seed=%" PRIu64 " threads=%u, %" PRIu64 " grid points\n",
              o.dim, o.digits, o.codes, o.seed, o.threads, grid);
  if (whole) {
    std::printf(
        "  method      greedy k-means++ (%.2f s), then Lloyd on the whole grid (%.2f s)%s\n",
        seed_seconds, lloyd_seconds, o.refine ? ", then Hartigan refinement" : "");
    std::printf("  iterations  %d (%s)\n", lloyd_iterations,
                lloyd_converged ? "converged: no point moved" : "stopped at --max-iterations");
    if (o.refine) {
      std::printf(
          "  refinement  %d rounds, %zu Hartigan moves, %d more Lloyd iterations (%.2f s); %s\n",
          refined.rounds, refined.moves, refined.lloyd_iterations, refine_seconds,
          refined.converged ? "converged: no move pays" : "stopped at a limit");
    }
    std::printf("  inertia     %.4f (sum of squared distances over all %zu grid points)\n",
                stats.inertia, eval_points);
    std::printf("  clusters    smallest %" PRIu64 " points (code %u), largest %" PRIu64
                " (code %u)\n",
                stats.smallest, stats.smallest_code, stats.largest, stats.largest_code);
  } else {
    std::printf("  method      mini-batch k-means, batches of %zu streamed grid samples\n",
                o.batch_size);
    std::printf("  iterations  %d batches\n", iterations);
    if (eval_whole) {
      std::printf("  inertia     %.4f (sum of squared distances over all %zu grid points)\n",
                  stats.inertia, eval_points);
    } else {
      const double scale = static_cast<double>(grid) / static_cast<double>(eval_points);
      std::printf(
          "  inertia     %.4f on the evaluation sample (%zu uniform grid points, fixed stream "
          "0x%" PRIx64
          ", the same for every --seed);\n"
          "              %.1f estimated over all %" PRIu64 " grid points\n",
          stats.inertia, eval_points, kEvalSeed, stats.inertia * scale, grid);
    }
    std::printf("  clusters    %s: smallest %" PRIu64 " points (code %u), largest %" PRIu64
                " (code %u)\n",
                eval_whole ? "on the whole grid" : "on the evaluation sample", stats.smallest,
                stats.smallest_code, stats.largest, stats.largest_code);
  }
  if (o.population > 0.0) print_crowds(o, stats);
  std::printf("  time        %.2f s\n", train_seconds);
  std::printf("  wrote       %s\n", o.out.c_str());
  return 0;
}
