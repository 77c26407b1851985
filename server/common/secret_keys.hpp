// Secret keys in memory, and loading them from p2b-keygen directories
// (docs/keys.md). Secrets live only in SecureArray storage: allocated once at
// its final size by sodium_allocarray (guard pages, mlock where the system
// allows it), so no reallocation ever leaves a copy behind, and wiped when
// it is released.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "wire/envelope_open.hpp"

namespace p2b::common {

class KeyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A fixed-capacity array of trivially copyable T in libsodium's secure
// memory. Move-only; a move hands the storage over without copying it.
template <typename T>
class SecureArray {
 public:
  SecureArray() = default;
  // Throws std::bad_alloc if the storage cannot be had.
  explicit SecureArray(std::size_t capacity);
  ~SecureArray() { release(); }
  SecureArray(const SecureArray&) = delete;
  SecureArray& operator=(const SecureArray&) = delete;
  SecureArray(SecureArray&& o) noexcept { take(&o); }
  SecureArray& operator=(SecureArray&& o) noexcept {
    if (this != &o) {
      release();
      take(&o);
    }
    return *this;
  }

  // Copies `value` in; false (and nothing stored) when full.
  bool push_back(const T& value);
  // Counts the whole capacity as filled and returns it, for a reader that
  // writes a secret straight into place.
  T* fill_in_place() {
    size_ = capacity_;
    return items_;
  }
  // Zeroes every element and empties the array; the storage stays.
  void wipe();

  T* data() { return items_; }
  const T* data() const { return items_; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  const T& operator[](std::size_t i) const { return items_[i]; }

 private:
  void release();
  void take(SecureArray* o) {
    items_ = o->items_;
    size_ = o->size_;
    capacity_ = o->capacity_;
    o->items_ = nullptr;
    o->size_ = o->capacity_ = 0;
  }

  T* items_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

// The box keys a service opens envelopes with.
class BoxKeys : public SecureArray<server::BoxKey> {
 public:
  BoxKeys() = default;
  explicit BoxKeys(std::size_t capacity) : SecureArray(capacity) {}
  // Copies keys already in memory (tests, the simulator).
  BoxKeys(std::initializer_list<server::BoxKey> keys);
  explicit BoxKeys(const std::vector<server::BoxKey>& keys);
};

struct LoadedBoxKeys {
  BoxKeys keys;
  std::vector<std::string> fingerprints;  // lowercase hex, public
  std::vector<std::string> warnings;      // e.g. a secret file readable by others
};

// Reads DIR/<name>.pk and DIR/<name>.sk for each DIR (name: "shuffler.box"
// or "analyzer.box"). Several directories hold the old and new keys during
// a rotation; a key named twice is kept once. Throws KeyError if a file is
// unreadable or the wrong size, or if a secret key does not belong to its
// public key: that mix-up would otherwise only show as every envelope
// failing to open.
LoadedBoxKeys load_box_keys(const std::vector<std::string>& dirs, const std::string& name);

// Reads an Ed25519 secret key (seed || public key) and checks that its
// halves agree: a damaged half would sign what no device verifies. Throws
// KeyError; `warnings` gets a line if others can read the file.
SecureArray<uint8_t> load_sign_key(const std::string& path, std::vector<std::string>* warnings);

// Lowercase hex of the BLAKE2b-128 fingerprint of the Ed25519 public key at
// the end of a 64-byte secret key.
std::string verify_key_fingerprint(const uint8_t* sign_sk);

}  // namespace p2b::common
