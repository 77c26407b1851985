// The incremental Cholesky LinUCB must agree with a plain double-precision
// fresh solve of the same data, even after 10^5 float rank-1 updates.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include "p2b/config.hpp"
#include "test_support.hpp"

namespace {

using p2b_test::make_agent;

struct Reference {
  std::vector<Eigen::MatrixXd> a;
  std::vector<Eigen::VectorXd> b;
};

void expect_scores_match(p2b_agent* agent, const Reference& ref, uint32_t d, uint32_t k_arms,
                         double alpha, std::mt19937_64& rng, double* worst) {
  for (int trial = 0; trial < 64; ++trial) {
    const std::vector<float> x = p2b_test::simplex_point(rng, d);
    std::vector<float> mean(k_arms), width(k_arms);
    ASSERT_EQ(p2b_agent_scores(agent, x.data(), d, mean.data(), width.data(), k_arms), P2B_OK);
    const std::vector<double> xn = p2b_test::normalised_as_agent<p2b::real>(x);
    const Eigen::Map<const Eigen::VectorXd> xv(xn.data(), d);
    for (uint32_t a = 0; a < k_arms; ++a) {
      const Eigen::LDLT<Eigen::MatrixXd> solver(ref.a[a]);
      const Eigen::VectorXd theta = solver.solve(ref.b[a]);
      const double ref_mean = theta.dot(xv);
      const double ref_width = std::sqrt(xv.dot(solver.solve(xv)));
      const double ref_score = ref_mean + alpha * ref_width;
      const double got = static_cast<double>(mean[a]) + alpha * static_cast<double>(width[a]);
      const double rel = std::fabs(got - ref_score) / std::fabs(ref_score);
      *worst = std::max(*worst, rel);
      ASSERT_LE(rel, 1e-4) << "arm " << a << " score " << got << " reference " << ref_score;
    }
  }
}

TEST(Numerics, IncrementalLinUcbMatchesDoubleFreshSolveAfter1e5Updates) {
  const uint32_t d = 10;
  const uint32_t k_arms = 10;
  p2b_config cfg = p2b_test::base_config(d, k_arms, 16, 1);
  auto t = make_agent(cfg);
  Reference ref;
  for (uint32_t a = 0; a < k_arms; ++a) {
    ref.a.push_back(Eigen::MatrixXd::Identity(d, d) * cfg.ridge_lambda);
    ref.b.push_back(Eigen::VectorXd::Zero(d));
  }
  std::mt19937_64 rng(42);
  double worst = 0.0;
  for (int step = 1; step <= 100000; ++step) {
    const std::vector<float> x = p2b_test::simplex_point(rng, d);
    const uint32_t a = static_cast<uint32_t>(rng() % k_arms);
    // Arm-dependent reward rate so theta is far from zero.
    const float r = (rng() % 1000) < 100 + 80 * a ? 1.0F : 0.0F;
    ASSERT_EQ(p2b_agent_learn(t.agent, x.data(), d, a, r), P2B_OK);
    const std::vector<double> xn = p2b_test::normalised_as_agent<p2b::real>(x);
    const Eigen::Map<const Eigen::VectorXd> xv(xn.data(), d);
    ref.a[a] += xv * xv.transpose();
    ref.b[a] += static_cast<double>(r) * xv;
    if (step == 1000 || step == 10000 || step == 100000) {
      expect_scores_match(t.agent, ref, d, k_arms, cfg.alpha, rng, &worst);
    }
  }
  RecordProperty("worst_relative_error", std::to_string(worst));
  std::printf("[ figure ] worst relative score error after 1e5 updates: %.3g\n", worst);
}

TEST(Numerics, ExportedGramMatrixMatchesAccumulatedSum) {
  const uint32_t d = 6;
  const uint32_t k_arms = 3;
  auto t = make_agent(p2b_test::base_config(d, k_arms, 8, 2));
  std::vector<Eigen::MatrixXd> a(k_arms, Eigen::MatrixXd::Identity(d, d));
  std::mt19937_64 rng(5);
  for (int step = 0; step < 2000; ++step) {
    const std::vector<float> x = p2b_test::simplex_point(rng, d);
    const uint32_t arm = static_cast<uint32_t>(rng() % k_arms);
    ASSERT_EQ(p2b_agent_learn(t.agent, x.data(), d, arm, 1.0F), P2B_OK);
    const std::vector<double> xn = p2b_test::normalised_as_agent<p2b::real>(x);
    const Eigen::Map<const Eigen::VectorXd> xv(xn.data(), d);
    a[arm] += xv * xv.transpose();
  }
  std::vector<double> ea(k_arms * d * d), eb(k_arms * d);
  ASSERT_EQ(p2b_agent_export(t.agent, ea.data(), eb.data(), k_arms, d), P2B_OK);
  for (uint32_t arm = 0; arm < k_arms; ++arm) {
    const Eigen::Map<const Eigen::MatrixXd> got(ea.data() + arm * d * d, d, d);
    EXPECT_LE((got - a[arm]).norm() / a[arm].norm(), 1e-5);
  }
}

}  // namespace
