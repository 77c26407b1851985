// The attack central DP answers, shared by the SQLite test
// (test_central_dp.cpp) and the PostgreSQL one
// (tests/services/test_pg_central_dp.cpp): a victim's lone report in a crowd
// the attacker filled with sybil reports it knows exactly. Subtracting the
// sybils' sums (and the prior and the public shift) from the released
// model leaves the victim's report: read back exactly without central DP,
// buried in noise with it.
#pragma once

#include <cmath>
#include <vector>

#include "analyzer_test_support.hpp"
#include "central_dp.hpp"

namespace analyzer_test {

constexpr uint32_t kSybilActions = 3;
constexpr int kSybils = 40;  // one crowd (code 5): far more than any threshold l
const Tuple kVictim{5, 1, 1.0F};

// The sybils' reports, and the victim's last when `with_victim`.
inline std::vector<Tuple> sybil_crowd(bool with_victim) {
  std::vector<Tuple> reports;
  reports.reserve(kSybils + 1);
  for (int i = 0; i < kSybils; ++i) {
    reports.push_back({kVictim.code, static_cast<uint32_t>(i % kSybilActions), 0.0F});
  }
  if (with_victim) reports.push_back(kVictim);
  return reports;
}

struct ReadBack {
  uint32_t code = 0;        // the code whose x x^T fits the residual best
  double g_error = 0;       // || residual G - x x^T ||_F for the victim's x
  double b_error = 0;       // || residual b - r x ||
  double contribution = 0;  // || x x^T ||_F + || r x ||, the victim's own size
};

// What the attacker reads from `bundle`, the first model released after the
// crowd (one tree node: its shift is public), as a device would read it.
inline ReadBack read_back(const Deployment& dep, const std::vector<uint8_t>& bundle,
                          const p2b::analyzer::CentralDpConfig& dp) {
  const uint32_t d = dep.dim, actions = kSybilActions;
  auto device = p2b_test::make_agent(p2b_test::base_config(d, actions, dep.n_codes, 11));
  EXPECT_EQ(p2b_agent_apply_model(device.agent, bundle.data(), bundle.size()), P2B_OK);
  std::vector<double> a(static_cast<size_t>(actions) * d * d), b(static_cast<size_t>(actions) * d);
  EXPECT_EQ(p2b_agent_export(device.agent, a.data(), b.data(), actions, d), P2B_OK);
  Direct known(d, actions, 1.0);
  for (int i = 0; i < kSybils; ++i) known.add(i % actions, centroid(dep, kVictim.code), 0.0);
  double shift = 0;
  if (dp.enabled()) shift = p2b::analyzer::CentralDp(dp, p2b::dp::NoiseSeed{}).shift(d, 1);
  std::vector<double> rg(static_cast<size_t>(d) * d), rb(d);
  const size_t arm = kVictim.action;
  for (size_t i = 0; i < rg.size(); ++i) rg[i] = a[arm * d * d + i] - known.a[arm * d * d + i];
  for (uint32_t i = 0; i < d; ++i) rg[i * d + i] -= shift;
  for (uint32_t i = 0; i < d; ++i) rb[i] = b[arm * d + i] - known.b[arm * d + i];
  ReadBack out;
  double best = INFINITY;
  for (uint32_t c = 0; c < dep.n_codes; ++c) {
    const std::vector<double> x = centroid(dep, c);
    double err = 0;
    for (uint32_t i = 0; i < d; ++i)
      for (uint32_t j = 0; j < d; ++j) err += std::pow(rg[i * d + j] - x[i] * x[j], 2);
    if (err < best) best = err, out.code = c;
  }
  const std::vector<double> x = centroid(dep, kVictim.code);
  double gx = 0, bx = 0, xx = 0;
  for (uint32_t i = 0; i < d; ++i) {
    for (uint32_t j = 0; j < d; ++j) gx += std::pow(rg[i * d + j] - x[i] * x[j], 2);
    bx += std::pow(rb[i] - kVictim.reward * x[i], 2);
    xx += x[i] * x[i];
  }
  out.g_error = std::sqrt(gx);
  out.b_error = std::sqrt(bx);
  out.contribution = xx + std::sqrt(xx) * kVictim.reward;
  return out;
}

// The read-back succeeds: the victim's code, action and reward exactly.
inline void expect_read_back(const ReadBack& r) {
  EXPECT_EQ(r.code, kVictim.code);
  EXPECT_LT(r.g_error, 1e-3);
  EXPECT_LT(r.b_error, 1e-3);
  EXPECT_GT(r.contribution, 0.1);
}

// The read-back fails: the residual misses the victim's report by far more
// than the report itself.
inline void expect_no_read_back(const ReadBack& r) {
  EXPECT_GT(r.g_error, 10 * r.contribution);
  EXPECT_GT(r.b_error, 10 * r.contribution);
}

}  // namespace analyzer_test
