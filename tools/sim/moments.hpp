// Running mean and sample standard deviation, for the simulators' summary
// tables (one value per seed).
#pragma once

#include <algorithm>
#include <cmath>

namespace p2b::sim {

struct Moments {
  double n = 0, sum = 0, sq = 0;
  void add(double v) {
    ++n;
    sum += v;
    sq += v * v;
  }
  double mean() const { return n > 0 ? sum / n : 0.0; }
  double sd() const {
    return n > 1 ? std::sqrt(std::max(0.0, (sq - sum * sum / n) / (n - 1))) : 0.0;
  }
};

}  // namespace p2b::sim
