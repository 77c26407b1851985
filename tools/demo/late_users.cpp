#include "late_users.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>

#include "sim/progress.hpp"

namespace p2b::demo {
namespace {

void print_reports(const Options& o, const DemoSummary& s) {
  const BatchFigures& b = s.batch;
  std::printf(
      "\nreports: %zu sent, %.0f accepted by the shuffler, %.0f dropped below l=%u, "
      "%.0f forwarded, %.0f applied by the analyzer\n",
      s.sent, b.received, b.thresholded, o.threshold, b.forwarded, b.applied);
  if (o.on_postgresql()) {
    // Every accepted report above l must be in the published model once.
    const double passed = b.received - b.thresholded;
    const double in_model = static_cast<double>(b.published.reports);
    std::printf(
        "backend: postgresql (%d partitions; ingest node + batcher, worker + publisher; the "
        "raw baseline on SQLite): model version %lld holds %.0f reports, lost %.0f, "
        "duplicated %.0f\n",
        kPgPartitions, static_cast<long long>(b.published.version), in_model,
        std::max(0.0, passed - in_model), std::max(0.0, in_model - passed));
  }
  std::printf("model: %zu-byte signed bundle fetched over HTTP, verified by every late device\n",
              s.bundle_bytes);
}

}  // namespace

LateRewards evaluate_late_users(const Options& o, sim::CAgent& device, const sim::SyntheticEnv& env,
                                const sim::Model& private_model, const sim::Model& raw_model) {
  LateRewards r;
  r.users = std::max<uint32_t>(1, o.users * 3 / 7);
  const sim::CohortSpec cohort{kDim, kActions, kWindow, o.seed, r.users};
  sim::progress("late users", 0, 4);
  r.cold = sim::evaluate_late(device, env, cohort, nullptr);
  sim::progress("late users", 1, 4);
  r.warm_private = private_model.signed_bundle.empty()
                       ? r.cold
                       : sim::evaluate_late(device, env, cohort, &private_model);
  sim::progress("late users", 2, 4);
  r.warm_nonprivate = raw_model.signed_bundle.empty()
                          ? r.cold
                          : sim::evaluate_late(device, env, cohort, &raw_model);
  sim::progress("late users", 3, 4);
  r.oracle = sim::evaluate_late(device, env, cohort, nullptr, sim::Late::oracle);
  sim::progress("late users", 4, 4);
  return r;
}

void report(const Options& o, const std::filesystem::path& out, const DemoSummary& s) {
  print_reports(o, s);
  double eps = 0.0;
  sim::check(p2b_epsilon_per_report(kParticipation, &eps), "epsilon");
  std::printf(
      "privacy: epsilon %.4f per report; each user closes one window, so <= %.4f per "
      "user\n\n",
      eps, eps);
  const std::string header = "late users (" + std::to_string(s.late.users) + ")";
  std::printf("%-34s %10s %10s\n", header.c_str(), "reward", "+- s.e.");
  const std::pair<const char*, sim::Estimate> rows[] = {
      {"cold (local only)", s.late.cold},
      {"warm, private (P2B)", s.late.warm_private},
      {"warm, non-private (raw tuples)", s.late.warm_nonprivate},
      {"oracle (best arm in expectation)", s.late.oracle}};
  std::string csv = "setting,reward,stderr\n";
  for (const auto& [name, e] : rows) {
    std::printf("%-34s %10.4f %10.4f\n", name, e.mean, e.stderr_);
    // Names hold commas: quote them.
    csv += "\"" + std::string(name) + "\"," + std::to_string(e.mean) + "," +
           std::to_string(e.stderr_) + "\n";
  }
  std::ofstream(out / "results.csv") << csv;
}

}  // namespace p2b::demo
