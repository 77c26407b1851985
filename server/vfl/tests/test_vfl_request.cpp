// The pieces of the vertical-federation services that take input from
// outside, in-process: the P2BR request (every refusal, every bit flip),
// the party feature file and the state file (docs/vertical-services.md).
#include <gtest/gtest.h>
#include <sodium.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "vfl/features_file.hpp"
#include "vfl/masked_request.hpp"
#include "vfl/round_reserve.hpp"
#include "vfl/state_file.hpp"

namespace {

namespace fs = std::filesystem;
namespace vfl = p2b::vfl;

struct Pair {
  uint8_t pk[32] = {};
  uint8_t sk[32] = {};
  Pair() { crypto_box_keypair(pk, sk); }
};

vfl::MaskedRequest sample(uint64_t round) {
  vfl::MaskedRequest r;
  r.party_index = 2;
  r.round_id = round;
  for (std::size_t i = 0; i < vfl::kUserTokenBytes; ++i) r.user_token[i] = static_cast<uint8_t>(i);
  r.item_ids = {7, 0, 4294967295U, 12};
  return r;
}

class VflRequest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_GE(sodium_init(), 0); }
  Pair ap_, party_, other_;
};

TEST_F(VflRequest, RoundTripsAtSeventyTwoPlusFourKBytes) {
  std::vector<uint8_t> msg;
  std::string err;
  ASSERT_TRUE(vfl::seal_masked_request(sample(9), ap_.sk, party_.pk, &msg, &err));
  EXPECT_EQ(msg.size(), vfl::masked_request_bytes(4));
  EXPECT_EQ(vfl::masked_request_bytes(4), 72U + 16U);
  vfl::MaskedRequest got;
  ASSERT_EQ(vfl::open_masked_request(msg.data(), msg.size(), party_.sk, ap_.pk, 2, 8, &got),
            vfl::RequestStatus::ok);
  EXPECT_EQ(got.round_id, 9U);
  EXPECT_EQ(got.item_ids, sample(9).item_ids);
  EXPECT_EQ(0, std::memcmp(got.user_token, sample(9).user_token, vfl::kUserTokenBytes));
}

TEST_F(VflRequest, EachRefusalHasItsStatus) {
  std::vector<uint8_t> msg;
  std::string err;
  ASSERT_TRUE(vfl::seal_masked_request(sample(9), ap_.sk, party_.pk, &msg, &err));
  vfl::MaskedRequest got;
  auto open = [&](const std::vector<uint8_t>& m, const uint8_t* ap_pk, uint32_t party,
                  uint64_t last) {
    return vfl::open_masked_request(m.data(), m.size(), party_.sk, ap_pk, party, last, &got);
  };
  EXPECT_EQ(open(msg, ap_.pk, 2, 9), vfl::RequestStatus::replayed);
  EXPECT_EQ(open(msg, ap_.pk, 2, 10), vfl::RequestStatus::replayed);
  EXPECT_EQ(open(msg, ap_.pk, 1, 0), vfl::RequestStatus::wrong_party);
  EXPECT_EQ(open(msg, other_.pk, 2, 0), vfl::RequestStatus::not_openable);
  // Boxed by anyone but the pinned active party: does not open.
  std::vector<uint8_t> forged;
  ASSERT_TRUE(vfl::seal_masked_request(sample(9), other_.sk, party_.pk, &forged, &err));
  EXPECT_EQ(open(forged, ap_.pk, 2, 0), vfl::RequestStatus::not_openable);
  // One item id fewer is a length some request could have: the box then
  // fails, as its tag covers every byte.
  std::vector<uint8_t> cut(msg.begin(), msg.end() - 4);
  EXPECT_EQ(open(cut, ap_.pk, 2, 0), vfl::RequestStatus::not_openable);
  std::vector<uint8_t> odd(msg.begin(), msg.end() - 1);
  EXPECT_EQ(open(odd, ap_.pk, 2, 0), vfl::RequestStatus::bad_length);
  EXPECT_EQ(open(std::vector<uint8_t>(10, 0), ap_.pk, 2, 0), vfl::RequestStatus::bad_length);
  std::vector<uint8_t> magic = msg;
  magic[3] = 'X';
  EXPECT_EQ(open(magic, ap_.pk, 2, 0), vfl::RequestStatus::malformed);
  // A clear round other than the boxed one makes another nonce: no opening.
  std::vector<uint8_t> moved = msg;
  moved[8] ^= 0x01;
  EXPECT_EQ(open(moved, ap_.pk, 2, 0), vfl::RequestStatus::not_openable);
  vfl::MaskedRequest none = sample(9);
  none.item_ids.clear();
  EXPECT_FALSE(vfl::seal_masked_request(none, ap_.sk, party_.pk, &msg, &err));
  vfl::MaskedRequest zero = sample(0);
  EXPECT_FALSE(vfl::seal_masked_request(zero, ap_.sk, party_.pk, &msg, &err));
}

