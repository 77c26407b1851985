// Every p2b-sim protocol draws its figures the same way: a plotting script
// run with Debian's python3 (matplotlib) over the results directory.
#pragma once

#include <cstdio>
#include <string>

#include "proc/run_command.hpp"

namespace p2b::sim {

// False, after saying so on stderr, when the script fails; the CSVs it
// would have read are written already and stay.
inline bool plot_results(const std::string& script, const std::string& out_dir) {
  const int rc = proc::run_command({"/usr/bin/python3", script, out_dir});
  if (rc == 0) return true;
  std::fprintf(stderr, "p2b-sim: plotting failed (%d); the results are in %s\n", rc,
               out_dir.c_str());
  return false;
}

}  // namespace p2b::sim
