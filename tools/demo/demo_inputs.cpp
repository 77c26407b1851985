#include "demo_inputs.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "../ports/posix/sodium_port.hpp"
#include "demo_options.hpp"
#include "p2b/codebook_format.hpp"
#include "proc/run_command.hpp"
#include "sim/c_agent.hpp"
#include "sim/progress.hpp"
#include "sim/simplex_codebook.hpp"

namespace p2b::demo {
namespace {

namespace fs = std::filesystem;

void check_core(p2b::Status s, const char* what) {
  sim::check(static_cast<p2b_status>(static_cast<int32_t>(s)), what);
}

void train_and_write(const fs::path& file, uint32_t k, uint64_t seed) {
  const std::vector<float> grid = sim::simplex_grid(kDim, 1, 1'000'000);
  const int iterations = 15;
  const auto km = sim::kmeans(
      grid, kDim, k, iterations, seed, std::max(1U, std::thread::hardware_concurrency()),
      [&](int it, double) { sim::progress("training codebook", it, iterations); });
  if (km.iterations < iterations) sim::progress("training codebook", 1, 1);
  const p2b::CryptoPort crypto = p2b::port::sodium_crypto();
  std::size_t n = 0;
  check_core(p2b::encoded_codebook_size(km.centroids.data(), k, kDim, 1, &n), "codebook size");
  std::vector<uint8_t> bytes(n);
  std::size_t written = 0;
  check_core(
      p2b::encode_codebook(crypto, km.centroids.data(), k, kDim, 1, bytes.data(), n, &written),
      "codebook encode");
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(n));
  std::printf("codebook: trained k=%u (inertia %.1f), wrote %s\n", k, km.inertia, file.c_str());
}

}  // namespace

void run_or_throw(const std::string& what, const std::vector<std::string>& argv) {
  if (proc::run_command(argv, true) != 0) throw std::runtime_error(what + " failed");
}

device::DeviceKeys load_or_make_keys(const fs::path& dir) {
  if (!fs::exists(dir / "shuffler.box.pk")) {
    std::printf("keys: none in %s, running p2b-keygen\n", dir.c_str());
    run_or_throw("p2b-keygen", {P2B_KEYGEN_BIN, "--out", dir.string()});
  } else if (!fs::exists(dir / "shuffler.sign.pk")) {
    // A key set from before batches were signed: the demo's own, replaced.
    std::printf("keys: %s has no shuffler signing key, running p2b-keygen --force\n", dir.c_str());
    run_or_throw("p2b-keygen", {P2B_KEYGEN_BIN, "--out", dir.string(), "--force"});
  }
  return device::read_device_keys(dir);
}

std::vector<float> load_or_make_codebook(const fs::path& file, uint32_t k, uint64_t seed) {
  if (!fs::exists(file)) train_and_write(file, k, seed);
  uint32_t dim = 0;
  std::vector<float> centroids = device::read_codebook(file, &dim);
  if (dim != kDim) throw std::runtime_error("codebook has another dimension");
  return centroids;
}

}  // namespace p2b::demo
