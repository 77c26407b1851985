// The P2BX posting (server/pfcb/wire): one length per m, a round trip
// through the relay's check and the agents' open, and a distinct refusal
// for each way a posting can be wrong, with the outputs left untouched.
// Frames that must fail a later check are built here by hand (nanopb and
// libsodium directly) and signed by a member, so each refusal test reaches
// the check it aims at instead of stopping at the signature.
#include <gtest/gtest.h>
#include <pb_encode.h>
#include <sodium.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "p2b/cmab.hpp"
#include "p2b_pfcb.pb.h"
#include "pfcb/wire/pfcb_wire.hpp"

namespace {

namespace pfcb = p2b::pfcb;
using pfcb::PostingStatus;

struct Signer {
  std::array<uint8_t, 32> pk{};
  std::array<uint8_t, 64> sk{};
  Signer() { crypto_sign_keypair(pk.data(), sk.data()); }
};

std::array<uint8_t, 32> fresh_key() {
  std::array<uint8_t, 32> k{};
  crypto_aead_xchacha20poly1305_ietf_keygen(k.data());
  return k;
}

// A Share body as the device core encodes it (proto/p2b_pfcb.proto).
std::vector<uint8_t> share_body(uint32_t m, uint32_t release, int32_t seed = 7) {
  p2b_pfcb_v1_Share s = p2b_pfcb_v1_Share_init_zero;
  s.format = 1;
  s.producers = m;
  s.release = release;
  s.round = 200 + release;
  s.release_epsilon = 0.25;
  s.w_noisy_count = static_cast<pb_size_t>(m);
  s.y_noisy_count = static_cast<pb_size_t>(m);
  for (uint32_t i = 0; i < m; ++i) {
    s.w_noisy[i] = seed * static_cast<int32_t>(i) - 40;
    s.y_noisy[i] = -seed * static_cast<int32_t>(i) + 3;
  }
  std::vector<uint8_t> out(pfcb::share_body_size(m) + 8);
  pb_ostream_t os = pb_ostream_from_buffer(out.data(), out.size());
  EXPECT_TRUE(pb_encode(&os, &p2b_pfcb_v1_Share_msg, &s));
  out.resize(os.bytes_written);
  return out;
}

class PfcbWire : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_GE(sodium_init(), 0);
    members_ = pfcb::Members({a_.pk, b_.pk, c_.pk});
    ASSERT_TRUE(pfcb::consortium_fingerprint(key_.data(), consortium_fp_));
  }

  std::vector<uint8_t> seal(const Signer& s, uint32_t release, uint32_t m = kM) {
    const std::vector<uint8_t> body = share_body(m, release);
    std::vector<uint8_t> out;
    std::string err;
    EXPECT_TRUE(pfcb::seal_posting_body(body.data(), body.size(), m, release, s.sk.data(),
                                        key_.data(), &out, &err))
        << err;
    return out;
  }

  // The posting struct of a valid frame, to alter and re-sign by hand.
  p2b_pfcb_v1_Posting posting_of(const Signer& s, uint32_t release) {
    const std::vector<uint8_t> body = share_body(kM, release);
    p2b_pfcb_v1_Posting pb = p2b_pfcb_v1_Posting_init_zero;
    pb.format = 1;
    std::memcpy(pb.consortium_fp, consortium_fp_, 16);
    pfcb::sender_fingerprint(s.pk.data(), pb.sender_fp);
    pb.release = release;
    randombytes_buf(pb.nonce, sizeof pb.nonce);
    uint8_t ad[44];
    const uint8_t magic[4] = {'P', '2', 'B', 'X'};
    std::memcpy(ad, magic, 4);
    for (int i = 0; i < 4; ++i) ad[4 + i] = static_cast<uint8_t>(pb.format >> (8 * i));
    std::memcpy(ad + 8, pb.consortium_fp, 16);
    std::memcpy(ad + 24, pb.sender_fp, 16);
    for (int i = 0; i < 4; ++i) ad[40 + i] = static_cast<uint8_t>(release >> (8 * i));
    unsigned long long n = 0;
    crypto_aead_xchacha20poly1305_ietf_encrypt(pb.sealed_share.bytes, &n, body.data(), body.size(),
                                               ad, sizeof ad, nullptr, pb.nonce, key_.data());
    pb.sealed_share.size = static_cast<pb_size_t>(n);
    return pb;
  }

  // "P2BX" | delimited posting | signature, signed by `s`, at any length.
  static std::vector<uint8_t> frame_of(const p2b_pfcb_v1_Posting& pb, const Signer& s) {
    std::vector<uint8_t> out = {'P', '2', 'B', 'X'};
    out.resize(4 + 1024);
    pb_ostream_t os = pb_ostream_from_buffer(out.data() + 4, out.size() - 4);
    EXPECT_TRUE(pb_encode_ex(&os, &p2b_pfcb_v1_Posting_msg, &pb, PB_ENCODE_DELIMITED));
    out.resize(4 + os.bytes_written + 64);
    crypto_sign_detached(out.data() + out.size() - 64, nullptr, out.data(), out.size() - 64,
                         s.sk.data());
    return out;
  }

  PostingStatus verify(const std::vector<uint8_t>& w, pfcb::PostingHeader* h = nullptr) {
    pfcb::PostingHeader ignored;
    return pfcb::verify_posting_signature(w.data(), w.size(), kM, consortium_fp_, members_,
                                          h != nullptr ? h : &ignored, nullptr);
  }

  // Opens and checks that a refusal left both outputs as they were.
  PostingStatus open(const std::vector<uint8_t>& w, const uint8_t* key = nullptr) {
    std::vector<uint8_t> body = {0xAB, 0xCD};
    pfcb::PostingHeader h;
    h.release = 0xDEAD;
    std::string err;
    const PostingStatus st = pfcb::open_posting_body(
        w.data(), w.size(), kM, key != nullptr ? key : key_.data(), members_, &body, &h, &err);
    if (st != PostingStatus::ok) {
      EXPECT_EQ(body, (std::vector<uint8_t>{0xAB, 0xCD}));
      EXPECT_EQ(h.release, 0xDEADU);
      EXPECT_EQ(err.rfind(pfcb::posting_status_name(st), 0), 0U) << err;
    }
    return st;
  }

  static constexpr uint32_t kM = 30;
  Signer a_, b_, c_, outsider_;
  std::array<uint8_t, 32> key_ = fresh_key();
  uint8_t consortium_fp_[16] = {};
  pfcb::Members members_;
};

