// O3M (seed 003, docs/vertical.md) on the comparison's world, through the
// real masking and combining code (vfl::InProcessFederation).
//
// Adaptation: O3M scores per-item contexts with one shared theta, so arm a's
// item is x (x) e_a laid out feature-major (column i |A| + a holds x_i). Two
// parties split the features: the active party, which serves every user and
// sees every reward, holds the first ceil(d / 2) features of every arm; one
// passive party holds the rest and sends them masked by its block of a
// random rotation Q. One model for all users, as pooled LinUCB, and lossless
// (rotations commute with the isotropic ridge), so it should earn what pooled
// earns; what differs is who holds which features, not what is learnt.
//
// Privacy: none in the DP sense (epsilon inf): the masks hide the passive
// party's raw features from the active party, while the active party learns
// every reward and every inner product of the joint contexts.
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "compare_sim/protocols.hpp"
#include "vfl/in_process.hpp"
#include "vfl/mask.hpp"

namespace p2b::compare_sim {

Outcome run_o3m(const Options& o, const World& w) {
  const uint32_t d = w.env->dim();
  const uint32_t k = w.env->n_actions();
  const uint32_t dim = d * k;
  const uint32_t active_features = (d + 1) / 2;
  const vfl::Partition partition{active_features * k, (d - active_features) * k};
  uint8_t seed[vfl::kMaskSeedBytes] = {};
  for (std::size_t i = 0; i < sizeof seed; ++i) {
    seed[i] = static_cast<uint8_t>((w.seed >> (8 * (i % 8))) + 0x3d * i);
  }
  vfl::Mask mask;
  if (vfl::draw_mask(seed, dim, 1, &mask) != vfl::MaskStatus::ok) {
    throw std::runtime_error("o3m: could not draw a mask of d = " + std::to_string(dim));
  }
  SharedConfig model;
  model.dim = dim;
  model.max_items = k;
  model.alpha = o.alpha;
  model.tie_rel_tol = 1e-9;  // the active party's own setting (docs/vertical.md)
  model.precision = Precision::f64;
  model.deterministic = true;
  model.seed = w.seed;
  std::unique_ptr<vfl::InProcessFederation> fed;
  std::string err;
  if (vfl::InProcessFederation::create(mask, partition, model, &fed, &err) !=
      vfl::RoundStatus::ok) {
    throw std::runtime_error("o3m: " + err);
  }
  std::vector<UserSteps> steps;
  steps.reserve(w.users);
  for (uint64_t u = 0; u < w.users; ++u) steps.emplace_back(w, u);
  Rewards rw(w.users);
  std::vector<double> items(static_cast<std::size_t>(k) * dim, 0.0);
  uint64_t bytes = 0;
  for_each_step(w, [&](uint64_t u, uint32_t s) {
    UserSteps& st = steps[u];
    st.next(s);
    // The device agent's normalisation (sum 1), as every other learner here.
    double sum = 0.0;
    for (uint32_t i = 0; i < d; ++i) sum += st.x()[i];
    for (uint32_t a = 0; a < k; ++a) {
      for (uint32_t i = 0; i < d; ++i) {
        items[static_cast<std::size_t>(a) * dim + static_cast<std::size_t>(i) * k + a] =
            sum > 0.0 ? st.x()[i] / sum : 1.0 / d;
      }
    }
    vfl::Decision dec;
    if (fed->load(items.data(), k) != vfl::RoundStatus::ok ||
        fed->active().decide(&dec) != vfl::RoundStatus::ok) {
      throw std::runtime_error("o3m: the federation refused a round");
    }
    const float r = st.reward(dec.item);
    if (fed->active().reward(dec.id, r) != Status::ok) {
      throw std::runtime_error("o3m: the active party refused a reward");
    }
    bytes += fed->bytes_last_round();
    rw.sum[u] += r;
  });
  Outcome out;
  out.protocol = "o3m";
  out.reward_all = rw.mean_all(w);
  out.reward_late = rw.mean_late(w);
  out.epsilon = out.user_epsilon = out.formula_epsilon = std::numeric_limits<double>::infinity();
  // The passive party's masked message for each of the user's steps.
  const auto n = static_cast<double>(w.users);
  out.msgs_up = w.steps;
  out.bytes_up = static_cast<double>(bytes) / n;
  return out;
}

}  // namespace p2b::compare_sim
