// Shared by the shuffler's tests: real keys and envelopes sealed by the
// device's own code, a throwaway spool directory, and a scripted analyzer.
#pragma once

#include <gtest/gtest.h>
#include <sodium.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "p2b/envelope.hpp"
#include "shuffler/analyzer_sink.hpp"
#include "shuffler/batcher.hpp"
#include "shuffler/spool.hpp"
#include "shuffler/spool_key.hpp"
#include "sodium_port.hpp"
#include "temp_dir.hpp"
#include "wire/batch_ack.hpp"
#include "wire/batch_format.hpp"
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
  r.inner_digest = p2b::server::inner_digest(r.inner);
  return r;
}

// Stores n records of `crowd` (serials 0..n-1) in `spool`.
// A spool that passes every call to another; fault-injecting test spools
// override only the calls they script.
class ForwardingSpool : public p2b::shuffler::Spool {
 public:
  explicit ForwardingSpool(p2b::shuffler::Spool& inner) : inner_(inner) {}
  p2b::shuffler::InsertCounts insert(const std::vector<p2b::shuffler::SpoolRecord>& r) override {
    return insert_all({&r}).front();
  }
  std::vector<p2b::shuffler::InsertCounts> insert_all(
      const std::vector<const std::vector<p2b::shuffler::SpoolRecord>*>& requests) override {
    return inner_.insert_all(requests);
  }
  std::vector<uint32_t> partitions() const override { return inner_.partitions(); }
  uint32_t partition_of(uint32_t crowd_id) const override { return inner_.partition_of(crowd_id); }
  std::optional<p2b::shuffler::Lease> acquire_lease(uint32_t partition, const std::string& holder,
                                                    std::chrono::milliseconds ttl) override {
    return inner_.acquire_lease(partition, holder, ttl);
  }
  void release_lease(const p2b::shuffler::Lease& lease) override { inner_.release_lease(lease); }
  void open_epoch(const p2b::shuffler::EpochId& epoch) override { inner_.open_epoch(epoch); }
  std::size_t retire_epoch(const p2b::shuffler::EpochId& epoch) override {
    return inner_.retire_epoch(epoch);
  }
  bool epoch_retired(const p2b::shuffler::EpochId& epoch) override {
    return inner_.epoch_retired(epoch);
  }
  p2b::shuffler::ClosedBatch close_batch(const p2b::server::BatchId& id,
                                         const p2b::shuffler::Lease& lease, std::size_t max_records,
                                         const p2b::shuffler::BatchSelector& select) override {
    return inner_.close_batch(id, lease, max_records, select);
  }
  std::optional<p2b::server::Batch> oldest_unacknowledged(uint32_t partition) override {
    return inner_.oldest_unacknowledged(partition);
  }
  std::size_t acknowledge(const p2b::server::BatchId& id) override {
    return inner_.acknowledge(id);
  }
  std::size_t depth() override { return inner_.depth(); }
  std::size_t unbatched() override { return inner_.unbatched(); }
  std::size_t unacknowledged_batches() override { return inner_.unacknowledged_batches(); }
  const p2b::common::StoreHealth* health() const override { return inner_.health(); }

 private:
  p2b::shuffler::Spool& inner_;
};

// The lease of the spool's first partition, for tests that close batches
// by hand.
inline p2b::shuffler::Lease lease_of(p2b::shuffler::Spool& spool) {
  const auto lease =
      spool.acquire_lease(spool.partitions().front(), "test", std::chrono::minutes(5));
  EXPECT_TRUE(lease.has_value());
  return lease.value_or(p2b::shuffler::Lease{});
}

inline void fill(p2b::shuffler::Spool* spool, uint32_t crowd, uint32_t n) {
  std::vector<p2b::shuffler::SpoolRecord> records;
  for (uint32_t i = 0; i < n; ++i) {
    records.push_back(record(crowd, i));
    records.back().partition = spool->partition_of(crowd);
  }
  ASSERT_EQ(spool->insert(records).accepted, n);
}

// Polls `done` every millisecond for at most `seconds`.
template <class F>
bool eventually(F done, int seconds = 10) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return done();
}