TEST_F(PfcbWire, OneLengthPerProducerCount) {
  EXPECT_EQ(pfcb::posting_wire_size(0), 0U);
  EXPECT_EQ(pfcb::posting_wire_size(65), 0U);
  for (uint32_t m = 1; m <= 64; ++m) {
    const std::vector<uint8_t> body = share_body(m, 1);
    ASSERT_EQ(body.size(), pfcb::share_body_size(m)) << m;
    std::vector<uint8_t> first, second;
    std::string err;
    ASSERT_TRUE(pfcb::seal_posting_body(body.data(), body.size(), m, 1, a_.sk.data(), key_.data(),
                                        &first, &err))
        << err;
    // Another share (other values, release, signer) of the same m: same length.
    const std::vector<uint8_t> other = share_body(m, 4000000000U, -99);
    ASSERT_TRUE(pfcb::seal_posting_body(other.data(), other.size(), m, 4000000000U, b_.sk.data(),
                                        key_.data(), &second, &err))
        << err;
    EXPECT_EQ(first.size(), pfcb::posting_wire_size(m)) << m;
    EXPECT_EQ(second.size(), first.size()) << m;
  }
  // The figures docs/formats.md quotes.
  EXPECT_EQ(pfcb::share_body_size(30), 277U);
  EXPECT_EQ(pfcb::posting_wire_size(30), 438U);
  EXPECT_EQ(pfcb::posting_wire_size(64), 712U);
}

TEST_F(PfcbWire, RoundTripAndTheRelaysView) {
  const std::vector<uint8_t> w = seal(b_, 3);
  pfcb::PostingHeader h;
  ASSERT_EQ(verify(w, &h), PostingStatus::ok);
  EXPECT_EQ(h.release, 3U);
  EXPECT_EQ(h.sender_index, 1U);
  EXPECT_EQ(std::memcmp(h.sender_fp, members_.fingerprint(1), 16), 0);
  EXPECT_EQ(std::memcmp(h.consortium_fp, consortium_fp_, 16), 0);
  std::vector<uint8_t> body;
  pfcb::PostingHeader h2;
  std::string err;
  ASSERT_EQ(
      pfcb::open_posting_body(w.data(), w.size(), kM, key_.data(), members_, &body, &h2, &err),
      PostingStatus::ok)
      << err;
  EXPECT_EQ(body, share_body(kM, 3));
  EXPECT_EQ(h2.sender_index, 1U);
  // Sealing is randomized: the same share twice gives other bytes.
  EXPECT_NE(seal(b_, 3), w);
}

