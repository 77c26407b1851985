// The report p2b-codebook prints after training (and p2b-sim with it, for the
// codebooks it trains): method, iterations, inertia, cluster sizes, and with
// a deployment's figures the expected crowd per code.
#pragma once

#include <functional>
#include <string>

#include "codebook/train.hpp"

namespace p2b::codebook {

// A deployment's figures, for the expected crowd per code.
struct CrowdParams {
  double population = 0.0;
  double participation = 0.5;
  double threshold = 0.0;
};

// Where the report goes, one line at a time without its newline: stdout for
// the CLI, Python's logging for the binding, which must be able to silence it.
using LineSink = std::function<void(const std::string&)>;

// Writes the report to `sink`; the crowd lines only when `crowds` is given.
void write_train_summary(const TrainOptions& o, const TrainResult& r, const CrowdParams* crowds,
                         const LineSink& sink);

// write_train_summary to stdout.
void print_train_summary(const TrainOptions& o, const TrainResult& r, const CrowdParams* crowds);

// Redraws one progress line on stderr (a TrainOptions::on_status).
void print_status_line(const char* line);

}  // namespace p2b::codebook
