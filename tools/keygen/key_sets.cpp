#include "keygen/key_sets.hpp"

namespace p2b::keygen {

bool key_set_kind(const std::string& name, KeySetKind* out) {
  static const struct {
    const char* name;
    KeySetKind kind;
  } kKinds[] = {{"p2b", KeySetKind::p2b},
                {"vfl", KeySetKind::vfl},
                {"fclub", KeySetKind::fclub},
                {"fclub-local", KeySetKind::fclub_local},
                {"pfcb-consortium", KeySetKind::pfcb_consortium},
                {"pfcb-agent", KeySetKind::pfcb_agent},
                {"shuffler-spool", KeySetKind::shuffler_spool}};
  for (const auto& k : kKinds) {
    if (name == k.name) {
      *out = k.kind;
      return true;
    }
  }
  return false;
}

void KeySet::wipe() {
  sodium_memzero(&shuffler_box, sizeof shuffler_box);
  sodium_memzero(&analyzer_box, sizeof analyzer_box);
  sodium_memzero(&analyzer_sign, sizeof analyzer_sign);
  sodium_memzero(&shuffler_sign, sizeof shuffler_sign);
  sodium_memzero(noise_seed, sizeof noise_seed);
  sodium_memzero(consortium_key, sizeof consortium_key);
  sodium_memzero(spool_key, sizeof spool_key);
}

KeyFiles key_files(const KeySet& k, KeySetKind kind) {
  using keyfiles::KeyKind;
  switch (kind) {
    case KeySetKind::pfcb_consortium:
      // The names server/pfcb's agents read (docs/pfcb-relay.md).
      return {
          {"pfcb.consortium.key", k.consortium_key, sizeof k.consortium_key, KeyKind::secret_key}};
    case KeySetKind::shuffler_spool:
      // The name the shuffler's --spool-key help and its systemd credential use.
      return {{"shuffler.spool.key", k.spool_key, sizeof k.spool_key, KeyKind::secret_key}};
    case KeySetKind::pfcb_agent:
      return {
          {"pfcb.sign.pk", k.shuffler_sign.pk, sizeof k.shuffler_sign.pk, KeyKind::public_key},
          {"pfcb.sign.sk", k.shuffler_sign.sk, sizeof k.shuffler_sign.sk, KeyKind::secret_key},
      };
    case KeySetKind::fclub:
    case KeySetKind::fclub_local: {
      // The names server/fclub's services read (fclub_services.hpp).
      KeyFiles files{
          {"fclub.box.pk", k.shuffler_box.pk, sizeof k.shuffler_box.pk, KeyKind::public_key},
          {"fclub.box.sk", k.shuffler_box.sk, sizeof k.shuffler_box.sk, KeyKind::secret_key},
          {"fclub.sign.pk", k.shuffler_sign.pk, sizeof k.shuffler_sign.pk, KeyKind::public_key},
          {"fclub.sign.sk", k.shuffler_sign.sk, sizeof k.shuffler_sign.sk, KeyKind::secret_key},
      };
      if (kind == KeySetKind::fclub_local) {
        files.push_back({"fclub.noise.sk", k.noise_seed, sizeof k.noise_seed, KeyKind::secret_key});
      }
      return files;
    }
    case KeySetKind::vfl:
      // A vertical-federation party: one box pair, one signing pair (used by the PMG).
      return {
          {"vfl.box.pk", k.shuffler_box.pk, sizeof k.shuffler_box.pk, KeyKind::public_key},
          {"vfl.box.sk", k.shuffler_box.sk, sizeof k.shuffler_box.sk, KeyKind::secret_key},
          {"vfl.sign.pk", k.shuffler_sign.pk, sizeof k.shuffler_sign.pk, KeyKind::public_key},
          {"vfl.sign.sk", k.shuffler_sign.sk, sizeof k.shuffler_sign.sk, KeyKind::secret_key},
      };
    case KeySetKind::p2b:
      break;
  }
  return {
      {"shuffler.box.pk", k.shuffler_box.pk, sizeof k.shuffler_box.pk, KeyKind::public_key},
      {"shuffler.box.sk", k.shuffler_box.sk, sizeof k.shuffler_box.sk, KeyKind::secret_key},
      {"analyzer.box.pk", k.analyzer_box.pk, sizeof k.analyzer_box.pk, KeyKind::public_key},
      {"analyzer.box.sk", k.analyzer_box.sk, sizeof k.analyzer_box.sk, KeyKind::secret_key},
      {"analyzer.sign.pk", k.analyzer_sign.pk, sizeof k.analyzer_sign.pk, KeyKind::public_key},
      {"analyzer.sign.sk", k.analyzer_sign.sk, sizeof k.analyzer_sign.sk, KeyKind::secret_key},
      {"shuffler.sign.pk", k.shuffler_sign.pk, sizeof k.shuffler_sign.pk, KeyKind::public_key},
      {"shuffler.sign.sk", k.shuffler_sign.sk, sizeof k.shuffler_sign.sk, KeyKind::secret_key},
  };
}

void generate(KeySet* k) {
  crypto_box_keypair(k->shuffler_box.pk, k->shuffler_box.sk);
  crypto_box_keypair(k->analyzer_box.pk, k->analyzer_box.sk);
  crypto_sign_keypair(k->analyzer_sign.pk, k->analyzer_sign.sk);
  crypto_sign_keypair(k->shuffler_sign.pk, k->shuffler_sign.sk);
  randombytes_buf(k->noise_seed, sizeof k->noise_seed);
  crypto_aead_xchacha20poly1305_ietf_keygen(k->consortium_key);
  randombytes_buf(k->spool_key, sizeof k->spool_key);
}

}  // namespace p2b::keygen
