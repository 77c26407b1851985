#include "codebook/train_summary.hpp"

#include <cinttypes>
#include <cstdio>

namespace p2b::codebook {
namespace {

void print_crowds(const CrowdParams& c, const ClusterStats& s) {
  const CrowdEstimate e = estimate_crowds(s.sizes, c.population, c.participation, c.threshold);
  double total = 0.0;
  for (uint64_t v : s.sizes) total += static_cast<double>(v);
  const double largest = static_cast<double>(s.largest) * c.population * c.participation / total;
  std::printf(
      "  crowds      population %.0f x participation %.2f, contexts assumed uniform over the "
      "grid:\n"
      "              expected reports per code %.1f (smallest, code %u) .. %.1f (largest); "
      "l = %.0f\n",
      c.population, c.participation, e.smallest_expected, e.smallest_code, largest, c.threshold);
  if (e.below_threshold > 0) {
    std::printf(
        "WARNING: smallest expected crowd %.1f is below the threshold l = %.0f: %u of %zu codes "
        "would be suppressed by the shuffler on average (fewer codes or more devices help)\n",
        e.smallest_expected, c.threshold, e.below_threshold, s.sizes.size());
  }
}

void print_whole(const TrainOptions& o, const TrainResult& r) {
  const ClusterStats& s = r.stats;
  std::printf("  method      greedy k-means++ (%.2f s), then Lloyd on the whole grid (%.2f s)%s\n",
              r.seed_seconds, r.lloyd_seconds, o.refine ? ", then Hartigan refinement" : "");
  std::printf("  iterations  %d (%s)\n", r.lloyd_iterations,
              r.lloyd_converged ? "converged: no point moved" : "stopped at --max-iterations");
  if (o.refine) {
    std::printf(
        "  refinement  %d rounds, %zu Hartigan moves, %d more Lloyd iterations (%.2f s); %s\n",
        r.refined.rounds, r.refined.moves, r.refined.lloyd_iterations, r.refine_seconds,
        r.refined.converged ? "converged: no move pays" : "stopped at a limit");
  }
  std::printf("  inertia     %.4f (sum of squared distances over all %zu grid points)\n", s.inertia,
              r.eval_points);
  std::printf("  clusters    smallest %" PRIu64 " points (code %u), largest %" PRIu64
              " (code %u)\n",
              s.smallest, s.smallest_code, s.largest, s.largest_code);
}

void print_minibatch(const TrainOptions& o, const TrainResult& r) {
  const ClusterStats& s = r.stats;
  std::printf("  method      mini-batch k-means, batches of %zu streamed grid samples\n",
              o.batch_size);
  if (r.minibatch_stopped_early) {
    std::printf(
        "  iterations  %d batches: stopped, %d in a row without a new low of the "
        "smoothed batch inertia\n",
        r.iterations, o.max_no_improvement);
  } else {
    std::printf("  iterations  %d batches (--max-iterations%s)\n", r.iterations,
                o.max_no_improvement > 0 ? "; no early stop" : "; early stop off");
  }
  if (r.eval_whole) {
    std::printf("  inertia     %.4f (sum of squared distances over all %zu grid points)\n",
                s.inertia, r.eval_points);
  } else {
    const double scale = static_cast<double>(r.grid) / static_cast<double>(r.eval_points);
    std::printf(
        "  inertia     %.4f on the evaluation sample (%zu uniform grid points, fixed stream "
        "0x%" PRIx64
        ", the same for every --seed);\n"
        "              %.1f estimated over all %" PRIu64 " grid points\n",
        s.inertia, r.eval_points, kEvalSeed, s.inertia * scale, r.grid);
  }
  std::printf("  clusters    %s: smallest %" PRIu64 " points (code %u), largest %" PRIu64
              " (code %u)\n",
              r.eval_whole ? "on the whole grid" : "on the evaluation sample", s.smallest,
              s.smallest_code, s.largest, s.largest_code);
}

}  // namespace

void print_train_summary(const TrainOptions& o, const TrainResult& r, const CrowdParams* crowds) {
  std::printf("p2b-codebook: d=%u q=%u k=%u seed=%" PRIu64 " threads=%u, %" PRIu64 " grid points\n",
              o.dim, o.digits, o.codes, o.seed, o.threads, r.grid);
  if (r.whole) {
    print_whole(o, r);
  } else {
    print_minibatch(o, r);
  }
  if (crowds != nullptr) print_crowds(*crowds, r.stats);
  std::printf("  time        %.2f s\n", r.seconds);
}

void print_status_line(const char* line) {
  std::fprintf(stderr, "\r  %s\033[K", line);
  std::fflush(stderr);
}

}  // namespace p2b::codebook
