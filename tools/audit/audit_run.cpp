#include "audit/audit_run.hpp"

#include <algorithm>
#include <cmath>

namespace p2b::audit {

namespace {

Verdict judge(const AuditCase& c, double lower_bound) {
  const bool exceeds = lower_bound > c.claimed_epsilon;
  if (c.kind == Variant::broken) return exceeds ? Verdict::caught : Verdict::missed;
  if (std::isinf(c.claimed_epsilon)) return Verdict::no_bound_claimed;
  return exceeds ? Verdict::exceeds_claim : Verdict::within_claim;
}

// FNV-1a: a row's stream from its name, the same on every platform (unlike
// std::hash).
uint64_t name_stream(const std::string& name) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const char ch : name) {
    h ^= static_cast<unsigned char>(ch);
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::within_claim:
      return "within claim";
    case Verdict::no_bound_claimed:
      return "no bound claimed";
    case Verdict::exceeds_claim:
      return "EXCEEDS CLAIM";
    case Verdict::caught:
      return "caught";
    case Verdict::missed:
      return "MISSED";
  }
  return "?";
}

bool verdict_passes(Verdict v) {
  return v == Verdict::within_claim || v == Verdict::no_bound_claimed || v == Verdict::caught;
}

std::vector<AuditCase> all_cases() {
  std::vector<AuditCase> all;
  for (auto&& part : {p2b_participation_cases(), central_dp_cases(), fclub_tree_cases(),
                      pfcb_share_cases(), o3m_mask_cases()}) {
    all.insert(all.end(), part.begin(), part.end());
  }
  return all;
}

std::vector<std::string> mechanism_names() {
  std::vector<std::string> names;
  for (const AuditCase& c : all_cases()) {
    if (std::find(names.begin(), names.end(), c.mechanism) == names.end()) {
      names.push_back(c.mechanism);
    }
  }
  return names;
}

std::vector<AuditRow> run_audit(const AuditSettings& settings) {
  std::vector<AuditCase> cases;
  for (AuditCase& c : all_cases()) {
    if (c.kind == Variant::broken && !settings.broken) continue;
    if (!settings.only.empty() &&
        std::find(settings.only.begin(), settings.only.end(), c.mechanism) == settings.only.end()) {
      continue;
    }
    cases.push_back(std::move(c));
  }
  std::vector<AuditRow> rows;
  rows.reserve(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    AuditCase& c = cases[i];
    if (settings.progress) settings.progress(i, cases.size(), c.mechanism + " (" + c.variant + ")");
    // Each row and world draws from its own stream: rows do not depend on
    // which others were selected, and the worlds share no randomness.
    const uint64_t row_seed = mix_seed(settings.seed, name_stream(c.mechanism + "/" + c.variant));
    const std::vector<double> world0 = c.sample(0, settings.trials, mix_seed(row_seed, 0));
    const std::vector<double> world1 = c.sample(1, settings.trials, mix_seed(row_seed, 1));
    AuditRow row;
    row.trials = settings.trials;
    row.game = play_game(world0, world1, c.claimed_delta);
    row.verdict = judge(c, row.game.epsilon.lower);
    c.sample = nullptr;
    row.info = std::move(c);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace p2b::audit
