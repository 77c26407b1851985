// --help as every p2b program prints it: one usage line, and a value name
// for every option (FILE, SECONDS, URL, ...) instead of CLI11's C++ type
// names (TEXT, UINT, FLOAT), which tell an operator nothing.
#pragma once

#include <CLI/CLI.hpp>

namespace p2b::common {

// Gives every option of `app` and its subcommands that still has a CLI11
// type name one derived from the option's long name (see the rules in
// help_format.cpp), and, when the description already starts with the
// program's own "usage: ..." line, prints that as "Usage: ..." in place of
// CLI11's "Usage: PROGRAM [OPTIONS]". Call it after the last option is
// added, before parsing.
void name_option_values(CLI::App& app);

}  // namespace p2b::common
