#include "codebook/train.hpp"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include "codebook/kmeans_lloyd.hpp"
#include "codebook/kmeans_minibatch.hpp"
#include "codebook/kmeans_seed.hpp"
#include "codebook/simplex_grid.hpp"

namespace p2b::codebook {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <typename... Args>
void status(const TrainOptions& o, const char* fmt, Args... args) {
  if (!o.on_status) return;
  char line[160];
  std::snprintf(line, sizeof line, fmt, args...);
  o.on_status(line);
}

void train_whole(const TrainOptions& o, std::chrono::steady_clock::time_point t0,
                 TrainResult* out) {
  status(o, "enumerating %" PRIu64 " grid points", out->grid);
  const std::vector<float> pts = enumerate_grid(o.dim, o.digits);
  status(o, "seeding: greedy k-means++");
  SeedOptions so;
  so.seed = o.seed;
  so.threads = o.threads;
  std::vector<float> seeds = seed_kmeanspp(pts.data(), out->grid, o.dim, o.codes, so);
  out->seed_seconds = seconds_since(t0);
  LloydOptions lo;
  lo.max_iterations = o.max_iterations;
  lo.threads = o.threads;
  lo.on_iteration = [&](int it, std::size_t moved, double) {
    status(o, "Lloyd iteration %d: %zu points moved", it, moved);
  };
  LloydResult r = lloyd(pts.data(), out->grid, o.dim, std::move(seeds), lo);
  out->lloyd_iterations = r.iterations;
  out->lloyd_converged = r.converged;
  out->lloyd_seconds = seconds_since(t0) - out->seed_seconds;
  if (o.refine) {
    RefineOptions ro;
    ro.threads = o.threads;
    ro.max_lloyd_iterations = o.max_iterations;
    ro.on_round = [&](int round, std::size_t moves) {
      status(o, "Hartigan round %d: %zu moves", round, moves);
    };
    out->refined = hartigan_refine(pts.data(), out->grid, o.dim, &r, ro);
    out->refine_seconds = seconds_since(t0) - out->seed_seconds - out->lloyd_seconds;
  }
  out->iterations = out->lloyd_iterations + out->refined.lloyd_iterations;
  out->centroids = std::move(r.centroids);
  out->stats = stats_from_labels(pts.data(), out->grid, o.dim, out->centroids, r.labels, o.threads);
  out->eval_points = out->grid;
}

void train_minibatch(const TrainOptions& o, TrainResult* out) {
  MiniBatchOptions mo;
  mo.seed = o.seed;
  mo.threads = o.threads;
  mo.batch_size = o.batch_size;
  mo.max_iterations = o.max_iterations;
  mo.max_no_improvement = o.max_no_improvement;
  mo.on_batch = [&](int it) {
    if (it % 10 == 0 || it == o.max_iterations) {
      status(o, "mini-batch %d/%d (%zu samples each)", it, o.max_iterations, o.batch_size);
    }
  };
  status(o, "seeding: greedy k-means++ on an init sample");
  MiniBatchResult r = minibatch_kmeans(o.dim, o.digits, o.codes, mo);
  out->iterations = r.iterations;
  out->minibatch_stopped_early = r.stopped_early;
  out->centroids = std::move(r.centroids);
  status(o, "scoring");
  const std::vector<float> eval =
      out->eval_whole ? enumerate_grid(o.dim, o.digits)
                      : sample_grid(o.dim, o.digits, kEvalPoints, kEvalSeed, o.threads);
  out->eval_points = eval.size() / o.dim;
  out->stats = evaluate(eval.data(), out->eval_points, o.dim, out->centroids, o.threads);
}

}  // namespace

TrainResult train_codebook(const TrainOptions& o) {
  TrainResult out;
  out.grid = grid_point_count(o.dim, o.digits);
  if (o.codes > out.grid) {
    throw std::invalid_argument("--codes " + std::to_string(o.codes) + " exceeds the " +
                                std::to_string(out.grid) + " grid points");
  }
  out.whole = out.grid <= kMaxFullGrid && !o.mini_batch;
  out.eval_whole = out.grid <= kMaxFullGrid;
  const auto t0 = std::chrono::steady_clock::now();
  if (out.whole) {
    train_whole(o, t0, &out);
  } else {
    train_minibatch(o, &out);
  }
  out.seconds = seconds_since(t0);
  return out;
}

}  // namespace p2b::codebook
