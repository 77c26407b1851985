// The FCLUB wire formats P2BU and P2BD (server/fclub/wire/fclub_wire.hpp,
// docs/formats.md): round trips, one length per dim, and each refusal.
#include <gtest/gtest.h>
#include <pb_encode.h>
#include <sodium.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "fclub/wire/fclub_wire.hpp"
#include "fclub/wire/fclub_wire_testing.hpp"
#include "p2b_fclub.pb.h"

namespace {

using p2b::fclub::ClusterStats;
using p2b::fclub::Download;
using p2b::fclub::OpenExpect;
using p2b::fclub::OpenStatus;
using p2b::fclub::Upload;
namespace fc = p2b::fclub;
using Bytes = std::vector<uint8_t>;

struct BoxPair {
  uint8_t pk[crypto_box_PUBLICKEYBYTES];
  uint8_t sk[crypto_box_SECRETKEYBYTES];
};
struct SignPair {
  fc::VerifyKey pk;
  uint8_t sk[crypto_sign_SECRETKEYBYTES];
};

BoxPair box_pair(uint8_t tag) {
  uint8_t seed[crypto_box_SEEDBYTES];
  std::memset(seed, tag, sizeof seed);
  BoxPair k{};
  EXPECT_EQ(crypto_box_seed_keypair(k.pk, k.sk, seed), 0);
  return k;
}
SignPair sign_pair(uint8_t tag) {
  uint8_t seed[crypto_sign_SEEDBYTES];
  std::memset(seed, tag, sizeof seed);
  SignPair k{};
  EXPECT_EQ(crypto_sign_seed_keypair(k.pk.data(), k.sk, seed), 0);
  return k;
}

// A small deterministic generator (splitmix64) for message contents.
struct Gen {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double real() { return static_cast<double>(next() >> 11) / 9007199254740992.0 * 200.0 - 100.0; }
};

ClusterStats stats(uint32_t d, uint64_t seed) {
  Gen g{seed};
  ClusterStats s;
  s.dim = d;
  s.count = g.next() % 100000;
  for (std::size_t i = 0; i < fc::gram_upper_count(d); ++i) s.gram_upper.push_back(g.real());
  for (uint32_t i = 0; i < d; ++i) s.moment.push_back(g.real());
  return s;
}

class FclubWire : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_GE(sodium_init(), 0);
    global_box = box_pair(0x61);
    local_box = box_pair(0x62);
    other_box = box_pair(0x63);
    local_sign = sign_pair(0x71);
    local_sign2 = sign_pair(0x72);
    global_sign = sign_pair(0x73);
    stranger_sign = sign_pair(0x74);
    ASSERT_TRUE(fc::deployment_fingerprint(global_box.pk, expect.deployment_fp));
    // The global server pins its local servers' keys; they pin the global one.
    local_signers = fc::pinned_signers({local_sign.pk, local_sign2.pk});
    global_signers = fc::pinned_signers({global_sign.pk});
  }

  Upload upload(uint32_t d, uint64_t seed = 1) const {
    Upload u;
    std::memcpy(u.deployment_fp, expect.deployment_fp, fc::kFpBytes);
    u.server_id = 3;
    u.phase = 7;
    u.seq = 2;
    u.local_cluster = 5;
    u.member_count = 41;
    u.stats = stats(d, seed);
    u.epsilon_spent = 0.75;
    u.delta = 1e-6;
    return u;
  }
  Download download(uint32_t d, uint64_t seed = 2) const {
    Download m;
    std::memcpy(m.deployment_fp, expect.deployment_fp, fc::kFpBytes);
    m.server_id = 3;
    m.phase = 7;
    m.version = 12;
    m.local_cluster = 5;
    m.global_cluster = 1;
    m.kind = fc::kDownloadReplace;
    m.stats = stats(d, seed);
    return m;
  }

  Bytes seal(const Upload& u, const SignPair& by) const {
    Bytes w;
    std::string err;
    EXPECT_TRUE(fc::seal_upload(u, by.sk, global_box.pk, &w, &err)) << err;
    return w;
  }
  Bytes seal(const Download& m) const {
    Bytes w;
    std::string err;
    EXPECT_TRUE(fc::seal_download(m, global_sign.sk, local_box.pk, &w, &err)) << err;
    return w;
  }
  OpenStatus open(const Bytes& w, Upload* out, std::string* err = nullptr) const {
    std::string e;
    return fc::open_upload(w.data(), w.size(), global_box.pk, global_box.sk, local_signers, expect,
                           out, err != nullptr ? err : &e);
  }
  OpenStatus open(const Bytes& w, Download* out, std::string* err = nullptr) const {
    std::string e;
    return fc::open_download(w.data(), w.size(), local_box.pk, local_box.sk, global_signers, expect,
                             out, err != nullptr ? err : &e);
  }
  // An upload signed by `by` without the sealer's checks, padded to the size
  // of `wire_dim` and sealed to the global server.
  Bytes seal_unchecked(const Upload& u, const SignPair& by, uint32_t wire_dim,
                       bool keep_fp = false) const {
    Bytes padded;
    Bytes w;
    std::string err;
    EXPECT_TRUE(fc::testing::pad_upload_unchecked(u, by.sk, wire_dim, keep_fp, &padded, &err))
        << err;
    EXPECT_TRUE(fc::testing::seal_padded(padded, global_box.pk, &w));
    return w;
  }
  Bytes seal_unchecked(const Download& m, uint32_t wire_dim) const {
    Bytes padded;
    Bytes w;
    std::string err;
    EXPECT_TRUE(
        fc::testing::pad_download_unchecked(m, global_sign.sk, wire_dim, false, &padded, &err))
        << err;
    EXPECT_TRUE(fc::testing::seal_padded(padded, local_box.pk, &w));
    return w;
  }
  // The upload's padded plaintext, changed by `edit` (which may re-sign), sealed.
  Bytes edited(const Upload& u, const std::function<void(Bytes*)>& edit) const {
    Bytes padded;
    Bytes w;
    std::string err;
    EXPECT_TRUE(
        fc::testing::pad_upload_unchecked(u, local_sign.sk, u.stats.dim, false, &padded, &err))
        << err;
    edit(&padded);
    EXPECT_TRUE(fc::testing::seal_padded(padded, global_box.pk, &w));
    return w;
  }
  // Replaces the message bytes of a padded frame by `body` (varint + message)
  // and signs again with the local server's key.
  void rebody(Bytes* padded, const Bytes& body) const {
    const std::size_t frame_len = body.size() + fc::kMagicBytes + fc::kSignatureBytes;
    ASSERT_LE(fc::kLengthPrefixBytes + frame_len, padded->size());
    const std::size_t total = padded->size();
    Bytes out(total, 0);
    out[0] = static_cast<uint8_t>(frame_len);
    out[1] = static_cast<uint8_t>(frame_len >> 8);
    out[2] = static_cast<uint8_t>(frame_len >> 16);
    out[3] = static_cast<uint8_t>(frame_len >> 24);
    uint8_t* frame = out.data() + fc::kLengthPrefixBytes;
    std::memcpy(frame, padded->data() + fc::kLengthPrefixBytes, fc::kMagicBytes);
    std::memcpy(frame + fc::kMagicBytes, body.data(), body.size());
    const std::size_t signed_len = frame_len - fc::kSignatureBytes;
    crypto_sign_detached(frame + signed_len, nullptr, frame, signed_len, local_sign.sk);
    *padded = out;
  }
  static Bytes body_of(const Bytes& padded) {
    const std::size_t frame_len = padded[0] | padded[1] << 8 | padded[2] << 16;
    const uint8_t* b = padded.data() + fc::kLengthPrefixBytes + fc::kMagicBytes;
    return Bytes(b, b + frame_len - fc::kMagicBytes - fc::kSignatureBytes);
  }

  // varint(n) | m, and the message of such a body.
  static Bytes delimit(const Bytes& m, std::size_t n) {
    Bytes out;
    while (n >= 0x80) {
      out.push_back(static_cast<uint8_t>(n | 0x80));
      n >>= 7;
    }
    out.push_back(static_cast<uint8_t>(n));
    out.insert(out.end(), m.begin(), m.end());
    return out;
  }
  static Bytes message_of(const Bytes& body) {
    std::size_t i = 0;
    while (body[i] & 0x80) ++i;
    return Bytes(body.begin() + static_cast<std::ptrdiff_t>(i + 1), body.end());
  }

  BoxPair global_box{}, local_box{}, other_box{};
  SignPair local_sign{}, local_sign2{}, global_sign{}, stranger_sign{};
  OpenExpect expect;
  fc::SignerLookup local_signers, global_signers;
};

