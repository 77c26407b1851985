#include "vfl/service_metrics.hpp"

#include <string>
#include <utility>
#include <vector>

#include "common/prometheus_text.hpp"

namespace p2b::vfl {

namespace {

double seconds(uint64_t ns) {
  return static_cast<double>(ns) / 1e9;
}

// One sample per passive party j >= 1 (index 0, the active party, is unused).
std::vector<std::pair<std::string, uint64_t>> by_party(const std::vector<uint64_t>& v) {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (std::size_t j = 1; j < v.size(); ++j) out.emplace_back(std::to_string(j), v[j]);
  return out;
}

}  // namespace

void render_party_metrics(common::PrometheusText& out, const PartyStats& s, uint64_t epoch) {
  out.counter("p2b_vfl_party_answered_total", "Masked requests answered.", s.answered);
  out.counter("p2b_vfl_party_refused_total", "Masked requests refused.", s.refused);
  out.real_counter("p2b_vfl_party_busy_seconds_total",
                   "Time spent answering, from the request body to the sealed reply.",
                   seconds(s.busy_ns));
  out.real_counter("p2b_vfl_party_persist_seconds_total",
                   "Of which writing and syncing each round to the state file.",
                   seconds(s.persist_ns));
  out.gauge("p2b_vfl_party_mask_epoch", "Epoch of the mask block in use.", epoch);
}

void render_ap_metrics(common::PrometheusText& out, const ApStats& s, uint64_t epoch) {
  out.counter("p2b_vfl_ap_decisions_total", "Decisions answered.", s.decisions);
  out.counter("p2b_vfl_ap_decisions_partial_total",
              "Decisions answered without some parties' parts (--allow-partial).", s.partial);
  out.counter("p2b_vfl_ap_decisions_refused_total", "Decision requests refused.", s.refused);
  out.counter("p2b_vfl_ap_rewards_total", "Rewards received since start.", s.rewards);
  out.counter("p2b_vfl_ap_rewards_applied_total",
              "Rewards applied to the model since the store was created.", s.rewards_applied);
  out.counter("p2b_vfl_ap_model_updates_total", "The model's own count of its updates.",
              s.model_updates);
  out.gauge("p2b_vfl_ap_next_decision_id", "The decision id the next decision gets.",
            s.next_decision_id);
  out.gauge("p2b_vfl_ap_checkpoint_seq", "Applied rewards the last model checkpoint includes.",
            s.checkpoint_seq);
  out.real_counter("p2b_vfl_ap_decide_seconds_total", "Time spent on answered decisions.",
                   seconds(s.decide_ns));
  out.labelled_counter("p2b_vfl_ap_party_bytes_total", "P2BV bytes received, by passive party.",
                       "party", by_party(s.party_bytes));
  out.labelled_counter("p2b_vfl_ap_party_messages_total",
                       "P2BV messages accepted, by passive party.", "party",
                       by_party(s.party_messages));
  out.gauge("p2b_vfl_ap_mask_epoch", "Epoch of the mask block in use.", epoch);
}

}  // namespace p2b::vfl
