#include "codebook_source.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "p2b.h"

namespace p2b::sim {
namespace {

// Above this many grid points the trainer streams samples (mini-batch).
constexpr double kFullGridLimit = 2.5e6;

double grid_points(uint32_t d, uint32_t q) {
  // C(10^q + d - 1, d - 1)
  double units = 1;
  for (uint32_t i = 0; i < q; ++i) units *= 10;
  double c = 1;
  for (uint32_t i = 1; i < d; ++i) c = c * (units + i) / i;
  return c;
}

Codebook read_codebook(const std::string& path, uint32_t dim) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read codebook " + path);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  p2b_codebook_info info{};
  Codebook cb;
  // Room for the largest codebook the format allows; trimmed below.
  cb.centroids.resize(static_cast<size_t>(P2B_MAX_CODES) * P2B_MAX_DIM);
  const p2b_status st = p2b_codebook_parse(bytes.data(), bytes.size(), cb.centroids.data(),
                                           cb.centroids.size(), &info);
  if (st != P2B_OK) throw std::runtime_error(path + ": " + p2b_status_str(st));
  if (info.dim != dim) {
    throw std::runtime_error(path + " is a codebook for d=" + std::to_string(info.dim) +
                             ", not d=" + std::to_string(dim));
  }
  cb.k = info.k;
  cb.centroids.resize(static_cast<size_t>(info.k) * info.dim);
  return cb;
}

}  // namespace

Codebook codebook_for(const SimOptions& o, uint32_t dim) {
  if (!o.codebook.empty()) return read_codebook(o.codebook, dim);
  const std::string dir = o.out_dir + "/codebooks";
  const std::string path = dir + "/d" + std::to_string(dim) + "-q" + std::to_string(o.digits) +
                           "-k" + std::to_string(o.codes) + "-seed" + std::to_string(o.seed) +
                           ".p2bc";
  if (!std::ifstream(path).good()) {
    if (std::system(("mkdir -p '" + dir + "'").c_str()) != 0) {
      throw std::runtime_error("cannot create " + dir);
    }
    const bool stream = grid_points(dim, o.digits) > kFullGridLimit;
    const std::string cmd = "'" + o.codebook_bin + "' --dim " + std::to_string(dim) + " --digits " +
                            std::to_string(o.digits) + " --codes " + std::to_string(o.codes) +
                            " --seed " + std::to_string(o.seed) + " --threads " +
                            std::to_string(o.threads) + " --out '" + path + "'" +
                            (stream ? " --mini-batch" : "") + (o.quiet ? " --quiet" : "");
    std::fprintf(stderr, "training codebook: %s\n", cmd.c_str());
    if (std::system(cmd.c_str()) != 0) {
      throw std::runtime_error("p2b-codebook failed for d=" + std::to_string(dim));
    }
  }
  return read_codebook(path, dim);
}

}  // namespace p2b::sim
