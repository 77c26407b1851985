// The distinguishing game behind every row of the audit (Jagielski, Ullman
// and Oprea 2020; Nasr et al. 2021). The mechanism runs on two neighbouring
// inputs, world 0 (without the victim, or the victim's first value) and
// world 1; the attacker sees one statistic of each release and guesses the
// world by a threshold. If the mechanism is (epsilon, delta)-DP, every test
// has FPR + e^epsilon FNR >= 1 - delta and FNR + e^epsilon FPR >= 1 - delta,
// so measured error rates give a lower bound on the epsilon it really has.
#pragma once

#include <cstdint>
#include <vector>

namespace p2b::audit {

// The attacker's test: guess world 1 when statistic >= threshold (upper) or
// statistic <= threshold (!upper).
struct ThresholdTest {
  double threshold = 0.0;
  bool upper = true;
  bool says_world1(double statistic) const {
    return upper ? statistic >= threshold : statistic <= threshold;
  }
};

// The test's errors on a set of runs.
struct ErrorCounts {
  uint64_t false_positives = 0;  // world-0 runs guessed world 1
  uint64_t world0_runs = 0;
  uint64_t false_negatives = 0;  // world-1 runs guessed world 0
  uint64_t world1_runs = 0;
};

ErrorCounts count_errors(const ThresholdTest& test, const std::vector<double>& world0,
                         const std::vector<double>& world1);

struct EpsilonBound {
  double lower = 0.0;  // from the 95 % upper bounds on FPR and FNR
  double point = 0.0;  // from the observed rates (may be infinite)
  double upper = 0.0;  // from the 95 % lower bounds: the interval's other end
  double fpr = 0.0;
  double fnr = 0.0;
};

// max(ln((1 - delta - FNR) / FPR), ln((1 - delta - FPR) / FNR), 0) at the
// rates' Clopper-Pearson bounds (each the two-sided 95 % interval's end).
EpsilonBound epsilon_from_errors(const ErrorCounts& errors, double delta);

// The game's verdict on one pair of samples: the threshold and direction
// that give the largest lower bound on the first half of each world's runs
// (the attacker's training), scored on the second half only, so the choice
// does not inflate the bound.
struct GameResult {
  ThresholdTest test;
  ErrorCounts held_out;
  EpsilonBound epsilon;
};

GameResult play_game(const std::vector<double>& world0, const std::vector<double>& world1,
                     double delta);

}  // namespace p2b::audit
