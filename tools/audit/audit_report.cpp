#include "audit/audit_report.hpp"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace p2b::audit {

namespace {

std::string number(double v, const char* format = "%.3f") {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// JSON has no infinity: an unbounded figure is null.
nlohmann::json finite_or_null(double v) {
  if (!std::isfinite(v)) return nullptr;
  return v;
}

bool all_pass(const std::vector<AuditRow>& rows) {
  for (const AuditRow& r : rows) {
    if (!verdict_passes(r.verdict)) return false;
  }
  return true;
}

}  // namespace

std::string report_text(const std::vector<AuditRow>& rows, const AuditSettings& settings) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line,
                "p2b-audit: seed %llu, %zu runs per world (half choose the test, half score "
                "it), 95 %% Clopper-Pearson\n\n",
                static_cast<unsigned long long>(settings.seed), settings.trials);
  out += line;
  std::snprintf(line, sizeof line, "%-18s %-20s %-9s %-9s %7s %8s %-17s %s\n", "mechanism",
                "variant", "claim eps", "delta", "trials", "eps_lb", "95% CI (point)", "verdict");
  out += line;
  for (const AuditRow& r : rows) {
    const EpsilonBound& e = r.game.epsilon;
    const std::string ci = "[" + number(e.lower, "%.2f") + ", " + number(e.upper, "%.2f") + "] (" +
                           number(e.point, "%.2f") + ")";
    std::snprintf(line, sizeof line, "%-18s %-20s %-9s %-9s %7zu %8s %-17s %s\n",
                  r.info.mechanism.c_str(), r.info.variant.c_str(),
                  number(r.info.claimed_epsilon).c_str(),
                  number(r.info.claimed_delta, "%.2g").c_str(), 2 * r.trials,
                  number(e.lower).c_str(), ci.c_str(), verdict_name(r.verdict));
    out += line;
  }
  out += "\nunits and adversaries:\n";
  for (const AuditRow& r : rows) {
    if (r.info.kind == Variant::broken) continue;
    out += "  " + r.info.mechanism + ": " + r.info.unit + "; seen by " + r.info.adversary +
           "; claim: " + r.info.claim_source + "\n";
  }
  bool any_broken = false;
  for (const AuditRow& r : rows) any_broken = any_broken || r.info.kind == Variant::broken;
  if (!all_pass(rows)) {
    out += "\nresult: FAILED (see the verdicts above)\n";
  } else {
    out += any_broken ? "\nresult: every shipped mechanism within its claim, every broken "
                        "variant caught\n"
                      : "\nresult: every shipped mechanism within its claim\n";
  }
  return out;
}

std::string report_json(const std::vector<AuditRow>& rows, const AuditSettings& settings) {
  nlohmann::json doc;
  doc["tool"] = "p2b-audit";
  doc["seed"] = settings.seed;
  doc["runs_per_world"] = settings.trials;
  doc["confidence"] = 0.95;
  doc["rows"] = nlohmann::json::array();
  for (const AuditRow& r : rows) {
    const EpsilonBound& e = r.game.epsilon;
    nlohmann::json row;
    row["mechanism"] = r.info.mechanism;
    row["variant"] = r.info.variant;
    row["broken"] = r.info.kind == Variant::broken;
    row["unit"] = r.info.unit;
    row["adversary"] = r.info.adversary;
    row["claim_source"] = r.info.claim_source;
    row["claimed_epsilon"] = finite_or_null(r.info.claimed_epsilon);
    row["claimed_delta"] = r.info.claimed_delta;
    row["trials"] = 2 * r.trials;
    row["epsilon_lower_bound"] = e.lower;
    row["epsilon_ci"] = {e.lower, finite_or_null(e.upper)};
    row["epsilon_point"] = finite_or_null(e.point);
    row["held_out"] = {{"false_positives", r.game.held_out.false_positives},
                       {"world0_runs", r.game.held_out.world0_runs},
                       {"false_negatives", r.game.held_out.false_negatives},
                       {"world1_runs", r.game.held_out.world1_runs}};
    row["test"] = {{"threshold", r.game.test.threshold},
                   {"guess_world1_when", r.game.test.upper ? ">=" : "<="}};
    row["verdict"] = verdict_name(r.verdict);
    row["passed"] = verdict_passes(r.verdict);
    doc["rows"].push_back(row);
  }
  doc["passed"] = all_pass(rows);
  return doc.dump(2) + "\n";
}

}  // namespace p2b::audit
