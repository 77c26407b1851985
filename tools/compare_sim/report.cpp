// What p2b-sim --protocol compare says after its runs: the summary table,
// each epsilon's unit and adversary, the oracle, and the cross-checks that
// the common random numbers and the --spends targets held.
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

#include "compare_sim/knob_solver.hpp"
#include "compare_sim/run_parts.hpp"

namespace p2b::compare_sim {
namespace {

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
  char b[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(b, sizeof b, fmt, ap);
  va_end(ap);
  return b;
}

void table_lines(const std::vector<Summary>& sum, std::vector<std::string>* out) {
  out->push_back("");
  out->push_back(format("%-10s %-11s %6s %9s %19s %19s %9s %9s %9s %8s %10s %10s %7s", "env",
                        "proto", "target", "knob", "reward (all)", "reward (late)", "eps", "delta",
                        "eps/user", "msgs/u", "B up/u", "B down/u", "detail"));
  for (const Summary& s : sum) {
    out->push_back(
        format("%-10s %-11s %6s %9s %9.5f+-%.5f %9.5f+-%.5f %9s %9s %9s %8.2f %10.0f %10.0f %7.3f",
               s.env.c_str(), s.protocol.c_str(), s.target > 0 ? num(s.target).c_str() : "-",
               num(s.knob).c_str(), s.reward_all, s.reward_all_sd, s.reward_late, s.reward_late_sd,
               num(s.epsilon).c_str(), num(s.delta).c_str(), num(s.user_epsilon).c_str(),
               s.msgs_up + s.msgs_down, s.bytes_up, s.bytes_down, s.detail));
  }
  out->push_back(
      "units and adversaries of eps (eps/user: per user over the horizon, same "
      "adversaries):");
  for (const char* p : {"p2b", "fclub", "pfcb", "o3m", "pooled"}) {
    out->push_back(format("  %-7s %s; %s", (std::string(p) + ":").c_str(), privacy_unit(p),
                          privacy_adversary(p)));
  }
  out->push_back(
      "detail: local the oracle's reward per step; p2b kept/reported after the crowd threshold; "
      "fclub global clusters at the end;");
  out->push_back("pfcb accepted/offered arm reports");
}

// The one exact cross-check the schedule allows: P2B's own cold late users
// are local-only's late users (same agent, same coins). Also the oracle.
void crosscheck_lines(const Options& o, const std::vector<Row>& rows,
                      std::vector<std::string>* out) {
  double worst = 0;
  for (const Row& r : rows) {
    if (r.out.protocol != "p2b") continue;
    for (const Row& l : rows) {
      if (l.out.protocol == "local" && l.env == r.env && l.seed == r.seed) {
        worst = std::max(worst, std::fabs(l.out.reward_late - r.out.check));
      }
    }
  }
  for (const std::string& env : o.envs) {
    double oracle = 0;
    int n = 0;
    for (const Row& r : rows) {
      if (r.out.protocol == "local" && r.env == env) {
        oracle += r.out.check;
        ++n;
      }
    }
    if (n > 0) {
      out->push_back(format("oracle (%s): %.5f per step, the best arm in expectation", env.c_str(),
                            oracle / n));
    }
  }
  uint64_t fallbacks = 0;
  for (const Row& r : rows) fallbacks += r.out.fallbacks;
  if (fallbacks > 0) {
    out->push_back(
        format("pfcb: %llu steps ran on a user's own statistics (peer sum refused by import)",
               static_cast<unsigned long long>(fallbacks)));
  }
  out->push_back(format(
      "check: P2B's cold late users against local-only's late users: largest gap %.3g", worst));
}

// Why FCLUB's reward may not move with epsilon: private runs against FCLUB
// with every server alone, on the same world.
void fclub_diagnosis(const std::vector<Row>& rows, std::vector<std::string>* out) {
  double gap = 0.0, merges = 0.0;
  int runs = 0;
  for (const Row& r : rows) {
    if (r.out.protocol != "fclub" || std::isinf(r.out.knob)) continue;
    for (const Row& a : rows) {
      if (a.out.protocol == "fclub-alone" && a.env == r.env && a.seed == r.seed) {
        gap = std::max(gap, std::fabs(r.out.reward_all - a.out.reward_all));
        merges += r.out.merges;
        ++runs;
      }
    }
  }
  if (runs == 0) return;
  out->push_back(
      format("fclub: private runs joined %.3g local clusters across servers per run; their "
             "rewards differ from every server alone by at most %.3g",
             merges / runs, gap));
}

// --spends: each private run's spend per user, from its own ledger, against
// its target and against the conversion's prediction from its knob.
bool spend_lines(const std::vector<Row>& rows, double delta, std::vector<std::string>* out) {
  double worst = 0.0;
  bool ok = true;
  bool any = false;
  for (const Row& r : rows) {
    const Outcome& x = r.out;
    if (!(x.target > 0.0)) continue;
    any = true;
    const double gap = std::max(std::fabs(x.user_epsilon - x.target),
                                std::fabs(x.user_epsilon - x.formula_epsilon)) /
                       x.target;
    worst = std::max(worst, gap);
    if (gap <= kSpendTolerance && x.user_delta <= delta * (1.0 + 1e-9)) continue;
    ok = false;
    out->push_back(
        format("spend missed: %s %s seed %llu: spent epsilon %g (formula %g) at delta %g, against "
               "the target %g at delta %g",
               r.env.c_str(), x.protocol.c_str(), static_cast<unsigned long long>(r.seed),
               x.user_epsilon, x.formula_epsilon, x.user_delta, x.target, delta));
  }
  if (any) {
    out->push_back(format(
        "check: epsilon per user spent (own ledgers) against the targets: largest relative gap "
        "%.3g (tolerance %g)",
        worst, kSpendTolerance));
  }
  return ok;
}

}  // namespace

std::string num(double v) {
  if (std::isinf(v)) return "inf";
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

std::vector<std::string> report_lines(const Options& o, const std::vector<Row>& rows,
                                      const std::vector<Summary>& sum, bool* spends_ok) {
  std::vector<std::string> out;
  table_lines(sum, &out);
  crosscheck_lines(o, rows, &out);
  fclub_diagnosis(rows, &out);
  *spends_ok = spend_lines(rows, o.delta, &out);
  return out;
}

}  // namespace p2b::compare_sim
