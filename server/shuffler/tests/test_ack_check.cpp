// The shuffler's test of an analyzer's answer: only a signed ack of exactly
// the batch sent, whose counts cover its records, is a match; each other
// kind of answer is refused with its own reason.
#include "shuffler/ack_check.hpp"

#include <gtest/gtest.h>

#include <string>

#include "shuffler_test_support.hpp"
#include "wire/batch_ack.hpp"

namespace {

using p2b::server::BatchAck;
using p2b::shuffler::AckVerdict;
using p2b::shuffler::check_ack;

struct Sent {
  p2b::server::Batch batch;
  p2b::server::BatchDigest digest{};
};

Sent sent_batch() {
  Sent s;
  randombytes_buf(s.batch.id.data(), s.batch.id.size());
  for (uint32_t i = 0; i < 6; ++i) s.batch.records.push_back({1, {}});
  randombytes_buf(s.digest.data(), s.digest.size());
  return s;
}

BatchAck good_ack(const Sent& s) {
  BatchAck a;
  a.id = s.batch.id;
  a.digest = s.digest;
  a.model_version = 4;
  a.records = 6;
  a.applied = 3;
  a.quarantined = 2;
  a.refused[1] = 1;  // replayed
  return a;
}

std::string answer_with(const BatchAck& a, const uint8_t* sign_sk) {
  const std::vector<uint8_t> bytes = p2b::server::encode_signed_ack(a, sign_sk);
  return "{\"applied\":3,\"ack\":\"" + p2b::server::hex_of(bytes.data(), bytes.size()) + "\"}";
}

AckVerdict check(const Sent& s, const std::string& answer) {
  return check_ack(answer, s.batch, s.digest, shuffler_test::sign_keys().analyzer_pk);
}

AckVerdict check(const Sent& s, const BatchAck& a) {
  return check(s, answer_with(a, shuffler_test::sign_keys().analyzer_sk));
}

void expect_refused(const AckVerdict& v, const std::string& reason) {
  EXPECT_FALSE(v.matches);
  EXPECT_NE(v.error.find(reason), std::string::npos) << v.error;
}

TEST(ShufflerAckCheck, AMatchingAckCarriesItsCounts) {
  const Sent s = sent_batch();
  const AckVerdict v = check(s, good_ack(s));
  ASSERT_TRUE(v.matches) << v.error;
  EXPECT_EQ(v.ack.applied, 3U);
  EXPECT_EQ(v.ack.quarantined, 2U);
  EXPECT_EQ(v.ack.refused[1], 1U);
  EXPECT_EQ(v.ack.model_version, 4U);
}

TEST(ShufflerAckCheck, AnswersThatAreNoAckAreRefused) {
  const Sent s = sent_batch();
  for (const char* junk : {"", "ok", "{}", "[1]", "{\"ack\":7}", "{\"applied\":6}"}) {
    expect_refused(check(s, std::string(junk)), "carries no ack");
  }
  expect_refused(check(s, std::string("{\"ack\":\"zz\"}")), "not hex");
  expect_refused(check(s, std::string("{\"ack\":\"00ff\"}")), "malformed");
}

TEST(ShufflerAckCheck, AFormerFormatAckIsRefused) {
  const Sent s = sent_batch();
  std::vector<uint8_t> bytes =
      p2b::server::encode_signed_ack(good_ack(s), shuffler_test::sign_keys().analyzer_sk);
  bytes[4] = 1;  // format 1
  expect_refused(check(s, "{\"ack\":\"" + p2b::server::hex_of(bytes.data(), bytes.size()) + "\"}"),
                 "malformed");
}

TEST(ShufflerAckCheck, AnAckSignedByAnotherKeyIsRefused) {
  const Sent s = sent_batch();
  uint8_t pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
  crypto_sign_keypair(pk, sk);
  expect_refused(check(s, answer_with(good_ack(s), sk)), "not signed by the pinned");
}

TEST(ShufflerAckCheck, AnAckOfAnotherBatchIdIsRefused) {
  const Sent s = sent_batch();
  BatchAck a = good_ack(s);
  a.id[0] ^= 1;
  expect_refused(check(s, a), "another batch id");
}

TEST(ShufflerAckCheck, AnAckOfOtherContentsIsRefused) {
  const Sent s = sent_batch();
  BatchAck a = good_ack(s);
  a.digest[31] ^= 1;
  expect_refused(check(s, a), "other contents");
}

TEST(ShufflerAckCheck, AnAckOfAnotherRecordCountIsRefused) {
  const Sent s = sent_batch();
  BatchAck a = good_ack(s);
  a.records = 7;
  a.applied = 4;  // balanced, but not this batch
  expect_refused(check(s, a), "counts 7 records, the batch has 6");
}

TEST(ShufflerAckCheck, AnAckWhoseCountsDoNotAddUpIsRefused) {
  const Sent s = sent_batch();
  BatchAck fewer = good_ack(s);
  fewer.quarantined = 1;  // one record unaccounted for
  expect_refused(check(s, fewer), "are not its 6 records");
  BatchAck more = good_ack(s);
  more.refused[8] = 1;
  expect_refused(check(s, more), "are not its 6 records");
  BatchAck wrapped = good_ack(s);  // sums that would wrap in 32 bits
  wrapped.applied = 0xffffffffU;
  wrapped.quarantined = 7;
  wrapped.refused = {};
  expect_refused(check(s, wrapped), "are not its 6 records");
}

}  // namespace
