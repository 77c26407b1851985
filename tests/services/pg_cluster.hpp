// The tests' throwaway PostgreSQL (tools/proc/pg_cluster.hpp), which prints
// its server log when it goes away after a failed test.
#pragma once

#include <gtest/gtest.h>

#include "proc/pg_cluster.hpp"

namespace p2b_services {

using p2b::proc::PgCluster;
using p2b::proc::PgClusterOptions;

// Set before main by every test file that includes this header.
inline const bool kPgClusterLogOnFailure =
    (PgCluster::print_log_on_exit_if(&::testing::Test::HasFailure), true);

}  // namespace p2b_services