TEST_F(VflRequest, EveryBitFlipIsRefused) {
  std::vector<uint8_t> msg;
  std::string err;
  ASSERT_TRUE(vfl::seal_masked_request(sample(9), ap_.sk, party_.pk, &msg, &err));
  vfl::MaskedRequest got;
  for (std::size_t bit = 0; bit < 8 * msg.size(); ++bit) {
    std::vector<uint8_t> m = msg;
    m[bit / 8] ^= static_cast<uint8_t>(1U << (bit % 8));
    EXPECT_NE(vfl::open_masked_request(m.data(), m.size(), party_.sk, ap_.pk, 2, 0, &got),
              vfl::RequestStatus::ok)
        << "bit " << bit;
  }
}

fs::path temp_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("p2b-vfl-request-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

const std::string kU1 = "000102030405060708090a0b0c0d0e0f";
const std::string kU2 = "ffeeddccbbaa99887766554433221100";

TEST(VflFeatures, ItemRowsUserRowsAndLookups) {
  const fs::path d = temp_dir("features");
  write(d / "items.csv",
        "# comment\n\n" + kU1 + ",3,0.5,-1e-3\n" + kU1 + ",4,1,2\n" + kU2 + ",3,0.25,0.125\n");
  vfl::FeatureTable t;
  std::string err;
  ASSERT_TRUE(t.load((d / "items.csv").string(), 2, 100, &err)) << err;
  EXPECT_FALSE(t.user_only());
  vfl::UserToken u1{}, u3{};
  ASSERT_TRUE(vfl::parse_user_token(kU1, &u1));
  ASSERT_TRUE(vfl::parse_user_token("11111111111111111111111111111111", &u3));
  std::vector<double> x;
  const uint32_t items[] = {4, 3};
  ASSERT_EQ(t.lookup(u1, items, 2, &x), vfl::LookupStatus::ok);
  EXPECT_EQ(x, (std::vector<double>{1, 2, 0.5, -1e-3}));
  const uint32_t missing[] = {3, 5};
  EXPECT_EQ(t.lookup(u1, missing, 2, &x), vfl::LookupStatus::unknown_item);
  EXPECT_EQ(t.lookup(u3, items, 2, &x), vfl::LookupStatus::unknown_user);
  write(d / "users.csv", kU1 + ",*,1,2,3\n");
  ASSERT_TRUE(t.load((d / "users.csv").string(), 3, 100, &err)) << err;
  EXPECT_TRUE(t.user_only());
  ASSERT_EQ(t.lookup(u1, items, 2, &x), vfl::LookupStatus::ok);
  EXPECT_EQ(x, (std::vector<double>{1, 2, 3}));  // one row, K' = 1
}

TEST(VflFeatures, MalformedFilesAreRefusedWithTheLine) {
  const fs::path d = temp_dir("bad-features");
  // name, file, what the error must name (the file and line).
  const std::vector<std::vector<std::string>> bad = {
      {"width", kU1 + ",3,0.5\n", "f.csv:1:"},
      {"token", "0001,3,0.5,1\n", "f.csv:1:"},
      {"item", kU1 + ",x,0.5,1\n", "f.csv:1:"},
      {"negative item", kU1 + ",-3,0.5,1\n", "f.csv:1:"},
      {"nan", kU1 + ",3,nan,1\n", "f.csv:1:"},
      {"inf", kU1 + ",3,inf,1\n", "f.csv:1:"},
      {"huge", kU1 + ",3,1e7,1\n", "f.csv:1:"},
      {"junk", "# header\n" + kU1 + ",3,0.5x,1\n", "f.csv:2:"},
      {"duplicate", kU1 + ",3,0.5,1\n" + kU1 + ",3,0.5,1\n", "f.csv:2:"},
      {"mixed", kU1 + ",3,0.5,1\n" + kU2 + ",*,0.5,1\n", "f.csv:2:"},
      {"empty", "# nothing\n", "no rows"},
  };
  for (const auto& c : bad) {
    write(d / "f.csv", c[1]);
    vfl::FeatureTable t;
    std::string err;
    EXPECT_FALSE(t.load((d / "f.csv").string(), 2, 100, &err)) << c[0];
    EXPECT_NE(err.find(c[2]), std::string::npos) << c[0] << ": " << err;
  }
  write(d / "many.csv", kU1 + ",1,0,0\n" + kU1 + ",2,0,0\n" + kU1 + ",3,0,0\n");
  vfl::FeatureTable t;
  std::string err;
  EXPECT_FALSE(t.load((d / "many.csv").string(), 2, 2, &err));  // over max_rows
  EXPECT_FALSE(t.load((d / "absent.csv").string(), 2, 2, &err));
}

TEST(VflState, RoundTripsAndRefusesAnythingElse) {
  const fs::path d = temp_dir("state");
  const std::string path = (d / "s.state").string();
  vfl::ServiceState s;
  bool existed = true;
  std::string err;
  ASSERT_TRUE(vfl::read_state(path, &s, &existed, &err));
  EXPECT_FALSE(existed);
  EXPECT_EQ(s.round_id, 0U);
  ASSERT_TRUE(vfl::write_state(path, {18446744073709551615ULL, 3}, &err)) << err;
  ASSERT_TRUE(vfl::read_state(path, &s, &existed, &err));
  EXPECT_TRUE(existed);
  EXPECT_EQ(s.round_id, 18446744073709551615ULL);
  EXPECT_EQ(s.mask_epoch, 3U);
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::others_read, fs::perms::none);
  for (const std::string& text :
       {std::string("p2b-vfl-state 2\nround_id 1\nmask_epoch 1\n"),
        std::string("p2b-vfl-state 1\nround_id -1\nmask_epoch 1\n"),
        std::string("p2b-vfl-state 1\nround_id 1\n"),
        std::string("p2b-vfl-state 1\nround_id 1\nmask_epoch 1\nextra\n")}) {
    write(path, text);
    EXPECT_FALSE(vfl::read_state(path, &s, &existed, &err)) << text;
  }
}

