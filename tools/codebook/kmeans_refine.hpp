// Hartigan refinement after Lloyd. Lloyd stops when every point is nearest its
// own centroid, but on a lattice many such fixed points are poor local optima.
// Hartigan's rule also counts how moving a point shifts the two centroids:
// taking x out of cluster i (n_i points) lowers the inertia by
// n_i/(n_i-1)·|x-c_i|², putting it into cluster j raises it by
// n_j/(n_j+1)·|x-c_j|², so the move pays when the first is larger, even when
// c_i is the nearest centroid. Every move strictly lowers the inertia.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "codebook/kmeans_lloyd.hpp"

namespace p2b::codebook {

struct RefineOptions {
  unsigned threads = 1;
  uint32_t candidates = 8;  // nearest other centroids tried per point
  int max_rounds = 100;     // candidate refreshes
  int max_passes = 100;     // Hartigan passes per round
  int max_lloyd_iterations = 1000;
  // After each round: its number and the Hartigan moves made.
  std::function<void(int, std::size_t)> on_round;
};

struct RefineResult {
  int rounds = 0;            // rounds that made at least one Hartigan move
  std::size_t moves = 0;     // Hartigan moves in all
  int lloyd_iterations = 0;  // Lloyd iterations re-run after the moves
  bool converged = false;    // the last round found no move, and Lloyd converged
};

// Refines a converged Lloyd result in place. Each round finds every point's
// nearest `candidates` other centroids (in parallel, per point, among the 32
// centroids nearest its own), then makes sequential Hartigan passes over the
// points in index order, updating the two centroids of each move exactly
// (double sums, integer counts), until a pass moves nothing. Rounds stop when
// one finds no move; then Lloyd is re-run from the refined centroids, so the
// labels are the nearest centroids. Deterministic for any thread count.
RefineResult hartigan_refine(const float* pts, std::size_t n, uint32_t d, LloydResult* r,
                             const RefineOptions& o);

}  // namespace p2b::codebook
