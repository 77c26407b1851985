// --protocol vertical --cost: time and bytes per decision over a (d, K) grid.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "vertical/cost.hpp"
#include "vertical/run.hpp"

namespace p2b::vertical {
namespace {

tools::ResultTable cost_table() {
  return tools::ResultTable({"d", "k", "parties", "central_us", "mask_us", "seal_us", "open_us",
                             "active_us", "round_us", "ratio", "parallel_round_us",
                             "parallel_ratio", "compute_round_us", "compute_ratio", "message_bytes",
                             "formula_bytes"});
}

void add_cost_row(const CostPoint& c, tools::ResultTable* t) {
  t->add_row({int64_t{c.d}, int64_t{c.k}, int64_t{c.parties}, c.central_us, c.mask_us, c.seal_us,
              c.open_us, c.active_us, c.round_us, c.round_us / c.central_us, c.parallel_round_us,
              c.parallel_round_us / c.central_us, c.compute_round_us,
              c.compute_round_us / c.central_us, static_cast<int64_t>(c.message_bytes),
              static_cast<int64_t>(c.formula_bytes)});
}

std::string cost_line(const CostPoint& c) {
  char b[256];
  std::snprintf(b, sizeof b,
                "%5u %6u %3u %11.1f %9.1f %9.1f %9.1f %11.1f %11.1f %6.2f %8.2f %7.2f %11llu%s",
                c.d, c.k, c.parties, c.central_us, c.mask_us, c.seal_us, c.open_us, c.active_us,
                c.round_us, c.round_us / c.central_us, c.parallel_round_us / c.central_us,
                c.compute_round_us / c.central_us, static_cast<unsigned long long>(c.message_bytes),
                c.message_bytes == c.formula_bytes ? "" : "  (formula differs!)");
  return b;
}

}  // namespace

tools::ResultTables run_cost_grid(const Options& o, const tools::RunHooks& hooks) {
  char header[160];
  std::snprintf(header, sizeof header, "%5s %6s %3s %11s %9s %9s %9s %11s %11s %6s %8s %7s %11s",
                "d", "K", "M", "central-us", "mask-us", "seal-us", "open-us", "active-us",
                "round-us", "ratio", "parallel", "no-box", "bytes/party");
  hooks.say(header);
  tools::ResultTable table = cost_table();
  const uint64_t total = o.cost_dims.size() * o.cost_actions.size();
  uint64_t done = 0;
  for (const uint32_t d : o.cost_dims) {
    for (const uint32_t k : o.cost_actions) {
      CostPoint c;
      std::string err;
      if (!measure_cost(d, k, o.cost_parties, o.cost_rounds, o.run.seed, &c, &err)) {
        throw std::runtime_error("cost d=" + std::to_string(d) + " K=" + std::to_string(k) + ": " +
                                 err);
      }
      add_cost_row(c, &table);
      hooks.say(cost_line(c));
      hooks.report("cost grid", ++done, total);
    }
  }
  return {{"cost", std::move(table)}};
}

}  // namespace p2b::vertical
