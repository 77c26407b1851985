#include "fclub_sim/fclub_main.hpp"

#include <cstdio>
#include <exception>
#include <string>

#include "cli/result_table.hpp"
#include "cli/run_hooks.hpp"
#include "fclub_sim/fclub_run.hpp"
#include "fclub_sim/options.hpp"
#include "sim/plot_results.hpp"

namespace p2b::fclub_sim {

int fclub_main(int argc, char** argv) {
  Options o;
  if (const int st = parse_options(argc, argv, &o); st >= 0) return st;
  if (const std::string why = validate(o); !why.empty()) {
    std::fprintf(stderr, "p2b-sim: %s\n", why.c_str());
    return 2;
  }
  const tools::RunHooks hooks = tools::terminal_hooks(o.run.quiet);
  tools::ResultTables tables;
  try {
    tables = run(o, hooks);
    if (!o.run.out.empty()) tools::write_tables(tables, o.run.out);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "p2b-sim: %s\n", e.what());
    return 1;
  }
  for (const std::string& line : summary_lines(tables.at("summary"))) hooks.say(line);
  if (o.run.plot && !o.run.out.empty() && !sim::plot_results(P2B_PLOT_FCLUB, o.run.out)) return 1;
  return 0;
}

}  // namespace p2b::fclub_sim
