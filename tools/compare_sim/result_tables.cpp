// A compare run's tables: runs.csv (one row per run) and summary.csv (one
// per env, protocol and knob or target, with its privacy unit and adversary).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "compare_sim/run_parts.hpp"

namespace p2b::compare_sim {

tools::ResultTable runs_table(const std::vector<Row>& rows) {
  tools::ResultTable t(
      {"env",        "protocol",        "knob",         "seed",      "reward_all", "reward_late",
       "epsilon",    "delta",           "msgs_up",      "msgs_down", "bytes_up",   "bytes_down",
       "detail",     "check",           "seconds",      "target",    "threshold",  "user_epsilon",
       "user_delta", "formula_epsilon", "ledger_units", "merges"});
  for (const Row& r : rows) {
    const Outcome& x = r.out;
    t.add_row({r.env,
               x.protocol,
               x.knob,
               static_cast<int64_t>(r.seed),
               x.reward_all,
               x.reward_late,
               x.epsilon,
               x.delta,
               x.msgs_up,
               x.msgs_down,
               x.bytes_up,
               x.bytes_down,
               x.detail,
               x.check,
               x.seconds,
               x.target,
               int64_t{x.threshold},
               x.user_epsilon,
               x.user_delta,
               x.formula_epsilon,
               static_cast<int64_t>(x.ledger_units),
               int64_t{x.merges}});
  }
  return t;
}

tools::ResultTable summary_table(const std::vector<Summary>& sum) {
  tools::ResultTable t({"env",          "protocol",      "knob",        "seeds",
                        "reward_all",   "reward_all_sd", "reward_late", "reward_late_sd",
                        "epsilon",      "delta",         "unit",        "adversary",
                        "msgs_up",      "msgs_down",     "bytes_up",    "bytes_down",
                        "bytes_total",  "detail",        "seconds",     "target",
                        "threshold",    "user_epsilon",  "user_delta",  "formula_epsilon",
                        "ledger_units", "merges"});
  for (const Summary& s : sum) {
    t.add_row({s.env,
               s.protocol,
               s.knob,
               int64_t{s.seeds},
               s.reward_all,
               s.reward_all_sd,
               s.reward_late,
               s.reward_late_sd,
               s.epsilon,
               s.delta,
               privacy_unit(s.protocol),
               privacy_adversary(s.protocol),
               s.msgs_up,
               s.msgs_down,
               s.bytes_up,
               s.bytes_down,
               s.bytes_up + s.bytes_down,
               s.detail,
               s.seconds,
               s.target,
               int64_t{s.threshold},
               s.user_epsilon,
               s.user_delta,
               s.formula_epsilon,
               s.ledger_units,
               s.merges});
  }
  return t;
}

const char* privacy_unit(const std::string& protocol) {
  if (protocol == "p2b") return "one report (at most one per user)";
  if (protocol == "fclub") return "one interaction";
  if (protocol == "pfcb")
    return "one interaction's contribution to one release; all releases composed";
  if (protocol == "pooled") return "none: every interaction in the clear";
  if (protocol == "o3m") return "none (no DP): features masked between parties";
  if (protocol == "fclub-alone") return "nothing leaves the user's local server";
  return "nothing leaves the device";
}

const char* privacy_adversary(const std::string& protocol) {
  if (protocol == "p2b")
    return "the analyzer (the shuffler sees who but is trusted not to collude)";
  if (protocol == "fclub")
    return "the global server and the other local servers (own local server trusted)";
  if (protocol == "pfcb") return "every other user and the relay";
  if (protocol == "pooled") return "the central server";
  if (protocol == "o3m")
    return "the active party sees every reward and inner product; the mask hides a passive "
           "party's raw features from it (mask generator trusted not to collude)";
  return "-";
}

}  // namespace p2b::compare_sim