void expect_same(const ClusterStats& a, const ClusterStats& b) {
  EXPECT_EQ(a.dim, b.dim);
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.gram_upper, b.gram_upper);
  EXPECT_EQ(a.moment, b.moment);
}

// A sentinel an opener must leave alone when it refuses.
Upload sentinel_upload() {
  Upload u;
  u.server_id = 777;
  u.stats.moment = {42.0};
  return u;
}
bool untouched(const Upload& u) {
  return u.server_id == 777 && u.stats.moment.size() == 1 && u.stats.moment[0] == 42.0;
}

// ---- sizes -----------------------------------------------------------------

TEST(FclubWireSize, FixedPerDimAndMeasured) {
  EXPECT_EQ(fc::upload_wire_size(0), 0u);
  EXPECT_EQ(fc::upload_wire_size(65), 0u);
  EXPECT_EQ(fc::download_wire_size(0), 0u);
  EXPECT_EQ(fc::download_wire_size(65), 0u);
  for (uint32_t d = 1; d < fc::kMaxDim; ++d) {
    EXPECT_LT(fc::upload_wire_size(d), fc::upload_wire_size(d + 1));
    EXPECT_LT(fc::download_wire_size(d), fc::download_wire_size(d + 1));
  }
  // The figures of docs/formats.md: a change here is a format change.
  EXPECT_EQ(fc::upload_wire_size(10), 757u);
  EXPECT_EQ(fc::download_wire_size(10), 750u);
  EXPECT_EQ(fc::upload_wire_size(64), 17393u);
  EXPECT_EQ(fc::download_wire_size(64), 17386u);
  std::printf("upload_wire_size: d=1 %zu, d=10 %zu, d=64 %zu\n", fc::upload_wire_size(1),
              fc::upload_wire_size(10), fc::upload_wire_size(64));
  std::printf("download_wire_size: d=1 %zu, d=10 %zu, d=64 %zu\n", fc::download_wire_size(1),
              fc::download_wire_size(10), fc::download_wire_size(64));
}