TEST_F(PfcbWire, EveryFlippedByteIsRefused) {
  const std::vector<uint8_t> w = seal(a_, 2);
  for (std::size_t i = 0; i < w.size(); ++i) {
    for (uint8_t bit : {0x01, 0x80}) {
      std::vector<uint8_t> t = w;
      t[i] ^= bit;
      EXPECT_NE(verify(t), PostingStatus::ok) << "byte " << i;
      EXPECT_NE(open(t), PostingStatus::ok) << "byte " << i;
    }
  }
  std::vector<uint8_t> t = w;
  t[0] ^= 1;
  EXPECT_EQ(open(t), PostingStatus::bad_magic);
  t = w;
  t.back() ^= 1;
  EXPECT_EQ(open(t), PostingStatus::bad_signature);
}

TEST_F(PfcbWire, LengthIsCheckedFirst) {
  const std::vector<uint8_t> w = seal(a_, 1);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, w.size() - 1, w.size() + 1, w.size() * 2}) {
    std::vector<uint8_t> t = w;
    t.resize(n, 0);
    EXPECT_EQ(verify(t), PostingStatus::wrong_length) << n;
    EXPECT_EQ(open(t), PostingStatus::wrong_length) << n;
  }
  // A valid posting of another m is the wrong length for this deployment.
  EXPECT_EQ(open(seal(a_, 1, kM + 1)), PostingStatus::wrong_length);
  std::vector<uint8_t> garbage(w.size(), 0x5A);
  EXPECT_EQ(open(garbage), PostingStatus::bad_magic);
  const uint8_t magic[4] = {'P', '2', 'B', 'X'};
  std::memcpy(garbage.data(), magic, 4);
  EXPECT_EQ(open(garbage), PostingStatus::decode_error);
}

TEST_F(PfcbWire, ConsortiumSenderAndSignature) {
  // Sealed under another consortium key: its fingerprint names another consortium.
  const std::array<uint8_t, 32> other = fresh_key();
  const std::vector<uint8_t> body = share_body(kM, 1);
  std::vector<uint8_t> w;
  std::string err;
  ASSERT_TRUE(pfcb::seal_posting_body(body.data(), body.size(), kM, 1, a_.sk.data(), other.data(),
                                      &w, &err));
  EXPECT_EQ(verify(w), PostingStatus::consortium_mismatch);
  EXPECT_EQ(open(w), PostingStatus::consortium_mismatch);
  // An agent holding another key refuses a good posting the same way.
  EXPECT_EQ(open(seal(a_, 1), other.data()), PostingStatus::consortium_mismatch);
  // Signed by a key that is no member.
  EXPECT_EQ(open(seal(outsider_, 1)), PostingStatus::unknown_sender);
  // A member's fingerprint, an outsider's signature.
  p2b_pfcb_v1_Posting pb = posting_of(a_, 1);
  EXPECT_EQ(open(frame_of(pb, outsider_)), PostingStatus::bad_signature);
  EXPECT_EQ(open(frame_of(pb, a_)), PostingStatus::ok);
}

TEST_F(PfcbWire, SignedButWrongInside) {
  p2b_pfcb_v1_Posting pb = posting_of(c_, 5);
  pb.format = 2;
  EXPECT_EQ(verify(frame_of(pb, c_)), PostingStatus::wrong_format);
  EXPECT_EQ(open(frame_of(pb, c_)), PostingStatus::wrong_format);
  // The clear release is bound by the AD: a member cannot relabel a share
  // (nor can anyone else, who would also fail the signature).
  pb = posting_of(c_, 5);
  pb.release = 6;
  EXPECT_EQ(verify(frame_of(pb, c_)), PostingStatus::ok);  // the relay cannot tell
  EXPECT_EQ(open(frame_of(pb, c_)), PostingStatus::aead_failed);
  pb = posting_of(c_, 5);
  pb.release = 0;
  EXPECT_EQ(verify(frame_of(pb, c_)), PostingStatus::bad_release);
  // A changed ciphertext byte, re-signed by the member.
  pb = posting_of(c_, 5);
  pb.sealed_share.bytes[10] ^= 4;
  EXPECT_EQ(open(frame_of(pb, c_)), PostingStatus::aead_failed);
  // A sealed share one byte short, padded back to the length elsewhere: not
  // this m's layout.
  pb = posting_of(c_, 5);
  pb.sealed_share.size -= 1;
  std::vector<uint8_t> f = frame_of(pb, c_);
  EXPECT_EQ(open(f), PostingStatus::wrong_length);
}

TEST_F(PfcbWire, SealRefusesWhatNoOpenerWouldTake) {
  const std::vector<uint8_t> body = share_body(kM, 1);
  std::vector<uint8_t> out = {1, 2, 3};
  std::string err;
  EXPECT_FALSE(pfcb::seal_posting_body(body.data(), body.size() - 1, kM, 1, a_.sk.data(),
                                       key_.data(), &out, &err));
  EXPECT_FALSE(pfcb::seal_posting_body(body.data(), body.size(), kM, 0, a_.sk.data(), key_.data(),
                                       &out, &err));
  EXPECT_FALSE(pfcb::seal_posting_body(body.data(), body.size(), 0, 1, a_.sk.data(), key_.data(),
                                       &out, &err));
  EXPECT_FALSE(
      pfcb::seal_posting_body(body.data(), body.size(), kM, 1, nullptr, key_.data(), &out, &err));
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 2, 3}));
}

