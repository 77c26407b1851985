// p2b-demo's early users: devices (the C API) play the synthetic
// environment and share through P2B; every raw interaction also goes to the
// analyzer's non-private baseline (an experiment's shortcut, which
// production devices cannot take).
#pragma once

#include <string>
#include <vector>

#include "demo_options.hpp"
#include "sim/c_agent.hpp"
#include "sim/synthetic_env.hpp"

namespace p2b::demo {

// Runs o.users early users on `device` and posts their raw tuples to the
// analyzer on `raw_analyzer_port`; returns their sealed envelopes, to be
// uploaded once the early phase ends.
std::vector<std::string> run_early_users(const Options& o, sim::CAgent& device,
                                         const sim::SyntheticEnv& env, int raw_analyzer_port);

}  // namespace p2b::demo