// The maximum is computed, not guessed: it is exactly what nanopb writes for
// a message with every field present and every varint at its widest.
TEST(FclubWireSize, MaximumIsNanopbsEncodingOfTheWidestMessage) {
  static p2b_fclub_v1_ClusterStats s;
  static p2b_fclub_v1_Upload u;
  static p2b_fclub_v1_Download m;
  for (uint32_t d = 1; d <= fc::kMaxDim; ++d) {
    s = p2b_fclub_v1_ClusterStats{};
    s.dim = 0xFFFFFFFFu;
    s.count = ~uint64_t{0};
    s.gram_upper_count = static_cast<pb_size_t>(fc::gram_upper_count(d));
    for (pb_size_t i = 0; i < s.gram_upper_count; ++i) s.gram_upper[i] = -1.5;
    s.moment_count = static_cast<pb_size_t>(d);
    for (pb_size_t i = 0; i < s.moment_count; ++i) s.moment[i] = -1.5;
    u = p2b_fclub_v1_Upload{};
    u.format = u.server_id = u.phase = u.seq = u.local_cluster = u.member_count = 0xFFFFFFFFu;
    std::memset(u.deployment_fp, 0xFF, sizeof u.deployment_fp);
    std::memset(u.signer_fp, 0xFF, sizeof u.signer_fp);
    u.has_stats = true;
    u.stats = s;
    u.epsilon_spent = u.delta = -1.5;
    m = p2b_fclub_v1_Download{};
    m.format = m.server_id = m.phase = m.local_cluster = m.global_cluster = m.kind = 0xFFFFFFFFu;
    m.version = ~uint64_t{0};
    std::memset(m.deployment_fp, 0xFF, sizeof m.deployment_fp);
    std::memset(m.signer_fp, 0xFF, sizeof m.signer_fp);
    m.has_stats = true;
    m.stats = s;
    std::size_t n = 0;
    ASSERT_TRUE(pb_get_encoded_size(&n, &p2b_fclub_v1_Upload_msg, &u));
    EXPECT_EQ(n, fc::upload_message_max_bytes(d)) << "d = " << d;
    ASSERT_TRUE(pb_get_encoded_size(&n, &p2b_fclub_v1_Download_msg, &m));
    EXPECT_EQ(n, fc::download_message_max_bytes(d)) << "d = " << d;
  }
}

// ---- round trips -------------------------------------------------------------

