#include "codebook_source.hpp"

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
// on grids too large to hold); its report goes to the hooks.
Codebook train(const SimOptions& o, uint32_t dim, const tools::RunHooks& hooks) {
  codebook::TrainOptions t;
  t.dim = dim;
  t.digits = o.digits;
  t.codes = o.codes;
  t.seed = o.run.seed;
  t.threads = o.run.threads;
  hooks.say("training codebook: d=" + std::to_string(dim) + " q=" + std::to_string(o.digits) +
            " k=" + std::to_string(o.codes) + " seed=" + std::to_string(o.run.seed));
  const std::string stage = "codebook d=" + std::to_string(dim);
  hooks.report(stage, 0, 1);
  codebook::TrainResult r = codebook::train_codebook(t);
  hooks.report(stage, 1, 1);
  if (hooks.log) codebook::write_train_summary(t, r, nullptr, hooks.log);
  Codebook cb;
  cb.k = static_cast<uint32_t>(r.centroids.size() / dim);
  cb.centroids = std::move(r.centroids);
  return cb;
}

}  // namespace

Codebook codebook_for(const SimOptions& o, uint32_t dim, const tools::RunHooks& hooks) {
  if (!o.codebook.empty()) return read_codebook(o.codebook, dim);
  if (o.run.out.empty()) return train(o, dim, hooks);  // nowhere to cache it
  const std::string dir = o.run.out + "/codebooks";
  const std::string path = dir + "/d" + std::to_string(dim) + "-q" + std::to_string(o.digits) +
                           "-k" + std::to_string(o.codes) + "-seed" + std::to_string(o.run.seed) +
                           ".p2bc";
  if (!std::ifstream(path).good()) {
    const Codebook cb = train(o, dim, hooks);
    std::filesystem::create_directories(dir);
    std::string err;
    if (!codebook::write_codebook_file(path, cb.centroids, dim, o.digits, false, &err)) {
      throw std::runtime_error(err);
    }
    hooks.say("  wrote       " + path);
  }
  // Read back, so a cached and a fresh codebook are the same floats.
  return read_codebook(path, dim);
}

Codebook codebook_for(const SimOptions& o, uint32_t dim) {
  return codebook_for(o, dim, tools::terminal_hooks(o.run.quiet));
}

}  // namespace p2b::sim
