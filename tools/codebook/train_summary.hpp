// The report p2b-codebook prints after training (and p2b-sim with it, for the
// codebooks it trains): method, iterations, inertia, cluster sizes, and with
// a deployment's figures the expected crowd per code.
#pragma once

#include "codebook/train.hpp"

namespace p2b::codebook {

// A deployment's figures, for the expected crowd per code.
struct CrowdParams {
  double population = 0.0;
  double participation = 0.5;
  double threshold = 0.0;
};

// Prints the report on stdout; the crowd lines only when `crowds` is given.
void print_train_summary(const TrainOptions& o, const TrainResult& r, const CrowdParams* crowds);

// Redraws one progress line on stderr (a TrainOptions::on_status).
void print_status_line(const char* line);

}  // namespace p2b::codebook