TEST_F(FclubWire, UploadRoundTrip) {
  for (const uint32_t d : {1u, 10u, 64u}) {
    const Upload u = upload(d, d);
    const Bytes w = seal(u, local_sign);
    EXPECT_EQ(w.size(), fc::upload_wire_size(d));
    Upload got;
    std::string err;
    ASSERT_EQ(open(w, &got, &err), OpenStatus::ok) << err;
    EXPECT_EQ(got.format, 1u);
    EXPECT_EQ(std::memcmp(got.deployment_fp, expect.deployment_fp, fc::kFpBytes), 0);
    uint8_t fp[fc::kFpBytes];
    ASSERT_TRUE(fc::signer_fingerprint(local_sign.pk.data(), fp));
    EXPECT_EQ(std::memcmp(got.signer_fp, fp, fc::kFpBytes), 0);
    EXPECT_EQ(got.server_id, u.server_id);
    EXPECT_EQ(got.phase, u.phase);
    EXPECT_EQ(got.seq, u.seq);
    EXPECT_EQ(got.local_cluster, u.local_cluster);
    EXPECT_EQ(got.member_count, u.member_count);
    EXPECT_EQ(got.epsilon_spent, u.epsilon_spent);
    EXPECT_EQ(got.delta, u.delta);
    expect_same(got.stats, u.stats);
    // Knowing the dim is optional: the length names it.
    OpenExpect exact = expect;
    exact.dim = d;
    ASSERT_EQ(fc::open_upload(w.data(), w.size(), global_box.pk, global_box.sk, local_signers,
                              exact, &got, &err),
              OpenStatus::ok)
        << err;
  }
}

TEST_F(FclubWire, DownloadRoundTrip) {
  for (const uint32_t d : {1u, 10u, 64u}) {
    const Download m = download(d, 100 + d);
    const Bytes w = seal(m);
    EXPECT_EQ(w.size(), fc::download_wire_size(d));
    Download got;
    std::string err;
    ASSERT_EQ(open(w, &got, &err), OpenStatus::ok) << err;
    uint8_t fp[fc::kFpBytes];
    ASSERT_TRUE(fc::signer_fingerprint(global_sign.pk.data(), fp));
    EXPECT_EQ(std::memcmp(got.signer_fp, fp, fc::kFpBytes), 0);
    EXPECT_EQ(got.server_id, m.server_id);
    EXPECT_EQ(got.phase, m.phase);
    EXPECT_EQ(got.version, m.version);
    EXPECT_EQ(got.local_cluster, m.local_cluster);
    EXPECT_EQ(got.global_cluster, m.global_cluster);
    EXPECT_EQ(got.kind, m.kind);
    expect_same(got.stats, m.stats);
  }
}

TEST_F(FclubWire, EveryMessageOfADimHasOneLength) {
  for (const uint32_t d : {1u, 10u, 64u}) {
    // All zero (the shortest encoding: proto3 leaves zero fields out), the
    // widest values, and random ones.
    Upload small = upload(d);
    small.server_id = small.phase = small.seq = small.local_cluster = small.member_count = 0;
    small.epsilon_spent = small.delta = 0;
    small.stats.count = 0;
    std::fill(small.stats.gram_upper.begin(), small.stats.gram_upper.end(), 0.0);
    std::fill(small.stats.moment.begin(), small.stats.moment.end(), 0.0);
    Upload wide = upload(d);
    wide.server_id = wide.phase = wide.seq = wide.local_cluster = wide.member_count = 0xFFFFFFFFu;
    wide.stats.count = fc::kMaxStatsCount;
    wide.epsilon_spent = std::numeric_limits<double>::max();
    wide.delta = 1;
    for (const Upload& u : {small, wide, upload(d, 7), upload(d, 8)}) {
      EXPECT_EQ(seal(u, local_sign).size(), fc::upload_wire_size(d));
    }
    Download dsmall = download(d);
    dsmall.server_id = dsmall.phase = dsmall.local_cluster = dsmall.global_cluster = 0;
    dsmall.version = 0;
    dsmall.kind = 0;
    dsmall.stats = small.stats;
    Download dwide = download(d);
    dwide.server_id = dwide.phase = dwide.local_cluster = dwide.global_cluster = 0xFFFFFFFFu;
    dwide.version = ~uint64_t{0};
    dwide.stats = wide.stats;
    for (const Download& m : {dsmall, dwide, download(d, 9)}) {
      EXPECT_EQ(seal(m).size(), fc::download_wire_size(d));
      Download got;
      EXPECT_EQ(open(seal(m), &got), OpenStatus::ok);
    }
    Upload got;
    EXPECT_EQ(open(seal(small, local_sign), &got), OpenStatus::ok);
    EXPECT_EQ(open(seal(wide, local_sign), &got), OpenStatus::ok);
  }
}

