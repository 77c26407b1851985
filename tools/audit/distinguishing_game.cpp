#include "audit/distinguishing_game.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "audit/clopper_pearson.hpp"

namespace p2b::audit {

namespace {

constexpr double kAlpha = 0.05;
// Candidate thresholds tried on the training half: enough quantiles to
// find the tail a Gaussian test wants, few enough that the exact intervals
// stay cheap.
constexpr std::size_t kMaxCandidates = 400;

double log_ratio(double numerator, double denominator) {
  if (!(numerator > 0.0)) return 0.0;
  if (!(denominator > 0.0)) return std::numeric_limits<double>::infinity();
  return std::log(numerator / denominator);
}

double bound_from_rates(double fpr, double fnr, double delta) {
  const double a = log_ratio(1.0 - delta - fnr, fpr);
  const double b = log_ratio(1.0 - delta - fpr, fnr);
  return std::max({a, b, 0.0});
}

std::vector<double> candidate_thresholds(const std::vector<double>& a,
                                         const std::vector<double>& b) {
  std::vector<double> all(a);
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  if (all.size() <= kMaxCandidates) return all;
  std::vector<double> picked;
  picked.reserve(kMaxCandidates);
  for (std::size_t i = 0; i < kMaxCandidates; ++i) {
    picked.push_back(all[i * (all.size() - 1) / (kMaxCandidates - 1)]);
  }
  return picked;
}

}  // namespace

ErrorCounts count_errors(const ThresholdTest& test, const std::vector<double>& world0,
                         const std::vector<double>& world1) {
  ErrorCounts e;
  e.world0_runs = world0.size();
  e.world1_runs = world1.size();
  for (double s : world0) e.false_positives += test.says_world1(s) ? 1U : 0U;
  for (double s : world1) e.false_negatives += test.says_world1(s) ? 0U : 1U;
  return e;
}

EpsilonBound epsilon_from_errors(const ErrorCounts& errors, double delta) {
  EpsilonBound out;
  const uint64_t n0 = errors.world0_runs;
  const uint64_t n1 = errors.world1_runs;
  out.fpr = static_cast<double>(errors.false_positives) / static_cast<double>(n0);
  out.fnr = static_cast<double>(errors.false_negatives) / static_cast<double>(n1);
  out.lower = bound_from_rates(clopper_pearson_upper(errors.false_positives, n0, kAlpha),
                               clopper_pearson_upper(errors.false_negatives, n1, kAlpha), delta);
  out.point = bound_from_rates(out.fpr, out.fnr, delta);
  out.upper = bound_from_rates(clopper_pearson_lower(errors.false_positives, n0, kAlpha),
                               clopper_pearson_lower(errors.false_negatives, n1, kAlpha), delta);
  return out;
}

GameResult play_game(const std::vector<double>& world0, const std::vector<double>& world1,
                     double delta) {
  const auto half0 = static_cast<std::ptrdiff_t>(world0.size() / 2);
  const auto half1 = static_cast<std::ptrdiff_t>(world1.size() / 2);
  const std::vector<double> train0(world0.begin(), world0.begin() + half0);
  const std::vector<double> train1(world1.begin(), world1.begin() + half1);
  const std::vector<double> test0(world0.begin() + half0, world0.end());
  const std::vector<double> test1(world1.begin() + half1, world1.end());

  GameResult best;
  double best_score = -1.0;
  for (double threshold : candidate_thresholds(train0, train1)) {
    for (bool upper : {true, false}) {
      const ThresholdTest test{threshold, upper};
      const double score = epsilon_from_errors(count_errors(test, train0, train1), delta).lower;
      if (score > best_score) {
        best_score = score;
        best.test = test;
      }
    }
  }
  best.held_out = count_errors(best.test, test0, test1);
  best.epsilon = epsilon_from_errors(best.held_out, delta);
  return best;
}

}  // namespace p2b::audit
