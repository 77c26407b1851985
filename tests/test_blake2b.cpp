// The core's built-in BLAKE2b, unkeyed and keyed, against RFC 7693's test
// vector and self-test, and against libsodium's crypto_generichash for every
// output length and many message and key lengths (block boundaries included).
#include <sodium.h>

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "p2b/blake2b.hpp"

namespace {

TEST(Blake2b, MatchesTheRfc7693Vector) {
  const uint8_t abc[3] = {'a', 'b', 'c'};
  const uint8_t expected[64] = {0xba, 0x80, 0xa5, 0x3f, 0x98, 0x1c, 0x4d, 0x0d, 0x6a, 0x27, 0x97,
                                0xb6, 0x9f, 0x12, 0xf6, 0xe9, 0x4c, 0x21, 0x2f, 0x14, 0x68, 0x5a,
                                0xc4, 0xb7, 0x4b, 0x12, 0xbb, 0x6f, 0xdb, 0xff, 0xa2, 0xd1, 0x7d,
                                0x87, 0xc5, 0x39, 0x2a, 0xab, 0x79, 0x2d, 0xc2, 0x52, 0xd5, 0xde,
                                0x45, 0x33, 0xcc, 0x95, 0x18, 0xd3, 0x8a, 0xa8, 0xdb, 0xf1, 0x92,
                                0x5a, 0xb9, 0x23, 0x86, 0xed, 0xd4, 0x00, 0x99, 0x23};
  uint8_t out[64];
  ASSERT_EQ(p2b::blake2b(out, sizeof out, abc, sizeof abc), 0);
  EXPECT_EQ(std::vector<uint8_t>(out, out + 64), std::vector<uint8_t>(expected, expected + 64));
}

TEST(Blake2b, MatchesLibsodiumForEveryOutputAndManyMessageLengths) {
  ASSERT_GE(sodium_init(), 0);
  std::vector<uint8_t> msg(1100);
  for (std::size_t i = 0; i < msg.size(); ++i) msg[i] = static_cast<uint8_t>(i * 131U + 7U);
  const std::size_t lengths[] = {0, 1, 3, 63, 64, 127, 128, 129, 255, 256, 257, 1000, 1100};
  for (std::size_t len : lengths) {
    for (std::size_t out_len = 1; out_len <= 64; ++out_len) {
      uint8_t ours[64] = {};
      uint8_t theirs[64] = {};
      ASSERT_EQ(p2b::blake2b(ours, out_len, msg.data(), len), 0);
      // libsodium refuses digests under 16 bytes, so those lengths are only
      // run, not compared (the test below shows the length is hashed in).
      if (out_len >= crypto_generichash_BYTES_MIN) {
        ASSERT_EQ(crypto_generichash(theirs, out_len, msg.data(), len, nullptr, 0), 0);
        ASSERT_EQ(std::vector<uint8_t>(ours, ours + out_len),
                  std::vector<uint8_t>(theirs, theirs + out_len))
            << "message " << len << " bytes, digest " << out_len << " bytes";
      }
    }
  }
}

TEST(Blake2b, TheDigestLengthIsPartOfTheHash) {
  const uint8_t m[1] = {0};
  uint8_t a[32];
  uint8_t b[64];
  ASSERT_EQ(p2b::blake2b(a, 32, m, 1), 0);
  ASSERT_EQ(p2b::blake2b(b, 64, m, 1), 0);
  EXPECT_NE(std::vector<uint8_t>(a, a + 32), std::vector<uint8_t>(b, b + 32));
}

// RFC 7693, appendix E: the Fibonacci-like byte sequence its self-test uses.
std::vector<uint8_t> rfc_sequence(std::size_t len, uint32_t seed) {
  std::vector<uint8_t> out(len);
  uint32_t a = 0xDEAD4BADU * seed;
  uint32_t b = 1;
  for (std::size_t i = 0; i < len; ++i) {
    const uint32_t t = a + b;
    a = b;
    b = t;
    out[i] = static_cast<uint8_t>(t >> 24U);
  }
  return out;
}

// The appendix's self-test: unkeyed and keyed digests of several lengths,
// hashed together into one BLAKE2b-256 that the RFC states.
TEST(Blake2b, PassesTheRfc7693SelfTestWithKeys) {
  const uint8_t expected[32] = {0xC2, 0x3A, 0x78, 0x00, 0xD9, 0x81, 0x23, 0xBD, 0x10, 0xF5, 0x06,
                                0xC6, 0x1E, 0x29, 0xDA, 0x56, 0x03, 0xD7, 0x63, 0xB8, 0xBB, 0xAD,
                                0x2E, 0x73, 0x7F, 0x5E, 0x76, 0x5A, 0x7B, 0xCC, 0xD4, 0x75};
  std::vector<uint8_t> digests;
  for (const std::size_t out_len : {20, 32, 48, 64}) {
    for (const std::size_t in_len : {0, 3, 128, 129, 255, 1024}) {
      const std::vector<uint8_t> in = rfc_sequence(in_len, static_cast<uint32_t>(in_len));
      const std::vector<uint8_t> key = rfc_sequence(out_len, static_cast<uint32_t>(out_len));
      uint8_t md[64];
      ASSERT_EQ(p2b::blake2b(md, out_len, in.data(), in.size()), 0);
      digests.insert(digests.end(), md, md + out_len);
      ASSERT_EQ(p2b::blake2b_keyed(md, out_len, key.data(), key.size(), in.data(), in.size()), 0);
      digests.insert(digests.end(), md, md + out_len);
    }
  }
  uint8_t grand[32];
  ASSERT_EQ(p2b::blake2b(grand, sizeof grand, digests.data(), digests.size()), 0);
  EXPECT_EQ(std::vector<uint8_t>(grand, grand + 32), std::vector<uint8_t>(expected, expected + 32));
}

TEST(Blake2b, KeyedMatchesLibsodiumForManyKeyAndMessageLengths) {
  ASSERT_GE(sodium_init(), 0);
  std::vector<uint8_t> msg(700);
  for (std::size_t i = 0; i < msg.size(); ++i) msg[i] = static_cast<uint8_t>(i * 29U + 3U);
  uint8_t key[64];
  for (std::size_t i = 0; i < sizeof key; ++i) key[i] = static_cast<uint8_t>(255U - i);
  for (const std::size_t key_len : {1, 16, 32, 63, 64}) {
    for (const std::size_t len : {0, 1, 127, 128, 129, 256, 700}) {
      for (const std::size_t out_len : {16, 32, 64}) {
        uint8_t ours[64] = {};
        uint8_t theirs[64] = {};
        ASSERT_EQ(p2b::blake2b_keyed(ours, out_len, key, key_len, msg.data(), len), 0);
        ASSERT_EQ(crypto_generichash(theirs, out_len, msg.data(), len, key, key_len), 0);
        ASSERT_EQ(std::vector<uint8_t>(ours, ours + out_len),
                  std::vector<uint8_t>(theirs, theirs + out_len))
            << "key " << key_len << " bytes, message " << len << " bytes, digest " << out_len;
      }
    }
  }
}

TEST(Blake2b, AnEmptyKeyIsTheUnkeyedHashAndAnyKeyChangesIt) {
  const uint8_t m[5] = {1, 2, 3, 4, 5};
  const uint8_t k1[32] = {1};
  const uint8_t k2[32] = {2};
  uint8_t plain[32];
  uint8_t empty_key[32];
  uint8_t a[32];
  uint8_t b[32];
  ASSERT_EQ(p2b::blake2b(plain, 32, m, sizeof m), 0);
  ASSERT_EQ(p2b::blake2b_keyed(empty_key, 32, nullptr, 0, m, sizeof m), 0);
  ASSERT_EQ(p2b::blake2b_keyed(a, 32, k1, sizeof k1, m, sizeof m), 0);
  ASSERT_EQ(p2b::blake2b_keyed(b, 32, k2, sizeof k2, m, sizeof m), 0);
  EXPECT_EQ(std::vector<uint8_t>(plain, plain + 32),
            std::vector<uint8_t>(empty_key, empty_key + 32));
  EXPECT_NE(std::vector<uint8_t>(plain, plain + 32), std::vector<uint8_t>(a, a + 32));
  EXPECT_NE(std::vector<uint8_t>(a, a + 32), std::vector<uint8_t>(b, b + 32));
}

TEST(Blake2b, RefusesBadLengthsAndNullPointers) {
  uint8_t out[65];
  const uint8_t m[1] = {1};
  EXPECT_EQ(p2b::blake2b(out, 0, m, 1), -1);
  EXPECT_EQ(p2b::blake2b(out, 65, m, 1), -1);
  EXPECT_EQ(p2b::blake2b(nullptr, 32, m, 1), -1);
  EXPECT_EQ(p2b::blake2b(out, 32, nullptr, 1), -1);
  EXPECT_EQ(p2b::blake2b(out, 32, nullptr, 0), 0);  // the empty message
  const uint8_t key[65] = {};
  EXPECT_EQ(p2b::blake2b_keyed(out, 32, key, 65, m, 1), -1);
  EXPECT_EQ(p2b::blake2b_keyed(out, 32, nullptr, 16, m, 1), -1);
  EXPECT_EQ(p2b::blake2b_keyed(out, 32, key, 64, nullptr, 1), -1);
  EXPECT_EQ(p2b::blake2b_keyed(out, 0, key, 64, m, 1), -1);
  EXPECT_EQ(p2b::blake2b_keyed(out, 32, key, 64, nullptr, 0), 0);
}

}  // namespace
