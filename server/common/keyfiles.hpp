// Raw key files (docs/keys.md): one key per file, its bytes and nothing else,
// so libsodium's key sizes are the whole format. Writers never let a secret be
// readable by others, not even for an instant. Readers insist on the exact
// size, so a truncated or mixed-up file fails loudly instead of loading as a
// wrong key. Host-only code: it allocates, and it may throw std::bad_alloc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace p2b::keyfiles {

// Secret files end up 0600 and public files 0644, whatever the umask.
enum class KeyKind { public_key, secret_key };

// Creates `path` with O_EXCL, so it never replaces anything, not even a file
// that appeared after the caller looked. If it fails, it leaves no file.
bool create_key_file(const std::string& path, const uint8_t* key, std::size_t n, KeyKind kind,
                     std::string* err);

// A key that is written and fsynced under a hidden temporary name next to
// `path`. Renaming it over `path` swaps the whole file in one step.
struct StagedKey {
  std::string temp_path;
  std::string path;
};

// Writes a key to a fresh temporary file (mkostemp: O_EXCL, 0600) in the
// directory of `path`.
bool stage_key_file(const std::string& path, const uint8_t* key, std::size_t n, KeyKind kind,
                    StagedKey* out, std::string* err);
// Atomically replaces `staged.path`, whether or not it existed.
bool commit_staged_key(const StagedKey& staged, std::string* err);
// Removes the temporary file of a key that will not be committed.
void discard_staged_key(const StagedKey& staged);

// Makes the new or renamed directory entries in `dir` durable.
bool sync_directory(const std::string& dir, std::string* err);

// Reads exactly `n` bytes from a file that must be exactly `n` bytes long.
bool read_key_file(const std::string& path, uint8_t* out, std::size_t n, std::string* err);

// Same as read_key_file, but `out` is wiped on failure. If group or other can
// reach the file (mode wider than 0600), the read still succeeds and
// `*warning` says so; otherwise `*warning` is cleared.
bool read_secret_key_file(const std::string& path, uint8_t* out, std::size_t n, std::string* err,
                          std::string* warning);

// Lowercase hex of the BLAKE2b-128 fingerprint of a kPublicKeyBytes public
// key: the bytes that envelopes carry in clear to name their key.
bool fingerprint_hex(const uint8_t* pk, std::string* hex);

}  // namespace p2b::keyfiles
