// The lines p2b-sim's P2B experiment says while it runs (through its
// hooks: stdout for the CLI, `logging` for Python): the settings, one table
// row per grid point, and what each point's privacy is.
#pragma once

#include <cstdarg>
#include <string>
#include <vector>

#include "results_table.hpp"
#include "sim_options.hpp"

namespace p2b::sim {

// printf into a std::string.
std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// The run's settings: the version and protocol knobs, and for a synthetic
// environment how rewards are drawn.
std::vector<std::string> settings_lines(const SimOptions& o);

std::string row_header();

// A point's row; a warm column whose devices received no model ran cold,
// and '*' marks it. Multi-label rows add their majority-label line.
std::vector<std::string> row_lines(const ResultRow& w);

// What follows the table: the '*' legend, and one privacy line per point
// (delta depends on the smallest crowd that point's shuffler released), and
// the central-DP line of the last central epsilon, when there is one.
std::vector<std::string> privacy_lines(const std::vector<ResultRow>& rows, const SimOptions& o);

}  // namespace p2b::sim
