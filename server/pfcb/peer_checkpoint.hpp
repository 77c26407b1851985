// A P-FCB peer's restart point (docs/pfcb-relay.md#restarts): the agent's
// saved state (CmabAgent::save: counts, privacy ledger, replay counters,
// random stream), the postings still waiting for the relay's
// acknowledgement, and the fetch cursor, in one file:
//
//   "P2BK" | format (u32 = 1) | nonce (24) | XChaCha20-Poly1305 of the body
//          under the app's 32-byte state key, the first 8 bytes as associated data
//   body:  cursor (u64) | state length (u32) | state
//          | postings (u32) | per posting: release (u32) | length (u32) | bytes
//
// (little-endian). The body holds the procurement counts P-FCB protects, so
// it is encrypted at rest, not just authenticated. Files are replaced whole
// (a fsynced temporary renamed over the old one, then the directory synced):
// a crash leaves the old checkpoint or the new one, never a mix.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace p2b::pfcb {

constexpr std::size_t kStateKeyBytes = 32;
// Bounds a decoder enforces before trusting any length.
constexpr std::size_t kCheckpointMaxBytes = std::size_t{16} << 20;
constexpr uint32_t kCheckpointMaxPostings = 1U << 16;

struct PendingPosting {
  uint32_t release = 0;
  std::vector<uint8_t> bytes;
};

struct Checkpoint {
  uint64_t cursor = 0;
  std::vector<uint8_t> agent_state;
  std::vector<PendingPosting> postings;
};

// The plaintext body, and its strict decoder: every length within bounds
// and the rest of the body, no trailing bytes. false with `err` otherwise.
std::vector<uint8_t> encode_checkpoint_body(const Checkpoint& c);
bool decode_checkpoint_body(const uint8_t* body, std::size_t len, Checkpoint* out,
                            std::string* err);

// The sealed file's bytes, and their opening (a wrong key and any edit are
// alike: "does not open").
bool seal_checkpoint(const Checkpoint& c, const uint8_t key[kStateKeyBytes],
                     std::vector<uint8_t>* out);
bool open_checkpoint(const uint8_t* file, std::size_t len, const uint8_t key[kStateKeyBytes],
                     Checkpoint* out, std::string* err);

// Atomically replaces `path` with the sealed checkpoint (mode 0600).
bool write_checkpoint(const std::string& path, const Checkpoint& c,
                      const uint8_t key[kStateKeyBytes], std::string* err);
// Reads and opens `path`. `*exists` is false (and the call true) when there
// is no file: a first start.
bool read_checkpoint(const std::string& path, const uint8_t key[kStateKeyBytes], Checkpoint* out,
                     bool* exists, std::string* err);

}  // namespace p2b::pfcb