inline uint32_t crowd_of(const p2b::server::InnerCiphertext& inner) {
  return static_cast<uint32_t>(inner[0]) | static_cast<uint32_t>(inner[1]) << 8 |
         static_cast<uint32_t>(inner[2]) << 16 | static_cast<uint32_t>(inner[3]) << 24;
}

using TempDir = p2b_test::TempDir;

// A spool key derived from a fixed master (every byte `fill`), so that a
// spool reopened in the same test, or by another process, opens again;
// another `fill` is another key.
inline std::shared_ptr<const p2b::shuffler::SpoolKey> spool_key(uint8_t fill = 0x5A) {
  if (sodium_init() < 0) std::abort();
  std::array<uint8_t, p2b::shuffler::kSpoolKeyBytes> master{};
  master.fill(fill);
  return std::make_shared<const p2b::shuffler::SpoolKey>(master.data());
}

// The two Ed25519 pairs of a test deployment: the shuffler signs batches,
// the analyzer signs acks.
struct SignKeys {
  uint8_t shuffler_pk[crypto_sign_PUBLICKEYBYTES], shuffler_sk[crypto_sign_SECRETKEYBYTES];
  uint8_t analyzer_pk[crypto_sign_PUBLICKEYBYTES], analyzer_sk[crypto_sign_SECRETKEYBYTES];
};

inline const SignKeys& sign_keys() {
  static const SignKeys keys = [] {
    SignKeys k{};
    if (sodium_init() < 0) std::abort();
    crypto_sign_keypair(k.shuffler_pk, k.shuffler_sk);
    crypto_sign_keypair(k.analyzer_pk, k.analyzer_sk);
    return k;
  }();
  return keys;
}

inline p2b::shuffler::BatchKeys batch_keys() {
  return {sign_keys().shuffler_sk, sign_keys().analyzer_pk};
}

// Verifies what the shuffler sent with the shuffler's verify key.
inline p2b::server::VerifiedBatch verified(const std::vector<uint8_t>& body) {
  p2b::server::VerifyKey key{};
  p2b::server::make_verify_key(sign_keys().shuffler_pk, &key);
  p2b::server::VerifiedBatch out;
  std::string err;
  if (p2b::server::verify_batch(body.data(), body.size(), &key, 1, &out, &err) !=
      p2b::server::BatchCheck::ok) {
    ADD_FAILURE() << err;
  }
  return out;
}

// What a 200 carries besides its status: a valid ack of the batch, none, an
// ack signed by another key, a valid ack of other contents, or one whose
// counts leave a record unaccounted for.
enum class AckMode { valid, none, forged, other_digest, short_count };

// Answers with a scripted status (and ack) and remembers every batch it was
// given.
class FakeAnalyzer final : public p2b::shuffler::AnalyzerSink {
 public:
  int deliver(const std::vector<uint8_t>& encoded_batch, std::string* body,
              std::string* detail) override {
    const std::lock_guard<std::mutex> lock(mu);
    received.push_back(encoded_batch);
    detail->clear();
    body->clear();
    if (status != 200 || ack_mode == AckMode::none) return status;
    p2b::server::BatchAck ack;
    const p2b::server::VerifiedBatch v = verified(encoded_batch);
    ack.id = v.batch.id;
    ack.digest = v.digest;
    ack.records = static_cast<uint32_t>(v.batch.records.size());
    ack.applied = ack.records;
    if (ack_mode == AckMode::short_count) --ack.applied;
    if (ack_mode == AckMode::other_digest) ack.digest[0] ^= 1;
    uint8_t pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
    crypto_sign_keypair(pk, sk);
    const std::vector<uint8_t> bytes = p2b::server::encode_signed_ack(
        ack, ack_mode == AckMode::forged ? sk : sign_keys().analyzer_sk);
    *body = "{\"applied\":1,\"ack\":\"" + p2b::server::hex_of(bytes.data(), bytes.size()) + "\"}";
    return status;
  }
  void acks(AckMode m) {
    const std::lock_guard<std::mutex> lock(mu);
    ack_mode = m;
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
  AckMode ack_mode = AckMode::valid;
  std::vector<std::vector<uint8_t>> received;
};

}  // namespace shuffler_test