TEST_F(PfcbWire, FingerprintsAreDistinctAndStable) {
  uint8_t again[16];
  ASSERT_TRUE(pfcb::consortium_fingerprint(key_.data(), again));
  EXPECT_EQ(std::memcmp(again, consortium_fp_, 16), 0);
  uint8_t plain_hash[16];
  crypto_generichash(plain_hash, 16, key_.data(), 32, nullptr, 0);
  EXPECT_NE(std::memcmp(plain_hash, consortium_fp_, 16), 0);  // not a bare hash of the key
  EXPECT_EQ(members_.size(), 3U);
  EXPECT_NE(std::memcmp(members_.fingerprint(0), members_.fingerprint(1), 16), 0);
}

// The share level: the device core's codec inside the posting.
TEST_F(PfcbWire, SharesThroughTheCoresCodec) {
  for (uint32_t m = 1; m <= 64; ++m) {
    EXPECT_EQ(pfcb::share_body_size(m), p2b::cmab_share_encoded_size(m)) << m;
  }
  p2b::CmabShare share;
  share.producers = kM;
  share.release = 7;
  share.round = 4096;
  share.release_epsilon = 0.0625;
  for (uint32_t i = 0; i < kM; ++i) {
    share.w_noisy[i] = static_cast<int32_t>(i * 3) - 11;
    share.y_noisy[i] = -static_cast<int32_t>(i);
  }
  std::vector<uint8_t> w;
  std::string err;
  ASSERT_TRUE(pfcb::seal_posting(share, c_.sk.data(), key_.data(), &w, &err)) << err;
  ASSERT_EQ(w.size(), pfcb::posting_wire_size(kM));
  p2b::CmabShare got;
  uint32_t sender = 99;
  ASSERT_EQ(pfcb::open_posting(w.data(), w.size(), members_, key_.data(), kM, &got, &sender, &err),
            PostingStatus::ok)
      << err;
  EXPECT_EQ(sender, 2U);
  EXPECT_EQ(got.release, 7U);
  EXPECT_EQ(got.round, 4096U);
  EXPECT_EQ(got.release_epsilon, 0.0625);
  EXPECT_EQ(std::memcmp(got.w_noisy, share.w_noisy, sizeof share.w_noisy), 0);
  EXPECT_EQ(std::memcmp(got.y_noisy, share.y_noisy, sizeof share.y_noisy), 0);
  // A share the codec refuses is not sealed.
  p2b::CmabShare bad = share;
  bad.producers = 0;
  std::vector<uint8_t> untouched = {9};
  EXPECT_FALSE(pfcb::seal_posting(bad, c_.sk.data(), key_.data(), &untouched, &err));
  EXPECT_EQ(untouched, (std::vector<uint8_t>{9}));

  auto expect_refused = [&](const std::vector<uint8_t>& posting, PostingStatus want) {
    p2b::CmabShare out;
    out.round = 12345;
    uint32_t who = 77;
    std::string why;
    EXPECT_EQ(pfcb::open_posting(posting.data(), posting.size(), members_, key_.data(), kM, &out,
                                 &who, &why),
              want);
    EXPECT_EQ(out.round, 12345U);
    EXPECT_EQ(who, 77U);
    EXPECT_EQ(why.rfind(pfcb::posting_status_name(want), 0), 0U) << why;
  };
  // A body the codec refuses (another Share format), sealed by a member.
  std::vector<uint8_t> body = share_body(kM, 3);
  body[1] = 2;  // format is the first field: key 0x0D, then u32le 1
  std::vector<uint8_t> sealed;
  ASSERT_TRUE(pfcb::seal_posting_body(body.data(), body.size(), kM, 3, a_.sk.data(), key_.data(),
                                      &sealed, &err));
  expect_refused(sealed, PostingStatus::bad_share);
  // A good body under another clear release (re-signed by the member).
  body = share_body(kM, 3);
  ASSERT_TRUE(pfcb::seal_posting_body(body.data(), body.size(), kM, 4, a_.sk.data(), key_.data(),
                                      &sealed, &err));
  expect_refused(sealed, PostingStatus::share_mismatch);
  // And every check before it, as open_posting_body makes them.
  std::vector<uint8_t> t = w;
  t[200] ^= 1;
  expect_refused(t, PostingStatus::bad_signature);
  t.pop_back();
  expect_refused(t, PostingStatus::wrong_length);
}

}  // namespace
