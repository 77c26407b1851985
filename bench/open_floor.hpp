// The floor under the shuffler's ingest CPU per envelope: opening one
// envelope's outer layer (crypto_box_seal_open, an X25519 shared secret and
// an XSalsa20-Poly1305 open), timed in the benchmark's own thread beside
// the services it measures, so that the ratio of the two holds on a loaded
// machine where neither figure alone does.
#pragma once

#include <sodium.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "bench_deployment.hpp"
#include "p2b/envelope.hpp"

namespace p2b::bench {

// CPU seconds of the calling thread: a preempted benchmark thread does not
// count the time other processes ran.
inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// CPU microseconds per crypto_box_seal_open of the outer layers of the
// first `n` envelopes of `pool`, sealed to the shuffler box key in
// `keys_dir` (shuffler.box.pk and .sk, as Deployment writes them).
inline double outer_open_floor_us(const std::vector<Envelope>& pool, const fs::path& keys_dir,
                                  std::size_t n = 2000) {
  std::array<uint8_t, crypto_box_PUBLICKEYBYTES> pk{};
  std::array<uint8_t, crypto_box_SECRETKEYBYTES> sk{};
  std::ifstream(keys_dir / "shuffler.box.pk", std::ios::binary)
      .read(reinterpret_cast<char*>(pk.data()), static_cast<std::streamsize>(pk.size()));
  std::ifstream(keys_dir / "shuffler.box.sk", std::ios::binary)
      .read(reinterpret_cast<char*>(sk.data()), static_cast<std::streamsize>(sk.size()));
  n = std::min(n, pool.size());
  // The envelope is the key's fingerprint, then the sealed box.
  constexpr std::size_t kSealed = kEnvelopeBytes - kFingerprintBytes;
  std::vector<uint8_t> plain(kSealed - crypto_box_SEALBYTES);
  const double t0 = thread_cpu_seconds();
  for (std::size_t i = 0; i < n; ++i) {
    if (crypto_box_seal_open(plain.data(), pool[i].data() + kFingerprintBytes, kSealed, pk.data(),
                             sk.data()) != 0) {
      throw std::runtime_error("open floor: an envelope does not open with the shuffler's key");
    }
  }
  const double us =
      1e6 * (thread_cpu_seconds() - t0) / static_cast<double>(std::max<std::size_t>(n, 1));
  sodium_memzero(sk.data(), sk.size());
  sodium_memzero(plain.data(), plain.size());
  return us;
}

}  // namespace p2b::bench
