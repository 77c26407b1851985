#include "fclub/local_journal.hpp"

#include <sodium.h>

#include <cstring>

namespace p2b::fclub {

namespace {

constexpr int64_t kSchemaVersion = 1;

// `id` is the entry's position, 1, 2, ... with no gap: it is sealed into
// the entry, so a row moved or deleted from the middle is found.
constexpr const char* kSchema = R"(
CREATE TABLE IF NOT EXISTS local_journal (
  id INTEGER PRIMARY KEY,
  sealed BLOB NOT NULL
);
)";

constexpr char kKeyLabel[] = "p2b fclub local store key v1";
constexpr char kAdLabel[] = "p2b fclub local store v1";
constexpr std::size_t kNonce = crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
constexpr std::size_t kTag = crypto_aead_xchacha20poly1305_ietf_ABYTES;
constexpr std::size_t kHead = 1 + 8;  // kind, number

// The label and the position: an entry opens only where it was written.
std::string associated_data(uint64_t id) {
  std::string ad(kAdLabel, sizeof kAdLabel);
  for (int i = 0; i < 8; ++i) ad.push_back(static_cast<char>(id >> (8 * i)));
  return ad;
}

}  // namespace

StoreKey derive_store_key(const uint8_t box_sk[32]) {
  StoreKey k{};
  crypto_generichash(k.data(), k.size(), reinterpret_cast<const unsigned char*>(kKeyLabel),
                     sizeof kKeyLabel, box_sk, 32);
  return k;
}

LocalJournal::LocalJournal(const std::string& path, const StoreKey& key) : key_(key) {
  lock_ = std::make_unique<common::StoreLock>(path);
  db_ = common::open_store(path, kFclubLocalStore);
  common::schema_version(*db_, kSchemaVersion, kFclubLocalStore);
  common::Transaction tx(*db_);
  db_->exec(kSchema);
  db_->exec("PRAGMA user_version=" + std::to_string(kSchemaVersion));
  tx.commit();
  common::Statement last(*db_, "SELECT COALESCE(MAX(id), 0) FROM local_journal");
  if (last.step()) next_ = static_cast<uint64_t>(last.column_int(0)) + 1;
}

LocalJournal::~LocalJournal() {
  sodium_memzero(key_.data(), key_.size());
}

void LocalJournal::append(const std::vector<LocalEntry>& batch) {
  common::Transaction tx(*db_);
  common::Statement put(*db_, "INSERT INTO local_journal (id, sealed) VALUES (?1, ?2)");
  uint64_t id = next_;
  std::vector<uint8_t> plain;
  std::vector<uint8_t> sealed;
  for (const LocalEntry& e : batch) {
    plain.assign(kHead + e.body.size(), 0);
    plain[0] = static_cast<uint8_t>(e.kind);
    for (int i = 0; i < 8; ++i) plain[1 + i] = static_cast<uint8_t>(e.number >> (8 * i));
    std::memcpy(plain.data() + kHead, e.body.data(), e.body.size());
    sealed.assign(kNonce + plain.size() + kTag, 0);
    randombytes_buf(sealed.data(), kNonce);
    const std::string ad = associated_data(id);
    unsigned long long len = 0;
    crypto_aead_xchacha20poly1305_ietf_encrypt(sealed.data() + kNonce, &len, plain.data(),
                                               plain.size(),
                                               reinterpret_cast<const unsigned char*>(ad.data()),
                                               ad.size(), nullptr, sealed.data(), key_.data());
    sodium_memzero(plain.data(), plain.size());
    // Positions stay far below 2^63.
    put.bind_int(1, static_cast<int64_t>(id));
    put.bind_blob(2, sealed.data(), sealed.size());
    put.run();
    ++id;
  }
  tx.commit();
  next_ = id;  // only once committed: a failed batch leaves the positions free
}

void LocalJournal::replay(const std::function<void(const LocalEntry&)>& each) const {
  common::Statement all(*db_, "SELECT id, sealed FROM local_journal ORDER BY id");
  uint64_t expect = 1;
  std::vector<uint8_t> plain;
  while (all.step()) {
    const auto id = static_cast<uint64_t>(all.column_int(0));
    if (id != expect) {
      db_->fail_damaged("local journal entry " + std::to_string(expect) + " is missing");
    }
    const std::vector<uint8_t> sealed = all.column_blob(1);
    if (sealed.size() < kNonce + kHead + kTag) {
      db_->fail_damaged("local journal entry " + std::to_string(id) + " is too short");
    }
    plain.assign(sealed.size() - kNonce - kTag, 0);
    const std::string ad = associated_data(id);
    unsigned long long len = 0;
    if (crypto_aead_xchacha20poly1305_ietf_decrypt(
            plain.data(), &len, nullptr, sealed.data() + kNonce, sealed.size() - kNonce,
            reinterpret_cast<const unsigned char*>(ad.data()), ad.size(), sealed.data(),
            key_.data()) != 0) {
      // Another local's store, or an edit: either way not this local's history.
      db_->fail_damaged("local journal entry " + std::to_string(id) +
                        " does not open under this local's keys");
    }
    LocalEntry e;
    if (plain[0] < static_cast<uint8_t>(LocalEntryKind::reward) ||
        plain[0] > static_cast<uint8_t>(LocalEntryKind::sent)) {
      db_->fail_damaged("local journal entry " + std::to_string(id) + " of unknown kind");
    }
    e.kind = static_cast<LocalEntryKind>(plain[0]);
    for (int i = 0; i < 8; ++i) e.number |= static_cast<uint64_t>(plain[1 + i]) << (8 * i);
    e.body.assign(reinterpret_cast<const char*>(plain.data()) + kHead, plain.size() - kHead);
    sodium_memzero(plain.data(), plain.size());
    each(e);
    sodium_memzero(e.body.data(), e.body.size());
    ++expect;
  }
}

}  // namespace p2b::fclub
