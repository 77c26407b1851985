// The audit in CI: a small run (1,500 runs per world) under a fixed seed.
// It fails if a shipped mechanism's empirical lower bound exceeds its
// claimed epsilon, or if a deliberately broken variant goes uncaught. With
// the seed fixed the table is a function of the code alone, so the
// verdicts are stable; each broken variant's bound clears its claim by a
// wide margin (docs/privacy-audit.md), so a change of seed would not flip
// them either.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "audit/audit_report.hpp"
#include "audit/audit_run.hpp"
#include "audit/clopper_pearson.hpp"
#include "audit/distinguishing_game.hpp"
#include "audit/participation_delta.hpp"

namespace p2b::audit {
namespace {

TEST(AuditStatistics, ClopperPearsonMatchesKnownIntervals) {
  // 0 of 10: the upper end is 1 - 0.025^(1/10); 10 of 10: the lower end is 0.025^(1/10).
  EXPECT_NEAR(clopper_pearson_upper(0, 10, 0.05), 1.0 - std::pow(0.025, 0.1), 1e-9);
  EXPECT_NEAR(clopper_pearson_lower(10, 10, 0.05), std::pow(0.025, 0.1), 1e-9);
  // 5 of 10 (R's binom.test): [0.187086, 0.812914].
  EXPECT_NEAR(clopper_pearson_lower(5, 10, 0.05), 0.187086, 1e-6);
  EXPECT_NEAR(clopper_pearson_upper(5, 10, 0.05), 0.812914, 1e-6);
  EXPECT_EQ(clopper_pearson_upper(10, 10, 0.05), 1.0);
  EXPECT_EQ(clopper_pearson_lower(0, 10, 0.05), 0.0);
}

TEST(AuditStatistics, PerfectlySeparatedWorldsGiveALargeBoundAndIdenticalOnesNone) {
  const std::vector<double> zeros(2000, 0.0);
  const std::vector<double> ones(2000, 1.0);
  const GameResult separated = play_game(zeros, ones, 0.0);
  // 0 errors in 1000 runs each: ln((1 - 0.00368) / 0.00368) = 5.6.
  EXPECT_GT(separated.epsilon.lower, 5.0);
  const GameResult same = play_game(zeros, zeros, 0.0);
  EXPECT_EQ(same.epsilon.lower, 0.0);
}

TEST(AuditStatistics, ParticipationDeltaIsExactOnASmallCase) {
  // l = 1, p = 0.5, eps = ln 2: the worst crowd is the victim alone
  // (released with probability 1/2 only when present): delta = 1/2.
  EXPECT_NEAR(participation_delta(0.5, 1, std::log(2.0), 64), 0.5, 1e-12);
  // A higher threshold hides the lone victim: delta falls.
  EXPECT_LT(participation_delta(0.5, 10, std::log(2.0), 256), 0.01);
}

TEST(Audit, EveryShippedMechanismIsWithinItsClaimAndEveryBrokenVariantIsCaught) {
  AuditSettings settings;
  settings.trials = 1500;
  settings.seed = 29;
  settings.broken = true;
  const std::vector<AuditRow> rows = run_audit(settings);
  std::set<std::string> shipped;
  std::set<std::string> broken;
  for (const AuditRow& r : rows) {
    const std::string name = r.info.mechanism + " (" + r.info.variant + ")";
    if (r.info.kind == Variant::shipped) {
      shipped.insert(r.info.mechanism);
      EXPECT_LE(r.game.epsilon.lower, r.info.claimed_epsilon) << name;
    } else {
      broken.insert(r.info.mechanism);
      EXPECT_GT(r.game.epsilon.lower, r.info.claimed_epsilon) << name;
    }
    EXPECT_TRUE(verdict_passes(r.verdict)) << name << ": " << verdict_name(r.verdict);
  }
  // Every mechanism is audited, and each has a broken variant that was run.
  const std::set<std::string> mechanisms{"p2b_participation", "central_dp", "fclub_tree",
                                         "pfcb_shares", "o3m_mask"};
  for (const std::string& m : mechanisms) {
    EXPECT_EQ(shipped.count(m), 1U) << m;
    EXPECT_EQ(broken.count(m), 1U) << m;
  }
  EXPECT_NE(report_json(rows, settings).find("\"passed\": true"), std::string::npos);
}

TEST(Audit, TheSameSeedGivesTheSameTable) {
  AuditSettings settings;
  settings.trials = 200;
  settings.seed = 7;
  settings.broken = true;
  settings.only = {"p2b_participation", "pfcb_shares"};
  EXPECT_EQ(report_json(run_audit(settings), settings), report_json(run_audit(settings), settings));
}

}  // namespace
}  // namespace p2b::audit
