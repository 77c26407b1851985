#include "codebook_source.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "codebook/codebook_file.hpp"
#include "codebook/train.hpp"
#include "codebook/train_summary.hpp"
#include "p2b.h"

namespace p2b::sim {
namespace {

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

// Trains with p2b-codebook's defaults (the trainer switches to mini-batch
// on grids too large to hold) and writes the file p2b-codebook would.
void train(const SimOptions& o, uint32_t dim, const std::string& path) {
  codebook::TrainOptions t;
  t.dim = dim;
  t.digits = o.digits;
  t.codes = o.codes;
  t.seed = o.seed;
  t.threads = o.threads;
  if (!o.quiet) t.on_status = codebook::print_status_line;
  std::fprintf(stderr, "training codebook: d=%u q=%u k=%u seed=%llu\n", dim, o.digits, o.codes,
               static_cast<unsigned long long>(o.seed));
  const codebook::TrainResult r = codebook::train_codebook(t);
  if (!o.quiet) std::fputc('\n', stderr);
  std::string err;
  if (!codebook::write_codebook_file(path, r.centroids, dim, o.digits, false, &err)) {
    throw std::runtime_error(err);
  }
  codebook::print_train_summary(t, r, nullptr);
  std::printf("  wrote       %s\n", path.c_str());
  std::fflush(stdout);
}

}  // namespace

Codebook codebook_for(const SimOptions& o, uint32_t dim) {
  if (!o.codebook.empty()) return read_codebook(o.codebook, dim);
  const std::string dir = o.out_dir + "/codebooks";
  const std::string path = dir + "/d" + std::to_string(dim) + "-q" + std::to_string(o.digits) +
                           "-k" + std::to_string(o.codes) + "-seed" + std::to_string(o.seed) +
                           ".p2bc";
  if (!std::ifstream(path).good()) {
    std::filesystem::create_directories(dir);
    train(o, dim, path);
  }
  return read_codebook(path, dim);
}

}  // namespace p2b::sim
