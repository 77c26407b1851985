#include "compare_sim/compare_main.hpp"

#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "cli/result_table.hpp"
#include "cli/run_hooks.hpp"
#include "compare_sim/options.hpp"
#include "compare_sim/run.hpp"
#include "sim/plot_results.hpp"

namespace p2b::compare_sim {
namespace {

// The CSVs and results.json; throws std::runtime_error naming a file that
// could not be written.
void write_outputs(const CompareRun& r, const std::string& dir) {
  tools::write_tables(r.tables, dir);
  const std::string json = dir + "/results.json";
  std::ofstream f(json);
  f << results_json(r) << '\n';
  if (!f) throw std::runtime_error("cannot write " + json);
}

}  // namespace

int compare_main(int argc, char** argv) {
  Options o;
  if (const int st = parse_options(argc, argv, &o); st >= 0) return st;
  if (const std::string e = validate(o); !e.empty()) {
    std::fprintf(stderr, "p2b-sim: %s\n(see p2b-sim --protocol compare --help)\n", e.c_str());
    return 2;
  }
  const tools::RunHooks hooks = tools::terminal_hooks(o.run.quiet);
  try {
    const auto t_start = std::chrono::steady_clock::now();
    const CompareRun r = run_compare(o, hooks);
    if (o.run.out.empty()) return r.spends_ok ? 0 : 1;
    write_outputs(r, o.run.out);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    char line[256];
    std::snprintf(line, sizeof line,
                  "results: %s/summary.csv, runs.csv, results.json (%zu runs) "
                  "in %.1f s",
                  o.run.out.c_str(), r.tables.at("runs").n_rows(), secs);
    hooks.say(line);
    if (o.run.plot && !sim::plot_results(P2B_PLOT_COMPARE, o.run.out)) return 1;
    return r.spends_ok ? 0 : 1;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "p2b-sim: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "p2b-sim: error: %s\n", e.what());
    return 1;
  }
}

}  // namespace p2b::compare_sim
