#include "vertical/vertical_main.hpp"

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

#include "cli/result_table.hpp"
#include "cli/run_hooks.hpp"
#include "sim/plot_results.hpp"
#include "vertical/options.hpp"
#include "vertical/run.hpp"

namespace p2b::vertical {

int vertical_main(int argc, char** argv) {
  Options o;
  if (const int st = parse_options(argc, argv, &o); st >= 0) return st;
  if (const std::string e = validate(o); !e.empty()) {
    std::fprintf(stderr, "p2b-sim: %s\n(see p2b-sim --protocol vertical --help)\n", e.c_str());
    return 2;
  }
  const tools::RunHooks hooks = tools::terminal_hooks(o.run.quiet);
  try {
    const tools::ResultTables tables = run(o, hooks);
    if (o.run.out.empty()) return 0;
    tools::write_tables(tables, o.run.out);
    std::string names;
    for (const auto& [name, table] : tables) names += (names.empty() ? "" : ", ") + name + ".csv";
    hooks.say("\nwrote " + names + " in " + o.run.out);
    if (o.run.plot && !sim::plot_results(P2B_PLOT_VERTICAL, o.run.out)) return 1;
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "p2b-sim: %s\n", e.what());
    return 1;
  }
}

}  // namespace p2b::vertical
