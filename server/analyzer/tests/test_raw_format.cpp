// The raw-baseline body: round trip, normalisation as on the device, and
// exact framing.
#include <gtest/gtest.h>

#include "raw_format.hpp"

namespace {

namespace an = p2b::analyzer;

TEST(AnalyzerRawFormat, RoundTripNormalises) {
  const std::vector<uint8_t> body =
      an::encode_raw(3, {1, 1, 2, 0, 0, 0, 0, 5, 0}, {0, 1, 2}, {1.0F, 0.0F, 0.5F});
  EXPECT_EQ(body.size(), an::kRawHeaderBytes + size_t{3} * (3 * 4 + 8));
  an::RawBatch raw;
  std::string err;
  ASSERT_TRUE(an::decode_raw(body.data(), body.size(), 3, 3, &raw, &err)) << err;
  ASSERT_EQ(raw.size(), 3u);
  EXPECT_EQ(raw.contexts,
            (std::vector<double>{0.25, 0.25, 0.5, 1.0 / 3, 1.0 / 3, 1.0 / 3, 0, 1, 0}));
  EXPECT_EQ(raw.actions, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(raw.rewards, (std::vector<double>{1.0, 0.0, 0.5}));
}

TEST(AnalyzerRawFormat, EmptyRequestIsWellFormed) {
  const std::vector<uint8_t> body = an::encode_raw(3, {}, {}, {});
  an::RawBatch raw;
  std::string err;
  EXPECT_TRUE(an::decode_raw(body.data(), body.size(), 3, 3, &raw, &err));
  EXPECT_EQ(raw.size(), 0u);
}

TEST(AnalyzerRawFormat, FramingIsExact) {
  std::vector<uint8_t> body = an::encode_raw(2, {1, 0}, {0}, {1.0F});
  an::RawBatch raw;
  std::string err;
  std::vector<uint8_t> longer = body;
  longer.push_back(0);
  EXPECT_FALSE(an::decode_raw(longer.data(), longer.size(), 2, 1, &raw, &err));
  EXPECT_FALSE(an::decode_raw(body.data(), body.size() - 1, 2, 1, &raw, &err));
  EXPECT_FALSE(an::decode_raw(body.data(), 11, 2, 1, &raw, &err));
  body[0] = 'X';
  EXPECT_FALSE(an::decode_raw(body.data(), body.size(), 2, 1, &raw, &err));
  // A count beyond the limit is refused before any length arithmetic.
  std::vector<uint8_t> huge = an::encode_raw(2, {}, {}, {});
  huge[8] = huge[9] = huge[10] = huge[11] = 0xFF;
  EXPECT_FALSE(an::decode_raw(huge.data(), huge.size(), 2, 1, &raw, &err));
  EXPECT_EQ(err, "too many records");
}

}  // namespace
