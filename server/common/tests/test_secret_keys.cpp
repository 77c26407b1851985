// Secret-key storage and loading: keys never move once stored (so no
// reallocation can leave a copy behind), wipe() really zeroes them, a move
// hands the storage over, and the loaders check what they read.
#include <gtest/gtest.h>
#include <sodium.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "common/keyfiles.hpp"
#include "common/secret_keys.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
namespace kf = p2b::keyfiles;
using p2b::common::BoxKeys;
using p2b::common::KeyError;
using p2b::common::SecureArray;
using p2b::server::BoxKey;

using p2b_test::TempDir;

// A fresh subdirectory of the test's temporary directory.
std::string sub(const TempDir& tmp, const char* name) {
  std::string p = tmp.file(name);
  fs::create_directories(p);
  return p;
}

bool all_zero(const void* p, std::size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  return std::all_of(b, b + n, [](uint8_t x) { return x == 0; });
}

BoxKey pattern_key(uint8_t fill) {
  BoxKey k{};
  std::fill(std::begin(k.sk), std::end(k.sk), fill);
  std::fill(std::begin(k.pk), std::end(k.pk), fill);
  return k;
}

TEST(CommonSecretKeys, StorageNeverMovesAndRefusesToGrow) {
  BoxKeys keys(3);
  ASSERT_EQ(keys.capacity(), 3u);
  ASSERT_TRUE(keys.push_back(pattern_key(1)));
  const BoxKey* first = keys.data();
  ASSERT_TRUE(keys.push_back(pattern_key(2)));
  ASSERT_TRUE(keys.push_back(pattern_key(3)));
  EXPECT_FALSE(keys.push_back(pattern_key(4))) << "a full array must refuse, not reallocate";
  EXPECT_EQ(keys.data(), first) << "the keys moved: the old copy would be left unwiped";
  EXPECT_EQ(keys.size(), 3u);
  EXPECT_EQ(keys[2].sk[0], 3);
}

TEST(CommonSecretKeys, WipeZeroesTheSecrets) {
  BoxKeys keys{pattern_key(0xAA), pattern_key(0x55)};
  const BoxKey* storage = keys.data();
  ASSERT_FALSE(all_zero(storage, 2 * sizeof(BoxKey)));
  keys.wipe();
  EXPECT_TRUE(keys.empty());
  // The storage is still ours (wipe keeps it), so reading it back is sound.
  EXPECT_TRUE(all_zero(storage, keys.capacity() * sizeof(BoxKey)));
}

TEST(CommonSecretKeys, AMoveHandsTheStorageOverWithoutACopy) {
  BoxKeys a{pattern_key(7)};
  const BoxKey* storage = a.data();
  BoxKeys b(std::move(a));
  EXPECT_EQ(b.data(), storage);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): checking the move
  EXPECT_EQ(a.size(), 0u);       // NOLINT(bugprone-use-after-move)
  BoxKeys c;
  c = std::move(b);
  EXPECT_EQ(c.data(), storage);
  EXPECT_EQ(c[0].sk[0], 7);
}

struct KeyDir {
  uint8_t pk[crypto_box_PUBLICKEYBYTES];
  uint8_t sk[crypto_box_SECRETKEYBYTES];
};

KeyDir write_box_pair(const std::string& dir, const std::string& name) {
  KeyDir k{};
  crypto_box_keypair(k.pk, k.sk);
  std::string err;
  EXPECT_TRUE(kf::create_key_file(dir + "/" + name + ".pk", k.pk, sizeof k.pk,
                                  kf::KeyKind::public_key, &err))
      << err;
  EXPECT_TRUE(kf::create_key_file(dir + "/" + name + ".sk", k.sk, sizeof k.sk,
                                  kf::KeyKind::secret_key, &err))
      << err;
  return k;
}

TEST(CommonSecretKeys, LoadsPairsChecksThemAndKeepsEachKeyOnce) {
  ASSERT_GE(sodium_init(), 0);
  TempDir tmp;
  const std::string old_dir = sub(tmp, "old");
  const std::string new_dir = sub(tmp, "new");
  const KeyDir old_keys = write_box_pair(old_dir, "shuffler.box");
  write_box_pair(new_dir, "shuffler.box");
  const auto loaded = p2b::common::load_box_keys({old_dir, new_dir, old_dir + "/"}, "shuffler.box");
  ASSERT_EQ(loaded.keys.size(), 2u) << "the same key named twice is kept once";
  EXPECT_EQ(loaded.fingerprints.size(), 2u);
  EXPECT_TRUE(std::equal(old_keys.sk, old_keys.sk + sizeof old_keys.sk, loaded.keys[0].sk));
  EXPECT_TRUE(loaded.warnings.empty());
  std::string fp;
  ASSERT_TRUE(kf::fingerprint_hex(old_keys.pk, &fp));
  EXPECT_EQ(loaded.fingerprints[0], fp);

  // A public key of one pair next to the secret key of another.
  const std::string mixed = sub(tmp, "mixed");
  const KeyDir a = write_box_pair(mixed, "analyzer.box");
  fs::remove(mixed + "/analyzer.box.pk");
  const KeyDir other = write_box_pair(sub(tmp, "other"), "x");
  std::string err;
  ASSERT_TRUE(kf::create_key_file(mixed + "/analyzer.box.pk", other.pk, sizeof other.pk,
                                  kf::KeyKind::public_key, &err));
  try {
    p2b::common::load_box_keys({mixed}, "analyzer.box");
    FAIL() << "a mismatched pair loaded";
  } catch (const KeyError& e) {
    EXPECT_NE(std::string(e.what()).find("does not belong to"), std::string::npos) << e.what();
  }
  EXPECT_THROW(p2b::common::load_box_keys({sub(tmp, "empty")}, "analyzer.box"), KeyError);
  EXPECT_THROW(p2b::common::load_box_keys({}, "analyzer.box"), KeyError);
  (void)a;
}

TEST(CommonSecretKeys, LoadsAnEd25519KeyOnlyWhenItsHalvesAgree) {
  ASSERT_GE(sodium_init(), 0);
  TempDir tmp;
  const std::string dir = sub(tmp, "k");
  uint8_t pk[crypto_sign_PUBLICKEYBYTES];
  uint8_t sk[crypto_sign_SECRETKEYBYTES];
  crypto_sign_keypair(pk, sk);
  std::string err;
  ASSERT_TRUE(kf::create_key_file(dir + "/good.sk", sk, sizeof sk, kf::KeyKind::secret_key, &err));
  std::vector<std::string> warnings;
  const SecureArray<uint8_t> key = p2b::common::load_sign_key(dir + "/good.sk", &warnings);
  ASSERT_EQ(key.size(), sizeof sk);
  EXPECT_TRUE(std::equal(sk, sk + sizeof sk, key.data()));
  std::string fp;
  ASSERT_TRUE(kf::fingerprint_hex(pk, &fp));
  EXPECT_EQ(p2b::common::verify_key_fingerprint(key.data()), fp);

  sk[40] ^= 1;  // damage the public half
  ASSERT_TRUE(kf::create_key_file(dir + "/bad.sk", sk, sizeof sk, kf::KeyKind::secret_key, &err));
  EXPECT_THROW(p2b::common::load_sign_key(dir + "/bad.sk", &warnings), KeyError);
  sodium_memzero(sk, sizeof sk);
}

}  // namespace
