// CLI11 set up the one way every p2b program uses it: --help (one usage
// line, value names: help_format.hpp), --version, --config FILE (TOML, keys
// named as the long flags without dashes, `_` read as `-`, a list as an
// array: toml_config.hpp), the last of a repeated single value wins, and a
// value given on the command line replaces the file's (for a list, the
// whole list).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace p2b::common {

enum class ParseOutcome {
  ok,
  help,         // print `message` on stdout, exit 0
  version,      // likewise
  usage_error,  // print `message` on stderr, exit 2
};

class CommandLine {
 public:
  // `synopsis` is the first line of --help ("usage: ...", printed as
  // "Usage: ...": help_format.hpp).
  CommandLine(const std::string& program, const std::string& synopsis,
              const std::string& description, bool config_file);
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  CLI::App& app() { return app_; }
  const std::string& program() const { return program_; }

  // A flag taking one value, kept verbatim for the caller to check (so every
  // refusal reads alike, see bad_value).
  CLI::Option* add_value(const std::string& names, std::string* raw, const std::string& help);

  // Parses; `message` gets the help or version text or the error.
  ParseOutcome parse(int argc, const char* const* argv, std::string* message);

 private:
  std::string program_;
  CLI::App app_;
};

// Sets `message` to `why`; returns usage_error, for a caller's own checks.
ParseOutcome usage_error(std::string* message, std::string why);

// True if the option was given on the command line or in the config file.
bool given(const CLI::Option* option);

// Prints `message` where `outcome` says and returns the exit code (0 or 2);
// for ok it prints nothing and returns -1. A refusal gets the config file's
// FILE:LINE:COLUMN when the value came from there, and is printed with any
// unprintable byte escaped.
int report_parse_outcome(const std::string& program, ParseOutcome outcome,
                         const std::string& message);

}  // namespace p2b::common
