#include "synthetic_env.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <utility>

namespace p2b::sim {

const char* mapping_name(Mapping m) {
  return m == Mapping::linear ? "linear" : "softmax";
}

namespace {

// U[0, 1) from std::mt19937_64, the generator W and b were always drawn
// from: the environment of a seed stays the one earlier results used, while
// the per-user streams (Draws) moved to a generator that is cheaper to seed.
double glorot_unit(std::mt19937_64& g) {
  return static_cast<double>(g() >> 11) * 0x1.0p-53;
}

}  // namespace

SyntheticEnv::SyntheticEnv(const EnvParams& p) : p_(p) {
  std::mt19937_64 g(p.seed);
  // Glorot uniform: U(-s, s) with s = sqrt(6 / (fan_in + fan_out)).
  const double s = std::sqrt(6.0 / (p.dim + p.n_actions));
  std::vector<double> w(static_cast<size_t>(p.n_actions) * p.dim);
  for (double& wi : w) wi = (2.0 * glorot_unit(g) - 1.0) * s;
  const double sb = std::sqrt(6.0 / (1.0 + p.n_actions));
  b_.resize(p.n_actions);
  for (double& b : b_) b = (2.0 * glorot_unit(g) - 1.0) * sb;
  // Keras initialises a Dense layer's bias to zero; W stays the same draw.
  if (p.mapping == Mapping::linear) std::fill(b_.begin(), b_.end(), 0.0);
  lay_out_by_dim(w);
}

SyntheticEnv::SyntheticEnv(const EnvParams& p, const std::vector<double>& w, std::vector<double> b)
    : p_(p), b_(std::move(b)) {
  if (w.size() != static_cast<size_t>(p.n_actions) * p.dim || b_.size() != p.n_actions) {
    throw std::invalid_argument("SyntheticEnv: W must be |A| x d and b |A|");
  }
  lay_out_by_dim(w);
}

void SyntheticEnv::lay_out_by_dim(const std::vector<double>& w) {
  if (p_.n_actions > kMaxActions) throw std::invalid_argument("SyntheticEnv: |A| above 1024");
  w_by_dim_.resize(w.size());
  for (uint32_t a = 0; a < p_.n_actions; ++a) {
    for (uint32_t i = 0; i < p_.dim; ++i) {
      w_by_dim_[static_cast<size_t>(i) * p_.n_actions + a] = w[static_cast<size_t>(a) * p_.dim + i];
    }
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

uint32_t SyntheticEnv::logits(const float* x, double* out) const {
  const uint32_t k = p_.n_actions;
  for (uint32_t a = 0; a < k; ++a) out[a] = b_[a];
  for (uint32_t i = 0; i < p_.dim; ++i) {
    const double xi = x[i];
    const double* w = &w_by_dim_[static_cast<size_t>(i) * k];
    for (uint32_t a = 0; a < k; ++a) out[a] += w[a] * xi;
  }
  uint32_t best = 0;
  for (uint32_t a = 1; a < k; ++a) {
    if (out[a] > out[best]) best = a;
  }
  return best;
}

uint32_t SyntheticEnv::best_action(const float* x) const {
  // Clipping and Bernoulli draws are monotone, so the top logit is the best arm.
  double l[kMaxActions];
  return logits(x, l);
}

uint32_t SyntheticEnv::rewards_and_best(Draws& d, const float* x, double* rbar) const {
  const uint32_t k = p_.n_actions;
  const double sigma = std::sqrt(p_.noise_variance);
  double l[kMaxActions];
  double noise[kMaxActions];
  const uint32_t best = logits(x, l);
  // Every arm's noise in one pass, in arm order (the stream's order).
  d.gaussians(noise, k);
  if (p_.mapping == Mapping::linear) {
    for (uint32_t a = 0; a < k; ++a)
      rbar[a] = std::clamp(p_.beta * l[a] + sigma * noise[a], 0.0, 1.0);
    return best;
  }
  // Softmax, shifted by the top logit so no exp overflows: one exp per arm.
  const double top = l[best];
  double z = 0.0;
  for (uint32_t a = 0; a < k; ++a) {
    l[a] = std::exp(l[a] - top);
    z += l[a];
  }
  const double scale = p_.beta / z;
  for (uint32_t a = 0; a < k; ++a) rbar[a] = std::clamp(l[a] * scale + sigma * noise[a], 0.0, 1.0);
  return best;
}

}  // namespace p2b::sim
