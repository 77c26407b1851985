// Central differential privacy of the released per-arm statistics
// (docs/analyzer.md, "Central differential privacy").
//
// The unit of privacy is one report (code, action, reward). Clipped to
// ||x||_2 <= 1 and r in [0, 1], a report changes one arm's released
// coordinates (the upper triangle of G_a, s_a and n_a) by at most
//   ||upper(x x^T)||_2^2 + ||r x||_2^2 + 1^2 <= ||x||^4 + ||x||^2 + 1 <= 3,
// an L2 sensitivity of sqrt(3). The releases after batches 1..T use the tree
// mechanism (tree_noise.hpp): Gaussian noise of standard deviation sigma on
// every coordinate of every node, and each report lies in `levels` nodes, so
// the whole sequence of releases is levels * 3 / (2 sigma^2)-zCDP, which
// sigma is solved for to give (epsilon, delta)-DP (zcdp.hpp).
//
// Positive definiteness is post-processing (free): A = (lambda + shift) I +
// G + noise, where shift bounds the noise matrix's spectral norm with
// probability 1 - kShiftFailure, then eigenvalues are raised to >= lambda.
#pragma once

#include <cstdint>
#include <vector>

#include "dp/tree_noise.hpp"
#include "statistics.hpp"

namespace p2b::analyzer {

struct CentralDpConfig {
  double epsilon = 0.0;  // 0: off
  double delta = 1e-6;
  uint64_t horizon = uint64_t{1} << 20;  // releases (batches) the budget covers
  bool enabled() const { return epsilon > 0.0; }
};

// sqrt(3): see above.
constexpr double kReportSensitivity = 1.7320508075688772;
// The chance that one release's noise matrix (one arm) exceeds the shift.
constexpr double kShiftFailure = 1e-6;

struct NoisyRelease {
  std::vector<double> a, b;    // Statistics::model_arrays' layout, prior and shift included
  std::vector<double> counts;  // noisy n_a
  uint32_t nodes = 0;          // tree nodes summed: the noise variance is nodes * sigma^2
  double shift = 0.0;
  double total_count() const;
};

class CentralDp {
 public:
  // Throws std::invalid_argument unless epsilon > 0, delta in (0, 1) and
  // horizon >= 1.
  CentralDp(const CentralDpConfig& config, const dp::NoiseSeed& seed);
  ~CentralDp();
  CentralDp(const CentralDp&) = delete;
  CentralDp& operator=(const CentralDp&) = delete;

  const CentralDpConfig& config() const { return config_; }
  uint32_t levels() const { return levels_; }
  double sigma() const { return sigma_; }  // per node and coordinate
  uint64_t releases_left(uint64_t released) const {
    return released >= config_.horizon ? 0 : config_.horizon - released;
  }
  // The shift for a d x d noise matrix summed from `nodes` nodes:
  // sigma sqrt(nodes) (2 sqrt(d) + 2 sqrt(ln(1 / kShiftFailure))), the
  // semicircle edge plus a Gaussian-concentration margin.
  double shift(uint32_t dim, uint32_t nodes) const;

  // Bounds one report's contribution: scales x down to ||x||_2 <= 1 and
  // clamps the reward to [0, 1] (NaN becomes 0).
  static void clip_report(double* x, uint32_t dim, double* reward);

  // The statistics released after batch t (1..horizon) from the exact sums
  // of batches 1..t. Throws std::out_of_range past the horizon.
  NoisyRelease release(const Statistics& exact, uint64_t t, double lambda) const;

 private:
  CentralDpConfig config_;
  dp::NoiseSeed seed_;
  uint32_t levels_;
  double sigma_;
};

// 32 bytes from the CSPRNG, for a new store.
dp::NoiseSeed new_noise_seed();

}  // namespace p2b::analyzer
