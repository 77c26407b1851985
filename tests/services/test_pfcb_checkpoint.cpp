// The P-FCB peer's checkpoint file (server/pfcb/peer_checkpoint.hpp): it
// round-trips; a wrong key, every flipped byte and every truncation are
// refused; the body decoder refuses lengths that lie, empty parts and
// trailing bytes even when they are authentic; the file replaces the old one
// whole with mode 0600; and a missing file is a first start, not an error.
#include <gtest/gtest.h>
#include <sodium.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "pfcb/peer_checkpoint.hpp"

namespace {

namespace fs = std::filesystem;
namespace pfcb = p2b::pfcb;

pfcb::Checkpoint sample() {
  pfcb::Checkpoint c;
  c.cursor = 0x0102030405060708ULL;
  c.agent_state.assign(300, 0x5A);
  c.postings.push_back({7, std::vector<uint8_t>(229, 0x11)});
  c.postings.push_back({8, std::vector<uint8_t>(229, 0x22)});
  return c;
}

void expect_same(const pfcb::Checkpoint& a, const pfcb::Checkpoint& b) {
  EXPECT_EQ(a.cursor, b.cursor);
  EXPECT_EQ(a.agent_state, b.agent_state);
  ASSERT_EQ(a.postings.size(), b.postings.size());
  for (size_t i = 0; i < a.postings.size(); ++i) {
    EXPECT_EQ(a.postings[i].release, b.postings[i].release);
    EXPECT_EQ(a.postings[i].bytes, b.postings[i].bytes);
  }
}

const uint8_t kKey[pfcb::kStateKeyBytes] = {1, 2, 3};

TEST(PfcbCheckpoint, SealedRoundTripsAndOnlyTheKeyOpensIt) {
  ASSERT_GE(sodium_init(), 0);
  std::vector<uint8_t> file;
  ASSERT_TRUE(pfcb::seal_checkpoint(sample(), kKey, &file));
  pfcb::Checkpoint back;
  std::string err;
  ASSERT_TRUE(pfcb::open_checkpoint(file.data(), file.size(), kKey, &back, &err)) << err;
  expect_same(back, sample());
  // Encrypted: the agent state's bytes do not appear in the file.
  const std::vector<uint8_t> run(16, 0x5A);
  EXPECT_EQ(std::search(file.begin(), file.end(), run.begin(), run.end()), file.end());
  uint8_t other[pfcb::kStateKeyBytes] = {1, 2, 4};
  EXPECT_FALSE(pfcb::open_checkpoint(file.data(), file.size(), other, &back, &err));
  // Each sealing draws a fresh nonce.
  std::vector<uint8_t> again;
  ASSERT_TRUE(pfcb::seal_checkpoint(sample(), kKey, &again));
  EXPECT_NE(again, file);
}

TEST(PfcbCheckpoint, EveryFlippedByteAndEveryTruncationIsRefused) {
  std::vector<uint8_t> file;
  ASSERT_TRUE(pfcb::seal_checkpoint(sample(), kKey, &file));
  pfcb::Checkpoint back;
  std::string err;
  for (size_t i = 0; i < file.size(); ++i) {
    std::vector<uint8_t> bad = file;
    bad[i] ^= 0x04;
    EXPECT_FALSE(pfcb::open_checkpoint(bad.data(), bad.size(), kKey, &back, &err)) << i;
  }
  for (size_t n = 0; n < file.size(); ++n) {
    EXPECT_FALSE(pfcb::open_checkpoint(file.data(), n, kKey, &back, &err)) << n;
  }
}

TEST(PfcbCheckpoint, TheBodyDecoderRefusesLiesEvenWhenAuthentic) {
  const std::vector<uint8_t> good = pfcb::encode_checkpoint_body(sample());
  pfcb::Checkpoint out;
  std::string err;
  ASSERT_TRUE(pfcb::decode_checkpoint_body(good.data(), good.size(), &out, &err)) << err;
  auto refused = [&](std::vector<uint8_t> body) {
    return !pfcb::decode_checkpoint_body(body.data(), body.size(), &out, &err);
  };
  auto put_u32 = [](std::vector<uint8_t>& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
  };
  const size_t state_len_at = 8;
  const size_t count_at = state_len_at + 4 + 300;
  const size_t release0_at = count_at + 4;
  std::vector<uint8_t> b = good;
  put_u32(b, state_len_at, 0xFFFFFFFFU);  // a state longer than the body
  EXPECT_TRUE(refused(b));
  b = good;
  put_u32(b, count_at, 3);  // one posting more than there is
  EXPECT_TRUE(refused(b));
  b = good;
  put_u32(b, count_at, 0x7FFFFFFFU);  // a count no body this size can hold
  EXPECT_TRUE(refused(b));
  b = good;
  put_u32(b, release0_at, 0);  // release numbers start at 1
  EXPECT_TRUE(refused(b));
  b = good;
  b.push_back(0);  // trailing byte
  EXPECT_TRUE(refused(b));
  pfcb::Checkpoint empty_state = sample();
  empty_state.agent_state.clear();
  EXPECT_TRUE(refused(pfcb::encode_checkpoint_body(empty_state)));
  pfcb::Checkpoint empty_posting = sample();
  empty_posting.postings[1].bytes.clear();
  EXPECT_TRUE(refused(pfcb::encode_checkpoint_body(empty_posting)));
  pfcb::Checkpoint none = sample();
  none.postings.clear();  // no postings waiting is a valid checkpoint
  const std::vector<uint8_t> nb = pfcb::encode_checkpoint_body(none);
  EXPECT_TRUE(pfcb::decode_checkpoint_body(nb.data(), nb.size(), &out, &err)) << err;
}

TEST(PfcbCheckpoint, TheFileIsReplacedWholeWithMode0600) {
  const fs::path dir = fs::path(P2B_TEST_TMP) / "pfcb-checkpoint";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "agent.ckpt").string();
  pfcb::Checkpoint back;
  bool exists = true;
  std::string err;
  ASSERT_TRUE(pfcb::read_checkpoint(path, kKey, &back, &exists, &err)) << err;
  EXPECT_FALSE(exists);  // a first start

  ASSERT_TRUE(pfcb::write_checkpoint(path, sample(), kKey, &err)) << err;
  pfcb::Checkpoint next = sample();
  next.cursor = 99;
  next.postings.pop_back();
  ASSERT_TRUE(pfcb::write_checkpoint(path, next, kKey, &err)) << err;
  ASSERT_TRUE(pfcb::read_checkpoint(path, kKey, &back, &exists, &err)) << err;
  EXPECT_TRUE(exists);
  expect_same(back, next);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600U);
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 1U) << "no temporary file left behind";

  std::ofstream(path, std::ios::binary | std::ios::trunc) << "not a checkpoint";
  EXPECT_FALSE(pfcb::read_checkpoint(path, kKey, &back, &exists, &err));
  EXPECT_NE(err.find(path), std::string::npos) << err;
}

}  // namespace
