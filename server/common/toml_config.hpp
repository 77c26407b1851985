// Config files are TOML, read by toml++ (Debian's libtomlplusplus-dev) and
// handed to CLI11 as if the settings were flags, so a flag on the command
// line still wins over the file. One reader for every service and tool.
//
// A file holds the long flags without their dashes (`_` reads as `-`):
//   listen = "0.0.0.0:8710"
//   keys = ["/etc/p2b/keys-2025", "/etc/p2b/keys-2026"]   # a list
//   threshold = 20
//   no-crypto = true                                      # a flag
// Every refusal is one line, "FILE:LINE:COLUMN: key 'name': why", with any
// byte that is not printable ASCII written as \xHH, so a binary file or a
// typo never puts raw bytes on a terminal.
#pragma once

#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace p2b::common {

// Adds --config FILE to `app` and reads FILE as TOML. `app` keeps the reader,
// which refers back to `app` to check each key against its flags.
void add_toml_config(CLI::App& app, const std::string& help);

// `message` with "FILE:LINE:COLUMN: " in front when it is about a flag
// ("--name...") whose value came from the config file read last (a
// service's own range checks run after CLI11 is done, so they cannot say
// where the value came from themselves).
std::string locate_config_value(const std::string& message);

// Forgets what the last config file set (each parse starts afresh).
void forget_config_values();

// `text` with every byte outside printable ASCII written as \xHH.
std::string escape_unprintable(std::string_view text);

// What to tell the user when CLI11 could not open the config file `path`.
std::string unreadable_config(const std::string& path);

}  // namespace p2b::common
