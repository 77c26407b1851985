// The conversions of privacy_spend.hpp against values worked by hand
// (docs/results.md, "Equal privacy", has the formulas and their sources).
#include <gtest/gtest.h>

#include <cmath>

#include "compare_sim/privacy_spend.hpp"
#include "fclub/cdp_ledger.hpp"
#include "fclub/fclub_config.hpp"

namespace p2b::compare_sim {
namespace {

TEST(PrivacySpend, ZcdpToEpsilonIsRhoPlusTwoRootRhoLogOneOverDelta) {
  // 0.5 + 2 sqrt(0.5 ln 1e5) = 0.5 + 2 x 2.3992630 = 5.2985259
  EXPECT_NEAR(zcdp_to_epsilon(0.5, 1e-5), 5.2985259122, 1e-9);
  EXPECT_EQ(zcdp_to_epsilon(0.0, 1e-5), 0.0);
}

TEST(PrivacySpend, GroupOfRecordsCostsItsSizeSquared) {
  EXPECT_DOUBLE_EQ(zcdp_group_rho(0.01, 10), 1.0);
  EXPECT_DOUBLE_EQ(zcdp_group_rho(0.25, 1), 0.25);
}

TEST(PrivacySpend, P2bReportIsMinusLogOneMinusPWithCrowdDelta) {
  const Spend one = p2b_user_spend(0.5, 10, 1);
  EXPECT_NEAR(one.epsilon, std::log(2.0), 1e-12);  // the paper's epsilon at p = 0.5
  EXPECT_NEAR(one.delta, 0.0820849986, 1e-9);      // exp(-10 x 0.25)
  // The paper's own Eq. 2, ln(p (2 - p) / (1 - p) + 1 - p), at p = 0.1.
  EXPECT_NEAR(p2b_user_spend(0.1, 10, 1).epsilon, std::log(0.1 * 1.9 / 0.9 + 0.9), 1e-12);
  const Spend two = p2b_user_spend(0.5, 10, 2);  // two reports compose basically
  EXPECT_NEAR(two.epsilon, 2.0 * std::log(2.0), 1e-12);
  EXPECT_NEAR(two.delta, 2.0 * 0.0820849986, 1e-9);
}

TEST(PrivacySpend, CentralDpTightensOnlyThePublicStatement) {
  const Spend analyzer = p2b_user_spend(0.5, 10, 1);
  // rho 0.01: 0.01 + 2 sqrt(0.01 ln 1e5) = 0.6886140 < ln 2
  const Spend pub = p2b_public_spend(analyzer, 0.01, 1e-5);
  EXPECT_NEAR(pub.epsilon, 0.6886140424, 1e-9);
  EXPECT_EQ(pub.delta, 1e-5);
  // A weaker central release leaves the analyzer's statement in force.
  EXPECT_EQ(p2b_public_spend(analyzer, 0.5, 1e-5).epsilon, analyzer.epsilon);
  EXPECT_EQ(p2b_public_spend(analyzer, 0.0, 1e-5).epsilon, analyzer.epsilon);
}

TEST(PrivacySpend, FclubUserIsAGroupOfItsInteractions) {
  // rho 0.001 per record, 10 records: 0.1 + 2 sqrt(0.1 ln 1e5) = 2.2459660
  EXPECT_NEAR(fclub_user_spend(0.001, 10, 1e-5).epsilon, 2.2459660263, 1e-9);
  EXPECT_EQ(fclub_user_spend(0.001, 10, 1e-5).delta, 1e-5);
}

TEST(PrivacySpend, FclubFullLedgerSpendsTheKnobPerRecord) {
  fclub::FclubConfig cfg;
  cfg.private_uploads = true;
  cfg.delta = 1e-5;
  const fclub::CdpPlan plan = fclub::plan_cdp(cfg);
  const uint64_t all = plan.tree_levels + plan.phase_releases;
  // Every node the plan allows charged: one record spends exactly the knob.
  EXPECT_NEAR(fclub_user_spend(fclub_rho_per_record(cfg, 2.0, all), 1, 1e-5).epsilon, 2.0, 1e-9);
  // Each node charged costs the same: the rho is linear in the nodes.
  EXPECT_NEAR(fclub_rho_per_record(cfg, 2.0, 6), 6.0 * fclub_rho_per_record(cfg, 2.0, 1), 1e-15);
}

TEST(PrivacySpend, PfcbSigmaFollowsThePapersSplit) {
  // eps_1 = 1 / (2 log2 10) + 1 / 4 = 0.4005150; sigma = sqrt(2) sqrt(2 ln 1.25e5) / eps_1
  EXPECT_NEAR(pfcb_release_sigma(1.0, 10, 1, 1e-5), 17.1069481705, 1e-8);
  // Two interactions in one posting: twice the mu, four times mu^2.
  EXPECT_NEAR(pfcb_posting_mu2(17.0, 2), 4.0 * pfcb_posting_mu2(17.0, 1), 1e-15);
  EXPECT_NEAR(pfcb_posting_mu2(1.0, 1), 2.0, 1e-15);
}

TEST(PrivacySpend, PfcbUserComposesItsFourPostingsByWhatEachCarries) {
  // T_u = 10: postings at rounds 1, 2, 4, 8 carry 1, 1, 2, 4 interactions
  // (rounds 9 and 10 are never posted): mu = 0.2008029, and Gaussian DP's
  // epsilon at delta 1e-5 for it is 0.7287071 (bisection on
  // Phi(-e/mu + mu/2) - e^e Phi(-e/mu - mu/2) = 1e-5, worked apart).
  const Spend s = pfcb_user_spend(1.0, 10, 1e-5);
  EXPECT_NEAR(s.epsilon, 0.7287070566, 1e-6);
  EXPECT_EQ(s.delta, 1e-5);
}

}  // namespace
}  // namespace p2b::compare_sim
