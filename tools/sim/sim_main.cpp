#include "sim_main.hpp"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "cli/result_table.hpp"
#include "cli/run_hooks.hpp"
#include "sim/plot_results.hpp"
#include "sim/results_table.hpp"
#include "sim/run.hpp"
#include "sim/run_lines.hpp"
#include "sim/sim_options.hpp"

namespace p2b::sim {
namespace {

double peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // Linux reports KiB
}

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

// The sum of a numeric column of the results table.
double column_sum(const tools::ResultTable& t, const std::string& name) {
  std::size_t j = 0;
  while (j < t.columns().size() && t.columns()[j] != name) ++j;
  double sum = 0;
  for (const auto& row : t.rows()) {
    if (const auto* i = std::get_if<int64_t>(&row.at(j))) sum += static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(&row.at(j))) sum += *d;
  }
  return sum;
}

// What the run cost: CPU time, simulated users per CPU-second (every user
// of the population is simulated once early or three times late; the
// reference code manages about 350 per core), and the crypto floor.
std::vector<std::string> speed_lines(const tools::ResultTable& t, double wall, unsigned threads) {
  const double cpu = cpu_seconds();
  const double users = column_sum(t, "population");
  const double floor = column_sum(t, "crypto_floor_seconds");
  const double point_seconds = column_sum(t, "seconds");
  std::vector<std::string> lines{
      format("speed: %.1f s wall, %.1f s CPU on %u threads: %.0f users/s per core "
             "(the reference code: about 350)",
             wall, cpu, threads, cpu > 0 ? users / cpu : 0.0)};
  if (floor > 0) {
    lines.push_back(
        format("crypto floor: %.1f s (reports x cost / %u threads); the points took %.1f s, "
               "%.2fx the floor",
               floor, threads, point_seconds, point_seconds / floor));
    // The same ratio in CPU time, which other load on the machine does not
    // change: what the run spent beside its crypto, as a share of it.
    const double floor_cpu = floor * threads;
    lines.push_back(format(
        "crypto CPU floor: %.1f CPU-s (reports x cost); the run used %.1f CPU-s, %.2fx the floor",
        floor_cpu, cpu, cpu / floor_cpu));
  }
  return lines;
}

int run_and_write(const SimOptions& o) {
  const tools::RunHooks hooks = tools::terminal_hooks(o.run.quiet);
  const auto t0 = std::chrono::steady_clock::now();
  std::filesystem::create_directories(o.run.out);  // before the run: fail before the work
  const tools::ResultTables tables = run(o, hooks);
  const tools::ResultTable& results = tables.at("results");
  tools::write_tables(tables, o.run.out);
  write_results_json(results, o.run.out + "/results.json");
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  hooks.say(
      format("results: %s/results.csv and results.json (%zu points) in %.1f s, peak RSS "
             "%.0f MB",
             o.run.out.c_str(), results.n_rows(), wall, peak_rss_mb()));
  for (const std::string& line : speed_lines(results, wall, o.run.threads)) hooks.say(line);
  if (o.run.plot && !plot_results(o.plot_script, o.run.out)) return 1;
  return 0;
}

}  // namespace

int sim_main(int argc, char** argv) {
  SimOptions o;
  const int parsed = parse_options(argc, argv, &o);
  if (parsed >= 0) return parsed;
  try {
    return run_and_write(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "\np2b-sim: error: %s\n", e.what());
    return 1;
  }
}

}  // namespace p2b::sim
