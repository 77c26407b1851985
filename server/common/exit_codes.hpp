// The exit statuses of every p2b service and of p2b-keygen
// (docs/operations.md). A supervisor restarts on anything but 0.
#pragma once

namespace p2b::common {

enum ExitCode : int {
  kExitClean = 0,    // stopped by SIGTERM/SIGINT and shut down cleanly; --help, --version
  kExitFailure = 1,  // could not start (keys, store, codebook, address) or failed at run time
  kExitUsage = 2,    // bad command line or config file
  kExitUnclean = 3,  // stopped, but not cleanly: see StopOutcome in shutdown.hpp
  // The store is damaged, of another kind, of a newer schema, or (analyzer)
  // its statistics fail their MAC: common/store_open.hpp.
  kExitStoreRefused = 4,
};

}  // namespace p2b::common
