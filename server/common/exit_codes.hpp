// The exit statuses of every p2b service and of p2b-keygen
// (docs/operations.md). The systemd units (packaging/systemd/common.conf.in)
// restart on any status but those that a restart cannot fix: 2 and 4.
#pragma once

namespace p2b::common {

enum ExitCode : int {
  kExitClean = 0,    // stopped by SIGTERM/SIGINT and shut down cleanly; --help, --version
  kExitFailure = 1,  // could not start (store, address) or failed at run time: worth a restart
  kExitUsage = 2,    // bad command line or config file
  // A file the configuration names is missing, unreadable or wrong: a key
  // directory or key file, the codebook, a members or key-list file. Only an
  // operator can fix it, like a bad flag, so it shares the usage status
  // rather than a new one: the units' RestartPreventExitStatus= and the
  // docs' table stay as they were, and "2" keeps meaning "fix the config".
  kExitConfig = kExitUsage,
  kExitUnclean = 3,  // stopped, but not cleanly: see StopOutcome in shutdown.hpp
  // The store is damaged, of another kind, of a newer schema, or (analyzer)
  // its statistics fail their MAC: common/store_open.hpp.
  kExitStoreRefused = 4,
};

}  // namespace p2b::common
