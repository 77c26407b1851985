// The codebook file: what is written parses back bit for bit, its fingerprint
// is the one agents report, and damaged files are refused.
#include <gtest/gtest.h>

#include "p2b/codebook_format.hpp"
#include "test_support.hpp"

namespace {

const p2b::CryptoPort kPort = p2b_test::sodium_port();

std::vector<uint8_t> encode(const std::vector<float>& c, uint32_t k, uint32_t d, uint32_t q) {
  size_t n = 0;
  EXPECT_EQ(p2b::encoded_codebook_size(c.data(), k, d, q, &n), p2b::Status::ok);
  std::vector<uint8_t> file(n);
  size_t written = 0;
  EXPECT_EQ(p2b::encode_codebook(kPort, c.data(), k, d, q, file.data(), file.size(), &written),
            p2b::Status::ok);
  EXPECT_EQ(written, n);
  return file;
}

TEST(CodebookFile, RoundTripsExactlyAndMatchesTheAgentsFingerprint) {
  const uint32_t k = 64, d = 10;
  const std::vector<float> c = p2b_test::random_codebook(k, d, 3);
  const std::vector<uint8_t> file = encode(c, k, d, 1);
  std::vector<float> back(k * d);
  p2b_codebook_info info;
  ASSERT_EQ(p2b_codebook_parse(file.data(), file.size(), back.data(), back.size(), &info), P2B_OK);
  EXPECT_EQ(back, c);
  EXPECT_EQ(info.k, k);
  EXPECT_EQ(info.dim, d);
  EXPECT_EQ(info.digits, 1U);

  p2b_config cfg = p2b_test::base_config(d, 4, k, 1);
  cfg.centroids = back.data();
  auto t = p2b_test::make_agent(cfg);
  p2b_fingerprints fp;
  ASSERT_EQ(p2b_agent_fingerprints(t.agent, &fp), P2B_OK);
  EXPECT_EQ(0, std::memcmp(fp.codebook, info.fingerprint, sizeof fp.codebook));
  std::printf("[ figure ] codebook file k=%u d=%u: %zu bytes\n", k, d, file.size());
}

TEST(CodebookFile, FingerprintBindsEveryCentroidBitAndTheShape) {
  const uint32_t k = 8, d = 4;
  std::vector<float> c = p2b_test::random_codebook(k, d, 4);
  uint8_t base[16], other[16];
  ASSERT_EQ(p2b::codebook_fingerprint(kPort, c.data(), k, d, 1, base), p2b::Status::ok);
  ASSERT_EQ(p2b::codebook_fingerprint(kPort, c.data(), k, d, 2, other), p2b::Status::ok);
  EXPECT_NE(0, std::memcmp(base, other, 16)) << "q must be bound";
  uint32_t bits = 0;
  std::memcpy(&bits, &c[17], 4);
  bits ^= 1;
  std::memcpy(&c[17], &bits, 4);
  ASSERT_EQ(p2b::codebook_fingerprint(kPort, c.data(), k, d, 1, other), p2b::Status::ok);
  EXPECT_NE(0, std::memcmp(base, other, 16)) << "one centroid bit must change it";
}

TEST(CodebookFile, EveryTruncationAndByteFlipIsRefused) {
  const uint32_t k = 6, d = 3;
  const std::vector<float> c = p2b_test::random_codebook(k, d, 5);
  const std::vector<uint8_t> file = encode(c, k, d, 1);
  std::vector<float> out(k * d);
  p2b::CodebookInfo info{};
  for (size_t n = 0; n < file.size(); ++n) {
    ASSERT_NE(p2b::parse_codebook(kPort, file.data(), n, out.data(), out.size(), &info),
              p2b::Status::ok)
        << "truncated to " << n;
  }
  for (size_t i = 0; i < file.size(); ++i) {
    std::vector<uint8_t> bad = file;
    bad[i] ^= 0x01;
    ASSERT_NE(p2b::parse_codebook(kPort, bad.data(), bad.size(), out.data(), out.size(), &info),
              p2b::Status::ok)
        << "flipped byte " << i;
  }
  std::vector<uint8_t> longer = file;
  longer.push_back(0);
  EXPECT_EQ(p2b::parse_codebook(kPort, longer.data(), longer.size(), out.data(), out.size(), &info),
            p2b::Status::malformed_input);
}

TEST(CodebookFile, SmallBufferAndNonFiniteCentroidsAreRefused) {
  const uint32_t k = 4, d = 3;
  std::vector<float> c = p2b_test::random_codebook(k, d, 6);
  const std::vector<uint8_t> file = encode(c, k, d, 1);
  std::vector<float> out(k * d - 1);
  p2b::CodebookInfo info{};
  EXPECT_EQ(p2b::parse_codebook(kPort, file.data(), file.size(), out.data(), out.size(), &info),
            p2b::Status::buffer_too_small);
  c[5] = NAN;
  size_t written = 0;
  std::vector<uint8_t> buf(file.size() + 16);
  EXPECT_EQ(p2b::encode_codebook(kPort, c.data(), k, d, 1, buf.data(), buf.size(), &written),
            p2b::Status::bad_codebook);
}

}  // namespace
