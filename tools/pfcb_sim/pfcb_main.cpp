#include "pfcb_sim/pfcb_main.hpp"

#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <string>
#include <vector>

#include "cli/result_table.hpp"
#include "cli/run_hooks.hpp"
#include "pfcb_sim/options.hpp"
#include "pfcb_sim/pfcb_run.hpp"
#include "pfcb_sim/run_table.hpp"
#include "sim/plot_results.hpp"

namespace p2b::pfcb_sim {

namespace {

// The tables run() returns, and summary.json beside them.
void write_outputs(const Options& o, const std::vector<RunResult>& runs) {
  tools::write_tables(result_tables(o, runs), o.run.out);
  const std::string path = o.run.out + "/summary.json";
  std::ofstream json(path);
  json << summary_json(o, runs).dump(2) << '\n';
  if (!json.flush()) throw std::runtime_error(path + ": write failed");
}

}  // namespace

int pfcb_main(int argc, char** argv) {
  Options o;
  if (const int st = parse_options(argc, argv, &o); st >= 0) return st;
  if (const std::string why = validate(o); !why.empty()) {
    std::fprintf(stderr, "p2b-sim: %s\n", why.c_str());
    return 2;
  }
  const tools::RunHooks hooks = tools::terminal_hooks(o.run.quiet);
  const auto wall_start = std::chrono::steady_clock::now();
  std::vector<RunResult> runs;
  try {
    runs = run_all(o, hooks);
    if (!o.run.out.empty()) write_outputs(o, runs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "p2b-sim: %s\n", e.what());
    return 1;
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  for (const std::string& line : report_lines(runs)) hooks.say(line);
  char speed[96];
  std::snprintf(speed, sizeof speed, "speed: %.1f s wall on %u threads", wall, o.run.threads);
  hooks.say(speed);
  if (o.run.plot && !o.run.out.empty() && !sim::plot_results(P2B_PLOT_PFCB, o.run.out)) return 1;
  return 0;
}

}  // namespace p2b::pfcb_sim
