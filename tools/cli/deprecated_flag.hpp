// Old spellings of the common run flags (--repeats, --runs, --out-dir, ...)
// stay accepted for one release: each sets the new flag's field and says once
// on stderr which spelling replaces it, so scripts keep working while their
// authors learn the new name.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

namespace p2b::tools {

// Adds `old_flag` as a hidden alias of `new_flag`, writing into `target`.
template <typename T>
void add_deprecated_alias(CLI::App& app, const std::string& old_flag, const std::string& new_flag,
                          T& target) {
  app.add_option_function<T>(
         old_flag,
         [&target, old_flag, new_flag, name = app.get_name()](const T& value) {
           std::fprintf(stderr, "%s: %s is deprecated; use %s\n", name.c_str(), old_flag.c_str(),
                        new_flag.c_str());
           target = value;
         },
         "deprecated: use " + new_flag)
      ->group("");  // hidden from --help
}

}  // namespace p2b::tools
