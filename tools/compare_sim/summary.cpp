// A compare run's rows, summarised over seeds per (env, protocol, knob or target).
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "compare_sim/run_parts.hpp"

namespace p2b::compare_sim {
namespace {

double sd(const std::vector<double>& v) {
  if (v.size() < 2) return 0.0;
  double m = 0;
  for (double x : v) m += x;
  m /= static_cast<double>(v.size());
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size() - 1));
}

}  // namespace

std::vector<Summary> summarise(const std::vector<Row>& rows) {
  // A row belongs with the other seeds' rows of its target, else of its knob.
  using Key = std::tuple<std::string, std::string, double, double>;
  std::map<Key, std::vector<const Row*>> groups;
  std::vector<Key> order;
  for (const Row& r : rows) {
    const double knob = r.out.target > 0 ? 0.0 : r.out.knob;
    const Key key = std::make_tuple(r.env, r.out.protocol, r.out.target, knob);
    if (groups[key].empty()) order.push_back(key);
    groups[key].push_back(&r);
  }
  std::vector<Summary> out;
  for (const Key& key : order) {
    const auto& g = groups[key];
    Summary s;
    std::tie(s.env, s.protocol, s.target, s.knob) = key;
    s.seeds = static_cast<uint32_t>(g.size());
    std::vector<double> all, late;
    const auto n = static_cast<double>(g.size());
    for (const Row* r : g) {
      all.push_back(r->out.reward_all);
      late.push_back(r->out.reward_late);
      s.reward_all += r->out.reward_all / n;
      s.reward_late += r->out.reward_late / n;
      if (s.target > 0) s.knob += r->out.knob / n;  // a target's knob: the mean over seeds
      s.threshold = std::max(s.threshold, r->out.threshold);
      s.epsilon = std::max(s.epsilon, r->out.epsilon);
      s.delta = std::max(s.delta, r->out.delta);
      s.user_epsilon = std::max(s.user_epsilon, r->out.user_epsilon);
      s.user_delta = std::max(s.user_delta, r->out.user_delta);
      s.formula_epsilon = std::max(s.formula_epsilon, r->out.formula_epsilon);
      s.ledger_units += static_cast<double>(r->out.ledger_units) / n;
      s.merges += r->out.merges / n;
      s.msgs_up += r->out.msgs_up / n;
      s.msgs_down += r->out.msgs_down / n;
      s.bytes_up += r->out.bytes_up / n;
      s.bytes_down += r->out.bytes_down / n;
      s.detail += r->out.detail / n;
      s.seconds += r->out.seconds / n;
    }
    s.reward_all_sd = sd(all);
    s.reward_late_sd = sd(late);
    out.push_back(s);
  }
  // Stable order for readers: env, then protocol as the brief lists them, then knob.
  const std::vector<std::string> rank{"local", "p2b", "fclub", "fclub-alone",
                                      "pfcb",  "o3m", "pooled"};
  auto pos = [&](const std::string& p) {
    return std::find(rank.begin(), rank.end(), p) - rank.begin();
  };
  std::stable_sort(out.begin(), out.end(), [&](const Summary& a, const Summary& b) {
    if (a.env != b.env) return a.env > b.env;  // synthetic before multilabel
    if (a.protocol != b.protocol) return pos(a.protocol) < pos(b.protocol);
    // Targets in order, the non-private reference (target 0, knob inf) last.
    const double ta = a.target > 0 ? a.target : a.knob, tb = b.target > 0 ? b.target : b.knob;
    return ta < tb;
  });
  return out;
}

}  // namespace p2b::compare_sim
