// The shuffler-key list on untrusted bytes: p2b::parse_key_list, then
// p2b_agent_apply_key_list. Mode (first byte % 2): 0 the rest is a list as
// downloaded; 1 the rest is the signed part (cut or zero-padded), signed
// here with the fixed analyzer key, so the checks behind the signature run.
//
// Beyond "no crash": the parser accepts exactly what re-encodes to the same
// bytes; a refused list leaves the agent byte-identical (through its saved
// state); an applied one refuses itself a second time (anti-rollback), makes
// its current key the one new envelopes name, and leaves a state that
// restores.
#include "fuzz_fixture.hpp"
#include "p2b/key_list.hpp"

namespace {

constexpr uint64_t kNow = 1795000000;

void check_parser(const uint8_t* data, size_t size) {
  p2b::KeyList l{};
  if (p2b::parse_key_list(data, size, &l) != p2b::Status::ok) return;
  uint8_t again[p2b::kKeyListSignedBytes];
  p2b_fuzz::require(p2b::encode_key_list(l, again) == p2b::Status::ok,
                    "the encoder refuses a list the parser accepted");
  p2b_fuzz::require(std::memcmp(again, data, sizeof again) == 0,
                    "an accepted list does not re-encode to its bytes");
  p2b_fuzz::require(l.count >= 1 && l.count <= p2b::kKeyListMaxKeys && l.current < l.count,
                    "accepted list with no current key");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static p2b_fuzz::FixedAgent agent(p2b_fuzz::agent_config());
  static p2b_fuzz::FixedAgent spare(p2b_fuzz::agent_config());
  static const std::vector<uint8_t> fresh = p2b_test::saved(agent.init());
  p2b_fuzz::Input in{};
  if (!p2b_fuzz::split_mode(data, size, 2, &in)) return 0;
  std::vector<uint8_t> list;
  if (in.mode == 1) {
    list.assign(p2b::kKeyListBytes, 0);
    std::memcpy(list.data(), in.data,
                in.size < p2b::kKeyListSignedBytes ? in.size : p2b::kKeyListSignedBytes);
    crypto_sign_detached(list.data() + p2b::kKeyListSignedBytes, nullptr, list.data(),
                         p2b::kKeyListSignedBytes, p2b_fuzz::keys().sign_sk);
  } else {
    list.assign(in.data, in.data + in.size);  // exact size: ASan sees any overread
  }
  check_parser(list.data(), list.size());

  p2b_agent* ag = agent.init();
  const p2b_status st = p2b_agent_apply_key_list(ag, list.data(), list.size(), kNow);
  if (st != P2B_OK) {
    p2b_fuzz::require(p2b_is_error(st) != 0, "apply_key_list: non-error status other than OK");
    p2b_fuzz::require(p2b_test::saved(ag) == fresh, "a refused key list changed the agent");
    return 0;
  }
  p2b::KeyList l{};
  p2b_fuzz::require(p2b::parse_key_list(list.data(), list.size(), &l) == p2b::Status::ok,
                    "applied a list the parser refuses");
  uint64_t version = 0;
  p2b_fingerprints fp{};
  uint8_t current_fp[P2B_FINGERPRINT_BYTES];
  p2b_fuzz::require(p2b_agent_key_list_version(ag, &version) == P2B_OK && version == l.version,
                    "applied version");
  p2b_fuzz::require(p2b_agent_fingerprints(ag, &fp) == P2B_OK &&
                        p2b_key_fingerprint(l.keys[l.current], current_fp) == P2B_OK &&
                        std::memcmp(fp.shuffler, current_fp, sizeof current_fp) == 0,
                    "the current key is not the one envelopes name");
  p2b_fuzz::require(
      p2b_agent_apply_key_list(ag, list.data(), list.size(), kNow) == P2B_ERR_KEY_LIST_ROLLBACK,
      "the same key list applied twice");
  p2b_fuzz::require_restorable(ag, spare, "an applied key list gives a state restore refuses");
  return 0;
}
