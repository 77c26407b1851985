// The decision path: decide, reward, learn, scores, and what a context
// encodes to. Set-up is in agent_init.cpp, reporting in agent_reports.cpp,
// warm starts in warm_start.cpp and model_apply.cpp, storage in
// agent_storage.cpp; the state they share is AgentState (agent_state.hpp).
#include <cmath>
#include <cstring>

#include "agent_state.hpp"
#include "encoder.hpp"

namespace p2b {

namespace {

Status check_input_context(const AgentState& s, const float* x, std::size_t len) {
  if (len != s.arms.dim()) return Status::dimension_mismatch;
  return check_context(x, s.arms.dim());
}

Status check_reward(float r) {
  if (!std::isfinite(r)) return Status::non_finite;
  if (!(r >= 0.0F && r <= 1.0F)) return Status::reward_out_of_range;
  return Status::ok;
}

// mu = theta + v L^-T xi with xi ~ N(0, I): its covariance is v^2 A^-1.
Status draw_parameters(AgentState& s, uint32_t action, real* mu) {
  const uint32_t d = s.arms.dim();
  real xi[kMaxDim];
  real u[kMaxDim];
  for (uint32_t i = 0; i < d; ++i) {
    double g = 0.0;
    const Status st = s.rng.gaussian(&g);
    if (st != Status::ok) return st;
    xi[i] = static_cast<real>(g);
  }
  const ArmView av = s.arms.arm(action);
  arm_unwhiten(av, xi, u);
  const real v = static_cast<real>(s.ts_scale);
  for (uint32_t i = 0; i < d; ++i) mu[i] = av.theta[i] + v * u[i];
  return Status::ok;
}

Status score_arm(AgentState& s, uint32_t a, const real* xn, real* score) {
  const uint32_t d = s.arms.dim();
  if (s.policy == Policy::linucb) {
    real z[kMaxDim];
    real mean = 0;
    real width = 0;
    arm_mean_width(s.arms.arm(a), xn, z, &mean, &width);
    *score = mean + static_cast<real>(s.alpha) * width;
    return Status::ok;
  }
  real mu[kMaxDim];
  const Status st = draw_parameters(s, a, mu);
  if (st != Status::ok) return st;
  real sum = 0;
  for (uint32_t i = 0; i < d; ++i) sum += mu[i] * xn[i];
  *score = sum;
  return Status::ok;
}

// LinUCB scores of the arms a(j) = (start + j) mod K for j in [first, first +
// kArmGroup), computed side by side (ridge_arm.hpp).
void linucb_group_scores(const AgentState& s, const real* xn, uint32_t start, uint32_t first,
                         real* score) {
  const uint32_t k_arms = s.arms.count();
  ArmView arms[kArmGroup];
  for (uint32_t g = 0; g < kArmGroup; ++g) arms[g] = s.arms.arm((start + first + g) % k_arms);
  real mean[kArmGroup];
  real width[kArmGroup];
  arm_group_mean_width(arms, xn, mean, width);
  for (uint32_t g = 0; g < kArmGroup; ++g) {
    score[g] = mean[g] + static_cast<real>(s.alpha) * width[g];
  }
}

Status choose(AgentState& s, const real* xn, uint64_t rotation, uint32_t* action) {
  const uint32_t k_arms = s.arms.count();
  real best = -INFINITY;
  uint32_t best_a = 0;
  // Scanning from a rotating start and keeping the first strict maximum breaks
  // exact ties (e.g. every arm of a fresh agent) round-robin, never toward arm 0.
  const uint32_t start = static_cast<uint32_t>(rotation % k_arms);
  const bool grouped = s.policy == Policy::linucb;
  real group[kArmGroup];
  for (uint32_t j = 0; j < k_arms; ++j) {
    const uint32_t a = (start + j) % k_arms;
    real score = 0;
    if (grouped && j % kArmGroup == 0 && j + kArmGroup <= k_arms) {
      linucb_group_scores(s, xn, start, j, group);
    }
    if (grouped && j - j % kArmGroup + kArmGroup <= k_arms) {
      score = group[j % kArmGroup];
    } else {
      const Status st = score_arm(s, a, xn, &score);
      if (st != Status::ok) return st;
    }
    if (score > best) {
      best = score;
      best_a = a;
    }
  }
  *action = best_a;
  return Status::ok;
}

}  // namespace

Status Agent::decide(const float* x, std::size_t len, uint32_t* action, uint64_t* decision_id) {
  if (x == nullptr || action == nullptr || decision_id == nullptr) return Status::null_pointer;
  AgentState& s = AgentState::of(this);
  Status st = check_input_context(s, x, len);
  if (st != Status::ok) return st;
  real xn[kMaxDim];
  normalise_context(x, s.arms.dim(), xn);
  uint32_t a = 0;
  // A random source failing halfway through LinTS draws would otherwise leave
  // a cached Gaussian behind; roll the generator back with everything else.
  const Rng::State rng_before = s.rng.state();
  st = choose(s, xn, s.pending.next_id(), &a);
  if (st != Status::ok) {
    s.rng.set_state(rng_before);
    return st;
  }
  *decision_id = s.pending.push(a, xn);
  *action = a;
  return Status::ok;
}

Status Agent::reward(uint64_t decision_id, float r) {
  Status st = check_reward(r);
  if (st != Status::ok) return st;
  AgentState& s = AgentState::of(this);
  uint32_t slot_index = 0;
  st = s.pending.find_awaiting(decision_id, &slot_index);
  if (st != Status::ok) return st;
  const PendingSlot& slot = s.pending.slot(slot_index);

  // Everything that can fail comes before the first change: the staged
  // update, then the window's randomness.
  if (!s.arms.stage_update(slot.action, s.pending.context(slot_index), static_cast<real>(r))) {
    return Status::numeric_range;
  }
  const bool closes_window = s.reporter.next_interaction_closes_window();
  double u[3] = {0, 0, 0};
  if (closes_window) {
    st = Reporter::draw_window_randomness(s.rng, u);
    if (st != Status::ok) return st;
  }
  s.arms.commit_update(slot.action);
  s.pending.mark_rewarded(slot_index);
  s.reporter.record(slot.action, r, s.pending.context(slot_index));
  if (closes_window) s.reporter.close_window(u, s.codebook);
  return Status::ok;
}

Status Agent::learn(const float* x, std::size_t len, uint32_t action, float r) {
  if (x == nullptr) return Status::null_pointer;
  AgentState& s = AgentState::of(this);
  Status st = check_input_context(s, x, len);
  if (st != Status::ok) return st;
  if (action >= s.arms.count()) return Status::action_out_of_range;
  st = check_reward(r);
  if (st != Status::ok) return st;
  real xn[kMaxDim];
  normalise_context(x, s.arms.dim(), xn);
  if (!s.arms.stage_update(action, xn, static_cast<real>(r))) return Status::numeric_range;
  s.arms.commit_update(action);
  return Status::ok;
}

Status Agent::forget() {
  AgentState& s = AgentState::of(this);
  s.arms.reset_all(static_cast<real>(s.ridge_lambda));
  // Zeroed as init leaves them, so a saved state still depends only on the
  // history since the last forget; unsent reports describe forgotten data.
  s.pending.clear();
  s.reporter.clear();
  return Status::ok;
}

Status Agent::scores(const float* x, std::size_t len, float* mean, float* width, std::size_t cap) {
  if (x == nullptr || mean == nullptr || width == nullptr) return Status::null_pointer;
  AgentState& s = AgentState::of(this);
  const Status st = check_input_context(s, x, len);
  if (st != Status::ok) return st;
  if (cap < s.arms.count()) return Status::buffer_too_small;
  real xn[kMaxDim];
  real z[kMaxDim];
  normalise_context(x, s.arms.dim(), xn);
  for (uint32_t a = 0; a < s.arms.count(); ++a) {
    real m = 0;
    real w = 0;
    arm_mean_width(s.arms.arm(a), xn, z, &m, &w);
    mean[a] = static_cast<float>(m);
    width[a] = static_cast<float>(w);
  }
  return Status::ok;
}

Status Agent::sample_parameters(uint32_t action, real* mu, std::size_t len) {
  if (mu == nullptr) return Status::null_pointer;
  AgentState& s = AgentState::of(this);
  if (action >= s.arms.count()) return Status::action_out_of_range;
  if (len != s.arms.dim()) return Status::dimension_mismatch;
  return draw_parameters(s, action, mu);
}

Status Agent::encode(const float* x, std::size_t len, uint32_t* code) const {
  if (x == nullptr || code == nullptr) return Status::null_pointer;
  const AgentState& s = AgentState::of(this);
  const Status st = check_input_context(s, x, len);
  if (st != Status::ok) return st;
  real xn[kMaxDim];
  normalise_context(x, s.arms.dim(), xn);
  *code = s.codebook.encode(xn);
  return Status::ok;
}

Status Agent::centroid(uint32_t code, float* out, std::size_t len) const {
  if (out == nullptr) return Status::null_pointer;
  const AgentState& s = AgentState::of(this);
  if (code >= s.codebook.size()) return Status::code_out_of_range;
  if (len != s.arms.dim()) return Status::dimension_mismatch;
  std::memcpy(out, s.codebook.centroid(code), s.arms.dim() * sizeof(float));
  return Status::ok;
}

uint64_t Agent::model_version() const {
  return AgentState::of(this).model_version;
}

uint32_t Agent::dim() const {
  return AgentState::of(this).arms.dim();
}

uint32_t Agent::n_actions() const {
  return AgentState::of(this).arms.count();
}

}  // namespace p2b
