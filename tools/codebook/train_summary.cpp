#include "codebook/train_summary.hpp"

#include <cinttypes>
#include <cstdio>
#include <string>

namespace p2b::codebook {
namespace {

// One printf-formatted line to the sink. Every line of the report is short;
// a longer one would be cut, never overrun.
template <typename... Args>
void line(const LineSink& sink, const char* fmt, Args... args) {
  char text[256];
  std::snprintf(text, sizeof text, fmt, args...);
  sink(text);
}

void write_crowds(const CrowdParams& c, const ClusterStats& s, const LineSink& sink) {
  const CrowdEstimate e = estimate_crowds(s.sizes, c.population, c.participation, c.threshold);
  double total = 0.0;
  for (uint64_t v : s.sizes) total += static_cast<double>(v);
  const double largest = static_cast<double>(s.largest) * c.population * c.participation / total;
  line(sink,
       "  crowds      population %.0f x participation %.2f, contexts assumed uniform over the "
       "grid:",
       c.population, c.participation);
  line(sink,
       "              expected reports per code %.1f (smallest, code %u) .. %.1f (largest); "
       "l = %.0f",
       e.smallest_expected, e.smallest_code, largest, c.threshold);
  if (e.below_threshold > 0) {
    line(sink,
         "WARNING: smallest expected crowd %.1f is below the threshold l = %.0f: %u of %zu codes "
         "would be suppressed by the shuffler on average (fewer codes or more devices help)",
         e.smallest_expected, c.threshold, e.below_threshold, s.sizes.size());
  }
}

void write_whole(const TrainOptions& o, const TrainResult& r, const LineSink& sink) {
  const ClusterStats& s = r.stats;
  line(sink, "  method      greedy k-means++ (%.2f s), then Lloyd on the whole grid (%.2f s)%s",
       r.seed_seconds, r.lloyd_seconds, o.refine ? ", then Hartigan refinement" : "");
  line(sink, "  iterations  %d (%s)", r.lloyd_iterations,
       r.lloyd_converged ? "converged: no point moved" : "stopped at --max-iterations");
  if (o.refine) {
    line(sink, "  refinement  %d rounds, %zu Hartigan moves, %d more Lloyd iterations (%.2f s); %s",
         r.refined.rounds, r.refined.moves, r.refined.lloyd_iterations, r.refine_seconds,
         r.refined.converged ? "converged: no move pays" : "stopped at a limit");
  }
  line(sink, "  inertia     %.4f (sum of squared distances over all %zu grid points)", s.inertia,
       r.eval_points);
  line(sink, "  clusters    smallest %" PRIu64 " points (code %u), largest %" PRIu64 " (code %u)",
       s.smallest, s.smallest_code, s.largest, s.largest_code);
}

void write_minibatch(const TrainOptions& o, const TrainResult& r, const LineSink& sink) {
  const ClusterStats& s = r.stats;
  line(sink, "  method      mini-batch k-means, batches of %zu streamed grid samples",
       o.batch_size);
  if (r.minibatch_stopped_early) {
    line(sink,
         "  iterations  %d batches: stopped, %d in a row without a new low of the "
         "smoothed batch inertia",
         r.iterations, o.max_no_improvement);
  } else {
    line(sink, "  iterations  %d batches (--max-iterations%s)", r.iterations,
         o.max_no_improvement > 0 ? "; no early stop" : "; early stop off");
  }
  if (r.eval_whole) {
    line(sink, "  inertia     %.4f (sum of squared distances over all %zu grid points)", s.inertia,
         r.eval_points);
  } else {
    const double scale = static_cast<double>(r.grid) / static_cast<double>(r.eval_points);
    line(sink,
         "  inertia     %.4f on the evaluation sample (%zu uniform grid points, fixed stream "
         "0x%" PRIx64 ", the same for every --seed);",
         s.inertia, r.eval_points, kEvalSeed);
    line(sink, "              %.1f estimated over all %" PRIu64 " grid points", s.inertia * scale,
         r.grid);
  }
  line(sink,
       "  clusters    %s: smallest %" PRIu64 " points (code %u), largest %" PRIu64 " (code %u)",
       r.eval_whole ? "on the whole grid" : "on the evaluation sample", s.smallest, s.smallest_code,
       s.largest, s.largest_code);
}

}  // namespace

void write_train_summary(const TrainOptions& o, const TrainResult& r, const CrowdParams* crowds,
                         const LineSink& sink) {
  line(sink, "p2b-codebook: d=%u q=%u k=%u seed=%" PRIu64 " threads=%u, %" PRIu64 " grid points",
       o.dim, o.digits, o.codes, o.seed, o.threads, r.grid);
  if (r.whole) {
    write_whole(o, r, sink);
  } else {
    write_minibatch(o, r, sink);
  }
  if (crowds != nullptr) write_crowds(*crowds, r.stats, sink);
  line(sink, "  time        %.2f s", r.seconds);
}

void print_train_summary(const TrainOptions& o, const TrainResult& r, const CrowdParams* crowds) {
  write_train_summary(o, r, crowds,
                      [](const std::string& text) { std::printf("%s\n", text.c_str()); });
}

void print_status_line(const char* line) {
  std::fprintf(stderr, "\r  %s\033[K", line);
  std::fflush(stderr);
}

}  // namespace p2b::codebook
