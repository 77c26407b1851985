// The main() every service shares: block the stop signals before any thread
// exists, parse the command line (help, version and refusals exit here),
// set the log level and open --log-file, then run the service; an exception
// that escapes it is logged as "fatal_error" and exits 1
// (docs/operations.md).
#pragma once

#include <exception>
#include <string>

#include "common/command_line.hpp"
#include "common/exit_codes.hpp"
#include "common/json_log.hpp"
#include "common/shutdown.hpp"

namespace p2b::common {

// `parse(argc, argv, Options*, std::string* message)` -> ParseOutcome;
// `run(const Options&, Logger&)` -> exit code.
template <typename Options, typename Parse, typename Run>
int service_main(const char* program, int argc, char** argv, Parse parse, Run run) {
  block_stop_signals();
  Options options;
  std::string message;
  const ParseOutcome parsed = parse(argc, argv, &options, &message);
  if (parsed != ParseOutcome::ok) return report_parse_outcome(program, parsed, message);
  Logger& log = service_log();
  log.set_level(options.log_level);
  std::string error;
  if (!options.log_file.empty() && !log.open_file(options.log_file, &error)) {
    log.error("log_file_unusable", {{"error", error}});  // still on stderr
    return kExitFailure;
  }
  try {
    return run(options, log);
  } catch (const std::exception& e) {
    log.error("fatal_error", {{"error", e.what()}});
    return kExitFailure;
  }
}

}  // namespace p2b::common
