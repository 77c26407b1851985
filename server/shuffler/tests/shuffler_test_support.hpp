// Shared by the shuffler's tests: real keys and envelopes sealed by the
// device's own code, a throwaway spool directory, and a scripted analyzer.
#pragma once

#include <sodium.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "p2b/envelope.hpp"
#include "shuffler/analyzer_sink.hpp"
#include "shuffler/spool.hpp"
#include "sodium_port.hpp"
#include "temp_dir.hpp"
#include "wire/envelope_open.hpp"

namespace shuffler_test {

using Envelope = std::array<uint8_t, p2b::kEnvelopeBytes>;

struct Deployment {
  p2b::server::BoxKey shuffler{};
  p2b::server::BoxKey analyzer{};

  Deployment() {
    if (sodium_init() < 0) std::abort();
    uint8_t pk[crypto_box_PUBLICKEYBYTES];
    uint8_t sk[crypto_box_SECRETKEYBYTES];
    crypto_box_keypair(pk, sk);
    p2b::server::make_box_key(pk, sk, &shuffler);
    crypto_box_keypair(pk, sk);
    p2b::server::make_box_key(pk, sk, &analyzer);
  }

  Envelope seal(uint32_t code, float reward = 0.5F) const {
    const p2b::CryptoPort crypto = p2b::port::sodium_crypto();
    const p2b::SealingKeys keys{shuffler.pk, shuffler.fp, analyzer.pk, analyzer.fp};
    Envelope env{};
    const p2b::TupleToSeal t{code, 1, reward, 0};
    if (p2b::seal_envelope(crypto, keys, t, env.data()) != p2b::Status::ok) std::abort();
    return env;
  }

  // Sealed correctly to our key, but the plaintext is not an Envelope.
  Envelope seal_garbage() const {
    Envelope env{};
    std::copy(shuffler.fp, shuffler.fp + p2b::kFingerprintBytes, env.begin());
    uint8_t plain[p2b::kOuterPlainBytes];
    for (std::size_t i = 0; i < sizeof plain; ++i) plain[i] = static_cast<uint8_t>(0xA5 ^ i);
    crypto_box_seal(env.data() + p2b::kFingerprintBytes, plain, sizeof plain, shuffler.pk);
    return env;
  }
};

inline std::string body_of(const std::vector<Envelope>& envs) {
  std::string body;
  for (const Envelope& e : envs) body.append(reinterpret_cast<const char*>(e.data()), e.size());
  return body;
}

// A spool record whose inner bytes start with its crowd id and a serial,
// so tests can tell records apart after shuffling.
inline p2b::shuffler::SpoolRecord record(uint32_t crowd, uint32_t serial) {
  p2b::shuffler::SpoolRecord r;
  r.crowd_id = crowd;
  for (int i = 0; i < 4; ++i) {
    r.inner[i] = static_cast<uint8_t>(crowd >> (8 * i));
    r.inner[4 + i] = static_cast<uint8_t>(serial >> (8 * i));
  }
  randombytes_buf(r.inner.data() + 8, r.inner.size() - 8);
  crypto_generichash(r.digest.data(), r.digest.size(), r.inner.data(), r.inner.size(), nullptr, 0);
  return r;
}

inline uint32_t crowd_of(const p2b::server::InnerCiphertext& inner) {
  return static_cast<uint32_t>(inner[0]) | static_cast<uint32_t>(inner[1]) << 8 |
         static_cast<uint32_t>(inner[2]) << 16 | static_cast<uint32_t>(inner[3]) << 24;
}

using TempDir = p2b_test::TempDir;

// Answers with a scripted status and remembers every batch it was given.
class FakeAnalyzer final : public p2b::shuffler::AnalyzerSink {
 public:
  int deliver(const std::vector<uint8_t>& encoded_batch, std::string* detail) override {
    const std::lock_guard<std::mutex> lock(mu);
    received.push_back(encoded_batch);
    detail->clear();
    return status;
  }
  std::size_t calls() {
    const std::lock_guard<std::mutex> lock(mu);
    return received.size();
  }
  void answer(int s) {
    const std::lock_guard<std::mutex> lock(mu);
    status = s;
  }

  std::mutex mu;
  int status = 200;
  std::vector<std::vector<uint8_t>> received;
};

}  // namespace shuffler_test
