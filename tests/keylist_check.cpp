// Test helper for tests/test_keylist.sh: applies a key-list file to a fresh
// agent through the C API, as a device would, and prints the outcome.
//
//   keylist_check LIST VERIFY_PK NOW_UNIX
//
// Prints the status, then on success the applied version and the
// fingerprint new envelopes carry. Exit 0 when the list applied, 1 when the
// agent refused it, 2 when the files cannot be read.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/keyfiles.hpp"
#include "p2b.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: keylist_check LIST VERIFY_PK NOW_UNIX\n");
    return 2;
  }
  uint8_t list[P2B_KEY_LIST_BYTES];
  uint8_t verify_pk[P2B_KEY_BYTES];
  std::string err;
  if (!p2b::keyfiles::read_key_file(argv[1], list, sizeof list, &err) ||
      !p2b::keyfiles::read_key_file(argv[2], verify_pk, sizeof verify_pk, &err)) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 2;
  }
  const uint8_t box_key[P2B_KEY_BYTES] = {1};  // the configured key; any 32 bytes
  const float centroids[2] = {0.0F, 1.0F};
  p2b_config cfg;
  if (p2b_config_default(&cfg) != P2B_OK) return 2;
  cfg.dim = 1;
  cfg.n_actions = 2;
  cfg.n_codes = 2;
  cfg.centroids = centroids;
  cfg.shuffler_public_key = box_key;
  cfg.analyzer_public_key = box_key;
  cfg.analyzer_verify_key = verify_pk;
  size_t bytes = 0;
  if (p2b_agent_footprint(&cfg, &bytes) != P2B_OK) return 2;
  std::vector<uint8_t> raw(bytes + P2B_ARENA_ALIGN);
  void* mem =
      raw.data() + (P2B_ARENA_ALIGN - reinterpret_cast<uintptr_t>(raw.data()) % P2B_ARENA_ALIGN) %
                       P2B_ARENA_ALIGN;
  p2b_agent* agent = nullptr;
  if (p2b_agent_init(mem, bytes, &cfg, &agent) != P2B_OK) return 2;
  const p2b_status s =
      p2b_agent_apply_key_list(agent, list, sizeof list, std::strtoull(argv[3], nullptr, 10));
  std::printf("%s\n", p2b_status_str(s));
  if (s != P2B_OK) return 1;
  uint64_t version = 0;
  p2b_fingerprints fp;
  if (p2b_agent_key_list_version(agent, &version) != P2B_OK ||
      p2b_agent_fingerprints(agent, &fp) != P2B_OK) {
    return 2;
  }
  std::printf("version %llu\ncurrent ", static_cast<unsigned long long>(version));
  for (const uint8_t b : fp.shuffler) std::printf("%02x", b);
  std::printf("\n");
  return 0;
}
