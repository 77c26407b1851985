// Runs the distinguishing game for every mechanism's rows and gives each its
// verdict: a shipped row passes when its empirical lower bound stays at or
// below the claimed epsilon, a broken row when the bound exceeds it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "audit/audit_case.hpp"
#include "audit/distinguishing_game.hpp"

namespace p2b::audit {

struct AuditSettings {
  std::size_t trials = 4000;  // runs per world; half choose the test, half score it
  uint64_t seed = 1;
  bool broken = false;            // also run the broken variants
  std::vector<std::string> only;  // mechanisms to run; empty: all
  // Called before each row (index, rows, its name); may be empty.
  std::function<void(std::size_t, std::size_t, const std::string&)> progress;
};

enum class Verdict { within_claim, no_bound_claimed, exceeds_claim, caught, missed };

const char* verdict_name(Verdict v);
bool verdict_passes(Verdict v);

struct AuditRow {
  AuditCase info;  // its `sample` is dropped once run
  std::size_t trials = 0;
  GameResult game;
  Verdict verdict = Verdict::within_claim;
};

// All mechanisms' rows, broken variants included, in the table's order.
std::vector<AuditCase> all_cases();
// The mechanisms' names, in order, for --only.
std::vector<std::string> mechanism_names();

std::vector<AuditRow> run_audit(const AuditSettings& settings);

}  // namespace p2b::audit
