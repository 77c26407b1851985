// The envelopes a service benchmark posts, sealed once and kept in
// DIR/pool.bin with the keys they were sealed for (DIR/deployment), so
// that a later run with the same pool size skips the sealing: sealing is
// the device's cost, never the services'.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "bench_deployment.hpp"

namespace p2b::bench {

inline std::vector<Envelope> load_or_seal(const fs::path& out, std::size_t pool) {
  const fs::path file = out / "pool.bin";
  if (fs::exists(out / "deployment/keys") &&
      file_bytes(file.string()) ==
          static_cast<long long>(pool) * static_cast<long long>(kEnvelopeBytes)) {
    std::printf("reusing %zu sealed envelopes from %s\n", pool, file.c_str());
    std::vector<Envelope> v(pool);
    std::ifstream(file, std::ios::binary)
        .read(reinterpret_cast<char*>(v.data()),
              static_cast<std::streamsize>(pool * kEnvelopeBytes));
    return v;
  }
  const Deployment d(out / "deployment");
  std::printf("sealing %zu envelopes (once; kept in %s)...\n", pool, file.c_str());
  std::fflush(stdout);
  const unsigned threads = std::max(1U, std::thread::hardware_concurrency());
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Envelope> v = d.seal(pool, threads);
  std::printf("sealed in %.0f s on %u threads\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
              threads);
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(v.data()),
             static_cast<std::streamsize>(pool * kEnvelopeBytes));
  return v;
}

}  // namespace p2b::bench
