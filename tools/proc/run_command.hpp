// Runs a program to completion without a shell, so no argument is ever
// re-parsed: a path with a quote or a space is passed as it is.
#pragma once

#include <string>
#include <vector>

namespace p2b::proc {

// Runs argv[0] (looked up in PATH when it has no '/') with the arguments
// argv[1..]; with `quiet` its stdout goes to /dev/null. Returns its exit
// status, 128 + N when signal N ended it, or -1 when it could not start.
int run_command(const std::vector<std::string>& argv, bool quiet = false);

}  // namespace p2b::proc