// The block arithmetic of vfl/round_reserve.hpp: a ceiling covers its
// block and saturates at the top of u64; the active party believes a
// restarted party's resume round only when a genuine party could have
// reserved it (above its last round, at most a block past its own ceiling).
TEST(VflRoundReserve, CeilingsCoverABlockAndResumeRoundsAreBounded) {
  EXPECT_EQ(vfl::reserve_ceiling(1), vfl::kRoundReserve);
  EXPECT_EQ(vfl::reserve_ceiling(5000), 5000 + vfl::kRoundReserve - 1);
  EXPECT_EQ(vfl::reserve_ceiling(UINT64_MAX - 3), UINT64_MAX);
  // The active party at last round 10 under ceiling 1024: a party that
  // saw round 1024 reserved up to 2047 and resumes at 2048.
  EXPECT_TRUE(vfl::plausible_floor(2048, 10, 1024));
  EXPECT_TRUE(vfl::plausible_floor(12, 10, 1024));     // a short skip costs nothing
  EXPECT_FALSE(vfl::plausible_floor(2049, 10, 1024));  // past any genuine reservation
  EXPECT_FALSE(vfl::plausible_floor(11, 10, 1024));    // the next round anyway: no skip
  EXPECT_FALSE(vfl::plausible_floor(5, 10, 1024));     // backwards
  EXPECT_FALSE(vfl::plausible_floor(UINT64_MAX, 10, 1024));
}

}  // namespace