TEST_F(FclubWire, EveryPinnedSignerIsAccepted) {
  Upload got;
  EXPECT_EQ(open(seal(upload(4), local_sign), &got), OpenStatus::ok);
  EXPECT_EQ(open(seal(upload(4), local_sign2), &got), OpenStatus::ok);
}

// ---- refusals ----------------------------------------------------------------

TEST_F(FclubWire, EveryTamperedByteIsRefused) {
  for (const uint32_t d : {1u, 10u}) {
    const Bytes w = seal(upload(d), local_sign);
    for (std::size_t i = 0; i < w.size(); ++i) {
      Bytes t = w;
      t[i] ^= static_cast<uint8_t>(1u << (i % 8));
      Upload got = sentinel_upload();
      ASSERT_EQ(open(t, &got), OpenStatus::unseal_failed) << "byte " << i;
      ASSERT_TRUE(untouched(got));
    }
    const Bytes dw = seal(download(d));
    for (std::size_t i = 0; i < dw.size(); ++i) {
      Bytes t = dw;
      t[i] ^= 0x80;
      Download got;
      ASSERT_EQ(open(t, &got), OpenStatus::unseal_failed) << "byte " << i;
    }
  }
}

TEST_F(FclubWire, WrongLengthIsRefusedBeforeUnsealing) {
  const Bytes w = seal(upload(10), local_sign);
  Upload got = sentinel_upload();
  std::string err;
  for (const std::size_t n : {std::size_t{0}, std::size_t{47}, w.size() - 1}) {
    const Bytes t(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_EQ(open(t, &got, &err), OpenStatus::wrong_length) << n;
  }
  Bytes longer = w;
  longer.push_back(0);
  EXPECT_EQ(open(longer, &got, &err), OpenStatus::wrong_length);
  EXPECT_EQ(err.rfind("wrong_length: ", 0), 0u) << err;
  // The right length for another dim than the deployment's.
  OpenExpect e = expect;
  e.dim = 9;
  EXPECT_EQ(fc::open_upload(w.data(), w.size(), global_box.pk, global_box.sk, local_signers, e,
                            &got, &err),
            OpenStatus::wrong_length);
  // A download is never an upload's length at the same dim.
  const Bytes dw = seal(download(10));
  e.dim = 10;
  EXPECT_EQ(fc::open_upload(dw.data(), dw.size(), global_box.pk, global_box.sk, local_signers, e,
                            &got, &err),
            OpenStatus::wrong_length);
  EXPECT_TRUE(untouched(got));
}

TEST_F(FclubWire, WrongRecipientKeyIsRefused) {
  const Bytes w = seal(upload(10), local_sign);
  Upload got = sentinel_upload();
  std::string err;
  EXPECT_EQ(fc::open_upload(w.data(), w.size(), other_box.pk, other_box.sk, local_signers, expect,
                            &got, &err),
            OpenStatus::unseal_failed);
  EXPECT_EQ(err.rfind("unseal_failed: ", 0), 0u) << err;
  // A download sealed to one local server does not open at another.
  const Bytes dw = seal(download(10));
  Download dgot;
  EXPECT_EQ(fc::open_download(dw.data(), dw.size(), other_box.pk, other_box.sk, global_signers,
                              expect, &dgot, &err),
            OpenStatus::unseal_failed);
  EXPECT_TRUE(untouched(got));
}

TEST_F(FclubWire, WrongSignerIsRefused) {
  Upload got = sentinel_upload();
  std::string err;
  // A key the global server does not pin.
  EXPECT_EQ(open(seal(upload(10), stranger_sign), &got, &err), OpenStatus::unknown_signer);
  EXPECT_EQ(err.rfind("unknown_signer: ", 0), 0u) << err;
  // A pinned key's fingerprint, signed by another key.
  Upload u = upload(10);
  ASSERT_TRUE(fc::signer_fingerprint(local_sign.pk.data(), u.signer_fp));
  EXPECT_EQ(open(seal_unchecked(u, stranger_sign, 10, true), &got, &err),
            OpenStatus::bad_signature);
  EXPECT_EQ(err.rfind("bad_signature: ", 0), 0u) << err;
  // An upload signed by the global server's key is not from a local server.
  EXPECT_EQ(open(seal(upload(10), global_sign), &got, &err), OpenStatus::unknown_signer);
  // No lookup at all.
  const Bytes w = seal(upload(10), local_sign);
  EXPECT_EQ(fc::open_upload(w.data(), w.size(), global_box.pk, global_box.sk, fc::SignerLookup(),
                            expect, &got, &err),
            OpenStatus::unknown_signer);
  // A download signed by a local server's key.
  Download m = download(10);
  Bytes padded;
  Bytes dw;
  ASSERT_TRUE(fc::testing::pad_download_unchecked(m, local_sign.sk, 10, false, &padded, &err));
  ASSERT_TRUE(fc::testing::seal_padded(padded, local_box.pk, &dw));
  Download dgot;
  EXPECT_EQ(open(dw, &dgot), OpenStatus::unknown_signer);
  EXPECT_TRUE(untouched(got));
}

TEST_F(FclubWire, AnotherDeploymentIsRefused) {
  Upload u = upload(10);
  ASSERT_TRUE(fc::deployment_fingerprint(other_box.pk, u.deployment_fp));
  Upload got = sentinel_upload();
  std::string err;
  EXPECT_EQ(open(seal(u, local_sign), &got, &err), OpenStatus::deployment_mismatch);
  EXPECT_EQ(err.rfind("deployment_mismatch: ", 0), 0u) << err;
  Download m = download(10);
  m.deployment_fp[15] ^= 1;
  Download dgot;
  EXPECT_EQ(open(seal(m), &dgot), OpenStatus::deployment_mismatch);
  EXPECT_TRUE(untouched(got));
}

TEST_F(FclubWire, DimMismatchIsRefused) {
  Upload got = sentinel_upload();
  std::string err;
  // A signed d = 9 message padded to the length of d = 10.
  const Bytes w = seal_unchecked(upload(9), local_sign, 10);
  EXPECT_EQ(open(w, &got, &err), OpenStatus::bad_dim);
  EXPECT_EQ(err.rfind("bad_dim: ", 0), 0u) << err;
  OpenExpect e = expect;
  e.dim = 10;
  EXPECT_EQ(fc::open_upload(w.data(), w.size(), global_box.pk, global_box.sk, local_signers, e,
                            &got, &err),
            OpenStatus::bad_dim);
  // dim 0 and dim 65.
  Upload u = upload(10);
  u.stats.dim = 0;
  EXPECT_EQ(open(seal_unchecked(u, local_sign, 10), &got), OpenStatus::bad_dim);
  u.stats.dim = 65;
  EXPECT_EQ(open(seal_unchecked(u, local_sign, 10), &got), OpenStatus::bad_dim);
  // Counts that do not match the dim.
  u = upload(10);
  u.stats.gram_upper.pop_back();
  EXPECT_EQ(open(seal_unchecked(u, local_sign, 10), &got, &err), OpenStatus::count_mismatch);
  EXPECT_EQ(err.rfind("count_mismatch: ", 0), 0u) << err;
  u = upload(10);
  u.stats.moment.push_back(1.0);
  EXPECT_EQ(open(seal_unchecked(u, local_sign, 10), &got), OpenStatus::count_mismatch);
  u = upload(10);
  u.stats.dim = 9;  // the counts of 10
  EXPECT_EQ(open(seal_unchecked(u, local_sign, 10), &got), OpenStatus::count_mismatch);
  Download m = download(10);
  m.stats.moment.clear();
  Download dgot;
  EXPECT_EQ(open(seal_unchecked(m, 10), &dgot), OpenStatus::count_mismatch);
  EXPECT_TRUE(untouched(got));
}

TEST_F(FclubWire, NonFiniteNumbersAreRefused) {
  const double bad[] = {std::nan(""), std::numeric_limits<double>::infinity(),
                        -std::numeric_limits<double>::infinity()};
  Upload got = sentinel_upload();
  std::string err;
  for (const double x : bad) {
    Upload u = upload(10);
    u.stats.gram_upper[17] = x;
    EXPECT_EQ(open(seal_unchecked(u, local_sign, 10), &got, &err), OpenStatus::non_finite);
    EXPECT_EQ(err.rfind("non_finite: ", 0), 0u) << err;
    u = upload(10);
    u.stats.moment[9] = x;
    EXPECT_EQ(open(seal_unchecked(u, local_sign, 10), &got), OpenStatus::non_finite);
    u = upload(10);
    u.epsilon_spent = x;
    EXPECT_EQ(open(seal_unchecked(u, local_sign, 10), &got), OpenStatus::non_finite);
    u = upload(10);
    u.delta = x;
    EXPECT_EQ(open(seal_unchecked(u, local_sign, 10), &got), OpenStatus::non_finite);
    Download m = download(10);
    m.stats.gram_upper[0] = x;
    Download dgot;
    EXPECT_EQ(open(seal_unchecked(m, 10), &dgot), OpenStatus::non_finite);
  }
  EXPECT_TRUE(untouched(got));
}

TEST_F(FclubWire, CountOverflowIsRefused) {
  Upload u = upload(10);
  u.stats.count = fc::kMaxStatsCount;
  Upload got = sentinel_upload();
  EXPECT_EQ(open(seal(u, local_sign), &got), OpenStatus::ok);
  got = sentinel_upload();
  std::string err;
  for (const uint64_t c : {fc::kMaxStatsCount + 1, ~uint64_t{0}}) {
    u.stats.count = c;
    EXPECT_EQ(open(seal_unchecked(u, local_sign, 10), &got, &err), OpenStatus::count_overflow);
    EXPECT_EQ(err.rfind("count_overflow: ", 0), 0u) << err;
  }
  Download m = download(10);
  m.stats.count = fc::kMaxStatsCount + 1;
  Download dgot;
  EXPECT_EQ(open(seal_unchecked(m, 10), &dgot), OpenStatus::count_overflow);
  EXPECT_TRUE(untouched(got));
}

TEST_F(FclubWire, WrongFormatAndOutOfRangeAreRefused) {
  Upload u = upload(10);
  u.format = 2;
  Upload got = sentinel_upload();
  std::string err;
  EXPECT_EQ(open(seal_unchecked(u, local_sign, 10), &got, &err), OpenStatus::wrong_format);
  EXPECT_EQ(err.rfind("wrong_format: ", 0), 0u) << err;
  u.format = 0;
  EXPECT_EQ(open(seal_unchecked(u, local_sign, 10), &got), OpenStatus::wrong_format);
  u = upload(10);
  u.epsilon_spent = -0.5;
  EXPECT_EQ(open(seal_unchecked(u, local_sign, 10), &got, &err), OpenStatus::out_of_range);
  EXPECT_EQ(err.rfind("out_of_range: ", 0), 0u) << err;
  u = upload(10);
  u.delta = 1.5;
  EXPECT_EQ(open(seal_unchecked(u, local_sign, 10), &got), OpenStatus::out_of_range);
  Download m = download(10);
  m.kind = 2;
  Download dgot;
  EXPECT_EQ(open(seal_unchecked(m, 10), &dgot), OpenStatus::out_of_range);
  m = download(10);
  m.format = 7;
  EXPECT_EQ(open(seal_unchecked(m, 10), &dgot), OpenStatus::wrong_format);
  EXPECT_TRUE(untouched(got));
}

TEST_F(FclubWire, BadPaddingIsRefused) {
  Upload got = sentinel_upload();
  std::string err;
  const Upload u = upload(10);
  // A non-zero byte after the frame, at the end and right after it.
  EXPECT_EQ(open(edited(u, [](Bytes* p) { p->back() = 1; }), &got, &err), OpenStatus::bad_padding);
  EXPECT_EQ(err.rfind("bad_padding: ", 0), 0u) << err;
  EXPECT_EQ(open(edited(u,
                        [](Bytes* p) {
                          const std::size_t n = (*p)[0] | (*p)[1] << 8;
                          (*p)[fc::kLengthPrefixBytes + n] = 0x80;
                        }),
                 &got),
            OpenStatus::bad_padding);
  // A length prefix past the end, or too short for any frame.
  EXPECT_EQ(open(edited(u, [](Bytes* p) { (*p)[3] = 1; }), &got), OpenStatus::bad_padding);
  EXPECT_EQ(open(edited(u,
                        [](Bytes* p) {
                          (*p)[0] = 10;
                          (*p)[1] = 0;
                        }),
                 &got),
            OpenStatus::bad_padding);
  EXPECT_TRUE(untouched(got));
}

TEST_F(FclubWire, BadMagicIsRefused) {
  Upload got = sentinel_upload();
  std::string err;
  const Upload u = upload(10);
  EXPECT_EQ(open(edited(u, [](Bytes* p) { (*p)[fc::kLengthPrefixBytes + 3] = 'D'; }), &got, &err),
            OpenStatus::bad_magic);
  EXPECT_EQ(err.rfind("bad_magic: ", 0), 0u) << err;
  EXPECT_TRUE(untouched(got));
}

TEST_F(FclubWire, DecodeErrorsAreRefused) {
  Upload got = sentinel_upload();
  std::string err;
  const Upload u = upload(10);
  // The delimiting length past the signature; then short of it.
  EXPECT_EQ(open(edited(u,
                        [&](Bytes* p) {
                          const Bytes m = message_of(body_of(*p));
                          rebody(p, delimit(m, m.size() + 1));
                        }),
                 &got, &err),
            OpenStatus::decode_error);
  EXPECT_EQ(err.rfind("decode_error: ", 0), 0u) << err;
  EXPECT_EQ(open(edited(u,
                        [&](Bytes* p) {
                          Bytes b = body_of(*p);
                          b.push_back(0);
                          rebody(p, b);
                        }),
                 &got),
            OpenStatus::decode_error);
  // An unknown field (15, varint 0) appended inside the message: it decodes,
  // but it is not the canonical encoding, so it is refused.
  EXPECT_EQ(open(edited(u,
                        [&](Bytes* p) {
                          Bytes m = message_of(body_of(*p));
                          m.push_back(0x78);
                          m.push_back(0x00);
                          rebody(p, delimit(m, m.size()));
                        }),
                 &got, &err),
            OpenStatus::decode_error);
  EXPECT_NE(err.find("canonical"), std::string::npos) << err;
  // The same message with its format field written twice (the last wins in
  // protobuf): not canonical either.
  EXPECT_EQ(open(edited(u,
                        [&](Bytes* p) {
                          Bytes m = message_of(body_of(*p));
                          m.insert(m.begin(), {0x08, 0x01});
                          rebody(p, delimit(m, m.size()));
                        }),
                 &got),
            OpenStatus::decode_error);
  // No stats at all: a message of just format = 1, signed.
  EXPECT_EQ(open(edited(u,
                        [&](Bytes* p) {
                          rebody(p, Bytes{2, 0x08, 0x01});
                        }),
                 &got, &err),
            OpenStatus::decode_error);
  EXPECT_NE(err.find("no stats"), std::string::npos) << err;
  // Garbage where the message is.
  EXPECT_EQ(open(edited(u,
                        [&](Bytes* p) {
                          rebody(p, Bytes{3, 0xFF, 0xFF, 0xFF});
                        }),
                 &got),
            OpenStatus::decode_error);
  EXPECT_TRUE(untouched(got));
}

TEST_F(FclubWire, SealerRefusesInvalidMessages) {
  Bytes w = {9, 9};
  std::string err;
  Upload u = upload(10);
  u.stats.dim = 0;
  EXPECT_FALSE(fc::seal_upload(u, local_sign.sk, global_box.pk, &w, &err));
  u = upload(10);
  u.stats.moment[0] = std::nan("");
  EXPECT_FALSE(fc::seal_upload(u, local_sign.sk, global_box.pk, &w, &err));
  u = upload(65);
  EXPECT_FALSE(fc::seal_upload(u, local_sign.sk, global_box.pk, &w, &err));
  Download m = download(10);
  m.kind = 3;
  EXPECT_FALSE(fc::seal_download(m, global_sign.sk, local_box.pk, &w, &err));
  EXPECT_EQ(w, (Bytes{9, 9}));
}

// What check_*_plaintext refuses without the seal (the fuzz targets' entry).
TEST_F(FclubWire, PlaintextCheckerMatchesTheOpener) {
  Bytes padded;
  std::string err;
  const Upload u = upload(6);
  ASSERT_TRUE(fc::testing::pad_upload_unchecked(u, local_sign.sk, 6, false, &padded, &err));
  EXPECT_EQ(padded.size() + fc::kSealBytes, fc::upload_wire_size(6));
  Upload got;
  ASSERT_EQ(
      fc::check_upload_plaintext(padded.data(), padded.size(), local_signers, expect, &got, &err),
      OpenStatus::ok)
      << err;
  expect_same(got.stats, u.stats);
  EXPECT_EQ(fc::check_upload_plaintext(padded.data(), padded.size() - 1, local_signers, expect,
                                       &got, &err),
            OpenStatus::wrong_length);
  Download dgot;
  EXPECT_EQ(fc::check_download_plaintext(padded.data(), padded.size(), global_signers, expect,
                                         &dgot, &err),
            OpenStatus::wrong_length);
}

}  // namespace
