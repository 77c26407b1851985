// The decision path: decide, reward, learn, scores, and what a context
// encodes to. Set-up is in agent_init.cpp, reporting in agent_reports.cpp,
// warm starts in warm_start.cpp and model_apply.cpp, storage in
// agent_storage.cpp; the state they share is AgentState (agent_state.hpp).
#include <cmath>
#include <cstring>

#include "agent_state.hpp"
#include "arm_lanes.hpp"
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
// theta is kept whitened (ridge_arm.hpp), so mu = L^-T (zb + v xi): one
// back substitution, as before.
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
  const real v = static_cast<real>(s.ts_scale);
  for (uint32_t i = 0; i < d; ++i) u[i] = av.zb[i] + v * xi[i];
  arm_unwhiten(av, u, mu);
  return Status::ok;
}

// A LinTS score: theta + v L^-T xi drawn, then dotted with the context.
Status sample_score(AgentState& s, uint32_t a, const real* xn, real* score) {
  const uint32_t d = s.arms.dim();
  real mu[kMaxDim];
  const Status st = draw_parameters(s, a, mu);
  if (st != Status::ok) return st;
  real sum = 0;
  for (uint32_t i = 0; i < d; ++i) sum += mu[i] * xn[i];
  *score = sum;
  return Status::ok;
}

// LinUCB scores of the kArmLanes arms of lane group `g`, side by side
// (arm_lanes.hpp); the spare lanes of the last group are scored and ignored.
void linucb_group_scores(const AgentState& s, const real* xn, uint32_t g, real* score) {
  real mean[kArmLanes];
  real width[kArmLanes];
  lanes_mean_width(s.arms.lane_group(g), s.arms.dim(), xn, mean, width);
  for (uint32_t lane = 0; lane < kArmLanes; ++lane) {
    score[lane] = mean[lane] + static_cast<real>(s.alpha) * width[lane];
  }
}

// The arm of highest score; exact ties go to the arm met first when scanning
// from `start`, so that they break round-robin (e.g. every arm of a fresh
// agent), never toward arm 0. NaN and -inf never win, as in a scan that
// keeps the first strict maximum.
struct BestArm {
  uint32_t start = 0;
  uint32_t k_arms = 1;
  real score = -INFINITY;
  uint32_t arm = 0;

  uint32_t rank(uint32_t a) const { return (a + k_arms - start) % k_arms; }
  void offer(uint32_t a, real score_a) {
    const bool tie = score_a == score && score_a > -INFINITY && rank(a) < rank(arm);
    if (score_a > score || tie) {
      score = score_a;
      arm = a;
    }
  }
};

Status choose(AgentState& s, const real* xn, uint64_t rotation, uint32_t* action) {
  const uint32_t k_arms = s.arms.count();
  BestArm best{static_cast<uint32_t>(rotation % k_arms), k_arms};
  if (s.policy == Policy::linucb) {
    // Scores do not depend on the order they are computed in, so the arms
    // go group by group.
    for (uint32_t g = 0; g < s.arms.lane_groups(); ++g) {
      real score[kArmLanes];
      linucb_group_scores(s, xn, g, score);
      for (uint32_t lane = 0; lane < kArmLanes && g * kArmLanes + lane < k_arms; ++lane) {
        best.offer(g * kArmLanes + lane, score[lane]);
      }
    }
  } else {
    // LinTS draws in scan order: the random stream fixes which arm gets
    // which draw.
    for (uint32_t j = 0; j < k_arms; ++j) {
      const uint32_t a = (best.start + j) % k_arms;
      real score = 0;
      const Status st = sample_score(s, a, xn, &score);
      if (st != Status::ok) return st;
      best.offer(a, score);
    }
  }
  *action = best.arm;
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
  normalise_context(x, s.arms.dim(), xn);
  // The decision's own kernel, so these are the scores decide compares.
  for (uint32_t g = 0; g < s.arms.lane_groups(); ++g) {
    real m[kArmLanes];
    real w[kArmLanes];
    lanes_mean_width(s.arms.lane_group(g), s.arms.dim(), xn, m, w);
    for (uint32_t lane = 0; lane < kArmLanes && g * kArmLanes + lane < s.arms.count(); ++lane) {
      mean[g * kArmLanes + lane] = static_cast<float>(m[lane]);
      width[g * kArmLanes + lane] = static_cast<float>(w[lane]);
    }
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
