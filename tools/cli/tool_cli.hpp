// What every host tool's command line shares (CLI11): --help, --version (the
// project version), --config FILE, and bad usage reported as one line that
// names the flag, with exit status 2.
//
// A config file holds the same options as the command line, one
// `long-name = value` per line without the dashes (TOML or INI), for example
//   users = "1000,10000"
//   no-crypto = true
// Flags given on the command line win over the file.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdio>
#include <stdexcept>
#include <string>

#ifndef P2B_TOOLS_VERSION
#error "P2B_TOOLS_VERSION (the project version) is set by the p2b_tool_cli CMake target"
#endif

namespace p2b::tools {

// Adds --version and --config FILE to `app`.
inline void add_common_flags(CLI::App& app) {
  app.set_version_flag("--version", app.get_name() + " " + P2B_TOOLS_VERSION,
                       "print the version and exit");
  app.set_config("--config", "", "read options from FILE (TOML or INI: long-name = value)")
      ->type_name("FILE");
}

// Parses argv. Returns -1 to go on, else the exit status: 0 after --help or
// --version (printed on stdout), 2 on bad usage (the message on stderr).
// Option callbacks report a bad value by throwing std::invalid_argument or a
// CLI::ParseError whose message names the flag.
inline int parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    return -1;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%s: %s\n(see %s --help)\n", app.get_name().c_str(), e.what(),
                 app.get_name().c_str());
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s: %s\n(see %s --help)\n", app.get_name().c_str(), e.what(),
                 app.get_name().c_str());
  }
  return 2;
}

}  // namespace p2b::tools
