// The synthetic environment of the P2B paper (section 5.1), in two mappings:
//   softmax (the paper's Eq. 4): rbar_a(x) = beta * softmax(W x + b)_a + z
//   linear (the reference code's untrained Keras Dense layer):
//                                rbar_a(x) = beta * (W x + b)_a + z
// with z ~ N(0, sigma^2), clipped to [0, 1]; the observed reward is a
// Bernoulli(rbar_a) draw. W is Glorot-uniform from a seed; so is b under
// softmax, while linear keeps Keras's zero bias. Contexts are uniform on the
// simplex or normalised U(0,1)^d (ContextLaw).
#pragma once

#include <cstdint>
#include <vector>

#include "draws.hpp"

namespace p2b::sim {

// How contexts are drawn: uniform on the simplex (flat Dirichlet, the
// paper's description) or U(0,1)^d divided by its sum (what the reference
// code's make_hists does; denser near the centre).
enum class ContextLaw { simplex, normalised_uniform };

// The reference code computes beta * (softmax + 0.01 * N(0, 1)): noise of sd
// beta * 0.01 = 0.001 at beta = 0.1. Reading Eq. 4's N(0, 0.01) as variance
// 0.01 instead (sd 0.1) lifts every arm to about 0.045 through clipping.
constexpr double kReferenceNoiseVariance = 1e-6;

// How a context becomes per-action reward probabilities (see above).
enum class Mapping { softmax, linear };
const char* mapping_name(Mapping m);

// The most actions an environment has (p2b-sim's --actions limit): a step's
// per-action scratch lives on the stack.
constexpr uint32_t kMaxActions = 1024;

struct EnvParams {
  uint32_t dim = 10;
  uint32_t n_actions = 10;
  double beta = 0.1;
  double noise_variance = 0.01;  // of z, added after the beta scaling
  uint64_t seed = 1;             // of W and b (Glorot uniform)
  ContextLaw contexts = ContextLaw::simplex;
  Mapping mapping = Mapping::softmax;
};

class SyntheticEnv {
 public:
  explicit SyntheticEnv(const EnvParams& p);
  // W (n_actions x dim, row-major) and b given, e.g. from --weights.
  SyntheticEnv(const EnvParams& p, const std::vector<double>& w, std::vector<double> b);

  // Uniform point on the probability simplex.
  void context(Draws& d, float* x) const;
  // rbar_a for every action, noise included, clipped to [0, 1].
  void expected_rewards(Draws& d, const float* x, double* rbar) const {
    (void)rewards_and_best(d, x, rbar);
  }
  // The same, and returns best_action(x) from the same logits.
  uint32_t rewards_and_best(Draws& d, const float* x, double* rbar) const;
  // The action with the highest noiseless expected reward (the oracle's pick).
  uint32_t best_action(const float* x) const;

  const EnvParams& params() const { return p_; }

 private:
  // W x + b for every action; returns the first index of the largest.
  uint32_t logits(const float* x, double* out) const;
  // Checks |A| and stores W (|A| x d, row-major) transposed.
  void lay_out_by_dim(const std::vector<double>& w);

  EnvParams p_;
  // W transposed (dim x n_actions): logits() runs over the actions in its
  // inner loop, which the compiler vectorises; each logit still sums b then
  // w_i x_i in order of i.
  std::vector<double> w_by_dim_;
  std::vector<double> b_;
};

}  // namespace p2b::sim
