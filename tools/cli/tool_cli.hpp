// What every host tool's command line shares (CLI11): --help, --version (the
// project version), --config FILE, and bad usage reported as one line that
// names the flag, with exit status 2.
//
// A config file is TOML (common/toml_config.hpp, the services' reader): the
// same options as the command line, one `long-name = value` per line
// without the dashes, for example
//   users = "1000,10000"
//   no-crypto = true
// Flags given on the command line win over the file. --help prints one
// usage line and a value name for every option (common/help_format.hpp).
#pragma once

#include <CLI/CLI.hpp>

#include "common/help_format.hpp"
#include "common/toml_config.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef P2B_TOOLS_VERSION
#error "P2B_TOOLS_VERSION (the project version) is set by the p2b_tool_cli CMake target"
#endif

namespace p2b::tools {

// Adds --version and --config FILE to `app`.
inline void add_common_flags(CLI::App& app) {
  app.set_version_flag("--version", app.get_name() + " " + P2B_TOOLS_VERSION,
                       "print the version and exit");
  p2b::common::add_toml_config(app, "read options from FILE (TOML: long-name = value)");
}

// Parses argv. Returns -1 to go on, else the exit status: 0 after --help or
// --version (printed on stdout), 2 on bad usage (the message on stderr).
// Option callbacks report a bad value by throwing std::invalid_argument or a
// CLI::ParseError whose message names the flag.
inline int parse_command_line(CLI::App& app, int argc, char** argv) {
  p2b::common::forget_config_values();
  p2b::common::name_option_values(app);
  // One line naming the flag (and, for a value from the config file, its
  // FILE:LINE:COLUMN), with no raw bytes from the input.
  const auto refuse = [&app](const std::string& why) {
    std::fprintf(stderr, "%s: %s\n(see %s --help)\n", app.get_name().c_str(),
                 p2b::common::escape_unprintable(p2b::common::locate_config_value(why)).c_str(),
                 app.get_name().c_str());
  };
  try {
    app.parse(argc, argv);
    return -1;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::FileError& e) {  // the config file, CLI11's only file
    const CLI::Option* config = app.get_config_ptr();
    refuse(config != nullptr ? p2b::common::unreadable_config(config->as<std::string>())
                             : std::string(e.what()));
  } catch (const CLI::ParseError& e) {
    refuse(e.what());
  } catch (const std::invalid_argument& e) {
    refuse(e.what());
  }
  return 2;
}

// Every long flag `app` shows in --help, as "--name": what the Python
// bindings compare their keyword names with. A deprecated alias is hidden
// (no group), so it is left out.
inline std::vector<std::string> visible_long_flags(const CLI::App& app) {
  std::vector<std::string> flags;
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_group().empty()) continue;
    for (const std::string& name : opt->get_lnames()) flags.push_back("--" + name);
  }
  return flags;
}

}  // namespace p2b::tools
