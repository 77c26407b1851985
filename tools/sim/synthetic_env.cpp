#include "synthetic_env.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace p2b::sim {

const char* mapping_name(Mapping m) {
  return m == Mapping::linear ? "linear" : "softmax";
}

double Draws::uniform() {
  return static_cast<double>(gen_() >> 11) * 0x1.0p-53;
}

double Draws::gaussian() {
  // Box-Muller; 1 - u keeps the log argument in (0, 1].
  const double u = 1.0 - uniform();
  const double v = uniform();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * M_PI * v);
}

SyntheticEnv::SyntheticEnv(const EnvParams& p) : p_(p) {
  Draws d(p.seed);
  // Glorot uniform: U(-s, s) with s = sqrt(6 / (fan_in + fan_out)).
  const double s = std::sqrt(6.0 / (p.dim + p.n_actions));
  w_.resize(static_cast<size_t>(p.n_actions) * p.dim);
  for (double& w : w_) w = (2.0 * d.uniform() - 1.0) * s;
  const double sb = std::sqrt(6.0 / (1.0 + p.n_actions));
  b_.resize(p.n_actions);
  for (double& b : b_) b = (2.0 * d.uniform() - 1.0) * sb;
  // Keras initialises a Dense layer's bias to zero; W stays the same draw.
  if (p.mapping == Mapping::linear) std::fill(b_.begin(), b_.end(), 0.0);
}

SyntheticEnv::SyntheticEnv(const EnvParams& p, std::vector<double> w, std::vector<double> b)
    : p_(p), w_(std::move(w)), b_(std::move(b)) {
  if (w_.size() != static_cast<size_t>(p.n_actions) * p.dim || b_.size() != p.n_actions) {
    throw std::invalid_argument("SyntheticEnv: W must be |A| x d and b |A|");
  }
}

void SyntheticEnv::context(Draws& d, float* x) const {
  double e[64];
  double sum = 0.0;
  for (uint32_t i = 0; i < p_.dim; ++i) {
    // Exponential spacings give the flat Dirichlet; plain uniforms give the
    // reference code's normalised histograms.
    e[i] = p_.contexts == ContextLaw::simplex ? -std::log(1.0 - d.uniform()) : d.uniform();
    sum += e[i];
  }
  if (sum <= 0.0) {
    for (uint32_t i = 0; i < p_.dim; ++i) x[i] = 1.0F / static_cast<float>(p_.dim);
    return;
  }
  for (uint32_t i = 0; i < p_.dim; ++i) x[i] = static_cast<float>(e[i] / sum);
}

double SyntheticEnv::logit(uint32_t a, const float* x) const {
  double s = b_[a];
  for (uint32_t i = 0; i < p_.dim; ++i) s += w_[a * p_.dim + i] * x[i];
  return s;
}

uint32_t SyntheticEnv::best_action(const float* x) const {
  // Clipping and Bernoulli draws are monotone, so the top logit is the best arm.
  uint32_t best = 0;
  for (uint32_t a = 1; a < p_.n_actions; ++a) {
    if (logit(a, x) > logit(best, x)) best = a;
  }
  return best;
}

void SyntheticEnv::expected_rewards(Draws& d, const float* x, double* rbar) const {
  const double sigma = std::sqrt(p_.noise_variance);
  if (p_.mapping == Mapping::linear) {
    for (uint32_t a = 0; a < p_.n_actions; ++a) {
      rbar[a] = std::clamp(p_.beta * logit(a, x) + sigma * d.gaussian(), 0.0, 1.0);
    }
    return;
  }
  double logits[1024];
  double top = -INFINITY;
  for (uint32_t a = 0; a < p_.n_actions; ++a) {
    logits[a] = logit(a, x);
    top = std::max(top, logits[a]);
  }
  double z = 0.0;
  for (uint32_t a = 0; a < p_.n_actions; ++a) z += std::exp(logits[a] - top);
  for (uint32_t a = 0; a < p_.n_actions; ++a) {
    const double r = p_.beta * std::exp(logits[a] - top) / z + sigma * d.gaussian();
    rbar[a] = std::clamp(r, 0.0, 1.0);
  }
}

}  // namespace p2b::sim
