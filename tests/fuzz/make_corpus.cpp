// Writes the seed corpora of the fuzz targets: real envelopes from the device
// path, signed model bundles, codebook files and saved states, all made with
// the fixed keys and configuration of fuzz_fixture.hpp. Every seed is checked
// to be accepted before it is written, so a fixture that drifted from the
// library fails here instead of silently seeding the fuzzers with rejects.
//
//   make_corpus OUT_DIR    writes OUT_DIR/<target>/seed-<name>
//
// The output is deterministic (seeded agents, fixed randombytes), so
// regenerating only changes files whose format changed.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "../model_support.hpp"
#include "cmab_fixture.hpp"
#include "fclub_fixture.hpp"
#include "fuzz_fixture.hpp"
#include "p2b/cmab.hpp"
#include "p2b/codebook_format.hpp"
#include "p2b/key_list.hpp"
#include "p2b_pfcb.pb.h"
#include "pb_encode.h"
#include "pfcb/peer_checkpoint.hpp"
#include "pfcb/relay_requests.hpp"
#include "pfcb/wire/pfcb_wire.hpp"
#include "pfcb_fixture.hpp"
#include "vfl/masked_request.hpp"
#include "vfl/party_mask.hpp"
#include "vfl_fixture.hpp"
#include "wire/batch_ack.hpp"

namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;
using p2b_fuzz::require;

fs::path g_out;

// `mode` is the targets' first byte; negative for targets without modes.
void write_seed(const char* target, const std::string& name, int mode, const uint8_t* p, size_t n) {
  const fs::path dir = g_out / target;
  fs::create_directories(dir);
  std::ofstream f(dir / ("seed-" + name), std::ios::binary | std::ios::trunc);
  if (mode >= 0) f.put(static_cast<char>(mode));
  f.write(reinterpret_cast<const char*>(p), static_cast<std::streamsize>(n));
  require(f.good(), "writing a seed");
}
void write_seed(const char* target, const std::string& name, int mode, const Bytes& b) {
  write_seed(target, name, mode, b.data(), b.size());
}

std::vector<float> context(std::mt19937_64& rng) {
  return p2b_test::simplex_point(rng, p2b_fuzz::kDim);
}

// Decides and rewards once per reward, polling an envelope after each.
std::vector<Bytes> envelopes_from(p2b_agent* ag, std::mt19937_64& rng,
                                  std::initializer_list<float> rewards) {
  std::vector<Bytes> out;
  for (float r : rewards) {
    for (int attempt = 0; attempt < 100; ++attempt) {
      const std::vector<float> x = context(rng);
      uint32_t action = 0;
      uint64_t id = 0;
      require(p2b_agent_decide(ag, x.data(), x.size(), &action, &id) == P2B_OK, "decide");
      require(p2b_agent_reward(ag, id, r) == P2B_OK, "reward");
      Bytes env(P2B_ENVELOPE_BYTES);
      size_t written = 0;
      if (p2b_agent_poll_envelope(ag, env.data(), env.size(), &written) == P2B_OK) {
        out.push_back(env);
        break;
      }
    }
  }
  return out;
}

Bytes bundle_for(const p2b_agent* source, uint64_t version) {
  p2b_test::BundleOptions opt;
  opt.version = version;
  opt.sign_sk = p2b_fuzz::keys().sign_sk;
  return p2b_test::bundle_from(source, p2b_fuzz::kDim, p2b_fuzz::kActions, opt);
}

Bytes seal_open(const uint8_t* layer, size_t len, const p2b::server::BoxKey& key) {
  Bytes plain(len - p2b::kFingerprintBytes - crypto_box_SEALBYTES);
  require(crypto_box_seal_open(plain.data(), layer + p2b::kFingerprintBytes,
                               len - p2b::kFingerprintBytes, key.pk, key.sk) == 0,
          "crypto_box_seal_open");
  return plain;
}

void envelope_seeds() {
  const p2b_fuzz::Keys& k = p2b_fuzz::keys();
  p2b_config cfg = p2b_fuzz::agent_config();
  cfg.window = 1;            // every interaction closes a window...
  cfg.participation = 0.99;  // ...and nearly every window reports
  p2b_fuzz::FixedAgent fixture(cfg);
  p2b_agent* ag = fixture.init();
  std::mt19937_64 rng(1);
  std::vector<Bytes> envs = envelopes_from(ag, rng, {1.0F, 0.0F, 0.25F});
  // Reports made under a warm-start model carry its version.
  const Bytes model = bundle_for(ag, 1ULL << 40);
  require(p2b_agent_apply_model(ag, model.data(), model.size()) == P2B_OK,
          "apply model to the reporting agent");
  for (const Bytes& e : envelopes_from(ag, rng, {0.75F})) envs.push_back(e);
  require(envs.size() == 4, "the device path gave fewer envelopes than asked");

  for (size_t i = 0; i < envs.size(); ++i) {
    const std::string n = std::to_string(i);
    p2b::server::OuterOpened outer{};
    require(p2b::server::open_outer(envs[i].data(), envs[i].size(), k.shuffler, 2, &outer) ==
                p2b::server::OpenStatus::ok,
            "open_outer refuses a device envelope");
    p2b::server::InnerOpened inner{};
    require(p2b::server::open_inner(outer.inner, sizeof outer.inner, k.analyzer, 2, &inner) ==
                p2b::server::OpenStatus::ok,
            "open_inner refuses a device inner layer");
    const Bytes outer_plain = seal_open(envs[i].data(), envs[i].size(), k.shuffler[1]);
    const Bytes inner_plain = seal_open(outer.inner, sizeof outer.inner, k.analyzer[1]);
    write_seed("fuzz_outer_open", "envelope-" + n, 0, envs[i]);
    write_seed("fuzz_outer_open", "plain-" + n, 1, outer_plain);
    write_seed("fuzz_inner_open", "inner-" + n, 0, outer.inner, sizeof outer.inner);
    write_seed("fuzz_inner_open", "plain-" + n, 1, inner_plain);
    if (i == 0) {  // the retired keys: the same plaintexts, now naming the wrong key
      write_seed("fuzz_outer_open", "plain-retired-key", 2, outer_plain);
      write_seed("fuzz_inner_open", "plain-retired-key", 2, inner_plain);
    }
  }
}

// An agent with history: learned arms, pending decisions, a closed window
// and queued reports.
void add_history(p2b_agent* ag, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (uint32_t i = 0; i < 12; ++i) {
    const std::vector<float> x = context(rng);
    require(p2b_agent_learn(ag, x.data(), x.size(), i % p2b_fuzz::kActions,
                            static_cast<float>(i % 3) / 2.0F) == P2B_OK,
            "learn");
  }
  for (uint32_t i = 0; i < 7; ++i) {
    const std::vector<float> x = context(rng);
    uint32_t action = 0;
    uint64_t id = 0;
    require(p2b_agent_decide(ag, x.data(), x.size(), &action, &id) == P2B_OK, "decide");
    if (i % 3 != 2) require(p2b_agent_reward(ag, id, i % 2 == 0 ? 1.0F : 0.0F) == P2B_OK, "reward");
  }
}

void model_seeds() {
  p2b_fuzz::FixedAgent source_arena(p2b_fuzz::agent_config());
  p2b_agent* source = source_arena.init();
  add_history(source, 2);
  p2b_fuzz::FixedAgent target_arena(p2b_fuzz::agent_config());
  const struct {
    const char* name;
    uint64_t version;
  } seeds[] = {{"v1", 1}, {"v-large", 0xFEDCBA9876543210ULL}};
  for (const auto& s : seeds) {
    const Bytes bundle = bundle_for(source, s.version);
    require(p2b_agent_apply_model(target_arena.init(), bundle.data(), bundle.size()) == P2B_OK,
            "a fresh agent refuses a bundle");
    if (s.version == 1) write_seed("fuzz_model_bundle", "bundle-v1", 0, bundle);
    write_seed("fuzz_model_bundle", std::string("body-") + s.name, 1, bundle.data(),
               bundle.size() - crypto_sign_BYTES);
  }
  // A raw baseline with a not-after time, for the timed mode's experiment agent.
  p2b_test::BundleOptions raw;
  raw.version = 2;
  raw.sign_sk = p2b_fuzz::keys().sign_sk;
  raw.kind = P2B_MODEL_RAW_BASELINE;
  raw.not_after_unix = 1795003600;
  const Bytes bundle = p2b_test::bundle_from(source, p2b_fuzz::kDim, p2b_fuzz::kActions, raw);
  p2b_config cfg = p2b_fuzz::agent_config();
  cfg.accept_baseline_models = 1;
  p2b_fuzz::FixedAgent experiment(cfg);
  require(p2b_agent_apply_model_at(experiment.init(), bundle.data(), bundle.size(), 1795000000) ==
              P2B_OK,
          "an experiment agent refuses a raw baseline");
  write_seed("fuzz_model_bundle", "body-raw-not-after", 3, bundle.data(),
             bundle.size() - crypto_sign_BYTES);
}

void codebook_seeds() {
  const p2b::CryptoPort crypto = p2b_test::sodium_port();
  const struct {
    const char* name;
    uint32_t k, dim, digits;
  } shapes[] = {{"agent", p2b_fuzz::kCodes, p2b_fuzz::kDim, 1},
                {"k1-d1-q6", 1, 1, 6},
                {"k3-d64-q2", 3, 64, 2}};
  for (const auto& s : shapes) {
    const std::vector<float> c =
        s.k == p2b_fuzz::kCodes ? p2b_fuzz::codebook() : p2b_test::random_codebook(s.k, s.dim, 3);
    size_t need = 0;
    require(p2b::encoded_codebook_size(c.data(), s.k, s.dim, s.digits, &need) == p2b::Status::ok,
            "codebook size");
    Bytes file(need);
    size_t written = 0;
    require(p2b::encode_codebook(crypto, c.data(), s.k, s.dim, s.digits, file.data(), file.size(),
                                 &written) == p2b::Status::ok,
            "encode_codebook");
    std::vector<float> back(c.size());
    p2b_codebook_info info{};
    require(p2b_codebook_parse(file.data(), file.size(), back.data(), back.size(), &info) == P2B_OK,
            "the parser refuses an encoded codebook");
    write_seed("fuzz_codebook", s.name, -1, file);
  }
}

void state_seeds() {
  constexpr size_t kTrailer = 32;  // the keyed BLAKE2b-256 MAC of everything before it
  p2b_fuzz::FixedAgent arena(p2b_fuzz::agent_config());
  p2b_fuzz::FixedAgent check(p2b_fuzz::agent_config());
  p2b_agent* busy = arena.init();
  add_history(busy, 4);
  const Bytes with_history = p2b_test::saved(busy);
  const Bytes model = bundle_for(busy, 3);
  require(p2b_agent_apply_model(busy, model.data(), model.size()) == P2B_OK,
          "apply model before saving");
  add_history(busy, 5);
  const Bytes with_model = p2b_test::saved(busy);

  // The encrypted form of the busiest state, as p2b_agent_save_encrypted writes it.
  Bytes box(with_model.size() + P2B_STATE_ENCRYPTION_OVERHEAD);
  size_t written = 0;
  require(p2b_agent_save_encrypted(busy, p2b_fuzz::keys().state_key, box.data(), box.size(),
                                   &written) == P2B_OK &&
              written == box.size(),
          "save_encrypted");
  write_seed("fuzz_state", "encrypted-model", 2, box);  // before restore decrypts it in place
  require(p2b_agent_restore_encrypted(check.init(), p2b_fuzz::keys().state_key, box.data(),
                                      box.size()) == P2B_OK,
          "a fresh agent refuses an encrypted state");

  // Mode 0 needs one seed (its hash blocks mutation); the hash-appending
  // modes get the states worth mutating.
  require(p2b_agent_restore(check.init(), p2b_fuzz::keys().state_key, with_model.data(),
                            with_model.size()) == P2B_OK,
          "a fresh agent refuses a saved state");
  write_seed("fuzz_state", "saved-model", 0, with_model);
  const struct {
    const char* name;
    const Bytes* state;
    int mode;
  } bodies[] = {{"body-history", &with_history, 1},
                {"body-model", &with_model, 1},
                {"body-boxed-history", &with_history, 3}};
  for (const auto& b : bodies) {
    require(p2b_agent_restore(check.init(), p2b_fuzz::keys().state_key, b.state->data(),
                              b.state->size()) == P2B_OK,
            "a fresh agent refuses a saved state");
    const size_t body = b.state->size() - kTrailer;
    Bytes remaced = *b.state;
    p2b_test::reseal_state(&remaced, p2b_fuzz::keys().state_key);
    require(remaced == *b.state,
            "saved state does not end in the MAC fuzz_state appends: update fuzz_state and here");
    write_seed("fuzz_state", b.name, b.mode, b.state->data(), body);
  }
}

// Signed batches (a few records of fixed bytes: the verifier does not open
// inner layers) and acks, with the fixture's keys.
void batch_seeds() {
  const p2b_fuzz::Keys& k = p2b_fuzz::keys();
  p2b::server::Batch batch;
  for (uint8_t i = 0; i < 16; ++i) batch.id[i] = static_cast<uint8_t>(0xB0 + i);
  batch.partition = 2;
  for (uint32_t r = 0; r < 6; ++r) {
    p2b::server::BatchRecord rec;
    rec.crowd_id = r % 3;
    for (size_t i = 0; i < rec.inner.size(); ++i) rec.inner[i] = static_cast<uint8_t>(r * 31 + i);
    batch.records.push_back(rec);
  }
  p2b::server::Batch empty;
  empty.id = batch.id;
  // A shuffler with a noisy threshold: sigma's eight bytes are not all zero.
  p2b::server::Batch noisy = batch;
  noisy.thresholds = {7, 2.5};
  const struct {
    const char* name;
    const p2b::server::Batch* batch;
    int key;
  } cases[] = {{"batch-6", &batch, 1},
               {"batch-empty", &empty, 1},
               {"batch-retired-key", &batch, 0},
               {"batch-noisy-threshold", &noisy, 1}};
  for (const auto& c : cases) {
    const Bytes bytes = p2b::server::encode_signed_batch(*c.batch, k.shuffler_sign_sk[c.key]);
    p2b::server::VerifiedBatch v;
    std::string err;
    require(p2b::server::verify_batch(bytes.data(), bytes.size(), k.shuffler_verify, 2, &v, &err) ==
                p2b::server::BatchCheck::ok,
            "verify_batch refuses a signed batch");
    write_seed("fuzz_batch", c.name, 0, bytes);
    if (c.key == 1) {
      write_seed("fuzz_batch", std::string("signed-part-") + c.name, 1, bytes.data(),
                 bytes.size() - crypto_sign_BYTES);
    }
    // Counts that add up: half applied, a third quarantined, the rest replays.
    p2b::server::BatchAck ack{v.batch.id, v.digest, 7};
    ack.records = static_cast<uint32_t>(v.batch.records.size());
    ack.applied = ack.records / 2;
    ack.quarantined = ack.records / 3;
    ack.refused[1] = ack.records - ack.applied - ack.quarantined;
    const Bytes ack_bytes = p2b::server::encode_signed_ack(ack, k.sign_sk);
    require(p2b::server::verify_ack(ack_bytes.data(), ack_bytes.size(), k.verify_pk, &ack) ==
                p2b::server::AckCheck::ok,
            "verify_ack refuses a signed ack");
    write_seed("fuzz_batch_ack", std::string("ack-") + c.name, 0, ack_bytes);
    write_seed("fuzz_batch_ack", std::string("signed-part-") + c.name, 1, ack_bytes.data(),
               ack_bytes.size() - crypto_sign_BYTES);
  }
}

// Lists of one key and of four (the current one third, with a not-after
// time), signed with the fixed analyzer key, each applied to be sure.
void key_list_seeds() {
  const p2b_fuzz::Keys& k = p2b_fuzz::keys();
  struct Seed {
    const char* name;
    uint32_t count, current;
    uint64_t not_after;
  };
  for (const Seed& s : {Seed{"one-key", 1, 0, 0}, Seed{"four-keys", 4, 2, 1795003600}}) {
    p2b::KeyList l{};
    l.version = 2;
    l.created_unix = 1794990000;
    l.not_after_unix = s.not_after;
    l.count = s.count;
    l.current = s.current;
    for (uint32_t i = 0; i < s.count; ++i) {
      std::memcpy(l.keys[i], i % 2 == 0 ? k.shuffler[i / 2].pk : k.analyzer[i / 2].pk,
                  p2b::kPublicKeyBytes);
    }
    crypto_generichash(l.signer_fp, sizeof l.signer_fp, k.verify_pk, sizeof k.verify_pk, nullptr,
                       0);
    Bytes list(p2b::kKeyListBytes);
    require(p2b::encode_key_list(l, list.data()) == p2b::Status::ok, "encode_key_list");
    crypto_sign_detached(list.data() + p2b::kKeyListSignedBytes, nullptr, list.data(),
                         p2b::kKeyListSignedBytes, k.sign_sk);
    p2b_fuzz::FixedAgent agent(p2b_fuzz::agent_config());
    require(p2b_agent_apply_key_list(agent.init(), list.data(), list.size(), 1795000000) == P2B_OK,
            "the agent refuses a seed key list");
    write_seed("fuzz_key_list", std::string("list-") + s.name, 0, list);
    write_seed("fuzz_key_list", std::string("signed-part-") + s.name, 1, list.data(),
               p2b::kKeyListSignedBytes);
  }
}

// P2BQ bundles for party 1 of the fixture's d = 6 mask, sealed and as signed
// parts; for mode 2, a d = 5 block of party 2 at a newer epoch.
void mask_bundle_seeds() {
  namespace fv = p2b_fuzz::vfl;
  const p2b_fuzz::Keys& k = p2b_fuzz::keys();
  constexpr uint64_t kCreated = 1795000000;
  Bytes sealed;
  std::string err;
  require(p2b::vfl::seal_mask_bundle(fv::mask(), fv::partition(), fv::kParty, kCreated, k.sign_sk,
                                     fv::party_key().pk, &sealed, &err),
          "seal_mask_bundle");
  p2b::vfl::OpenedBundle opened;
  require(p2b::vfl::open_mask_bundle(sealed.data(), sealed.size(), fv::party_key().pk,
                                     fv::party_key().sk, k.verify_pk, {fv::kParty, fv::kD, nullptr},
                                     &opened) == p2b::vfl::BundleStatus::ok,
          "the party refuses a seed bundle");
  write_seed("fuzz_mask_bundle", "bundle-d6", 0, sealed);
  Bytes plain;
  require(p2b::vfl::encode_mask_bundle(fv::mask(), fv::partition(), fv::kParty, kCreated, k.sign_sk,
                                       &plain, &err),
          "encode_mask_bundle");
  write_seed("fuzz_mask_bundle", "signed-part-d6", 1, plain.data(),
             plain.size() - crypto_sign_BYTES);
  uint8_t seed[p2b::vfl::kMaskSeedBytes];
  std::memset(seed, 0x3E, sizeof seed);
  p2b::vfl::Mask newer;
  require(p2b::vfl::draw_mask(seed, 5, fv::kEpoch + 1, &newer) == p2b::vfl::MaskStatus::ok,
          "draw_mask");
  require(p2b::vfl::encode_mask_bundle(newer, {1, 2, 2}, 2, kCreated, k.sign_sk, &plain, &err),
          "encode_mask_bundle");
  p2b::vfl::MaskVersion last;
  last.epoch = fv::kEpoch;
  require(p2b::vfl::verify_mask_bundle(plain.data(), plain.size(), k.verify_pk, {2, 5, &last},
                                       &opened) == p2b::vfl::BundleStatus::ok,
          "the party refuses a seed bundle");
  write_seed("fuzz_mask_bundle", "signed-part-d5-party2", 2, plain.data(),
             plain.size() - crypto_sign_BYTES);
}

// P2BV messages of party 1: K' = 3, d = 6 whole, and the prefix and
// plaintext of it and of a K' = 2 one for the plaintext modes.
void masked_message_seeds() {
  namespace fv = p2b_fuzz::vfl;
  std::mt19937_64 rng(0x0B5C);
  std::normal_distribution<double> g;
  p2b::vfl::MaskBlock b;
  require(p2b::vfl::block(fv::mask(), fv::partition(), fv::kParty, &b), "block");
  for (const uint32_t items : {fv::kItems, 2U}) {
    std::vector<double> x(static_cast<size_t>(items) * b.d_j);
    for (double& v : x) v = g(rng);
    std::vector<double> masked(static_cast<size_t>(items) * fv::kD);
    require(p2b::vfl::mask_block(b, x.data(), items, masked.data()), "mask_block");
    p2b::vfl::MaskedHeader h;
    std::memcpy(h.mask_id, fv::mask().mask_id, sizeof h.mask_id);
    h.epoch = fv::kEpoch;
    h.party_index = fv::kParty;
    h.round_id = 7;
    std::memset(h.user_token, 0x70, sizeof h.user_token);
    h.k_items = items;
    h.d = fv::kD;
    Bytes msg;
    std::string err;
    require(p2b::vfl::seal_masked_message(h, masked.data(), fv::party_key().sk, fv::ap_key().pk,
                                          &msg, &err),
            "seal_masked_message");
    p2b::vfl::MessageExpect e = fv::message_expect();
    e.k_items = items;
    p2b::vfl::MaskedMessage opened;
    require(
        p2b::vfl::open_masked_message(msg.data(), msg.size(), fv::ap_key().sk, fv::party_key().pk,
                                      e, &opened) == p2b::vfl::MessageStatus::ok,
        "the active party refuses a seed message");
    // The documented nonce: "P2BV" | party | round | 0x01 | zeros.
    uint8_t nonce[crypto_box_NONCEBYTES] = {'P', '2', 'B', 'V'};
    std::memcpy(nonce + 4, msg.data() + 4, 12);
    nonce[16] = 0x01;
    constexpr size_t kPrefix = p2b::vfl::kMaskedPrefixBytes;
    Bytes plain(msg.begin(), msg.begin() + kPrefix);
    plain.resize(msg.size() - crypto_box_MACBYTES);
    require(crypto_box_open_easy(plain.data() + kPrefix, msg.data() + kPrefix, msg.size() - kPrefix,
                                 nonce, fv::party_key().pk, fv::ap_key().sk) == 0,
            "crypto_box_open_easy");
    const std::string name = "k" + std::to_string(items) + "-d6";
    if (items == fv::kItems) {
      write_seed("fuzz_masked_message", "message-" + name, 0, msg);
      write_seed("fuzz_masked_message", "plain-" + name, 1, plain);
    }
    write_seed("fuzz_masked_message", "plain-any-shape-" + name, 2, plain);
  }
}

// P2BR requests to party 1 from the fixture's active party: 3 items and
// 1 item whole, and the prefix and plaintext of each.
void masked_request_seeds() {
  namespace fv = p2b_fuzz::vfl;
  for (const uint32_t items : {3U, 1U}) {
    p2b::vfl::MaskedRequest r;
    r.party_index = fv::kParty;
    r.round_id = 11;
    std::memset(r.user_token, 0x5A, sizeof r.user_token);
    for (uint32_t i = 0; i < items; ++i) r.item_ids.push_back(100 + i);
    Bytes msg;
    std::string err;
    require(p2b::vfl::seal_masked_request(r, fv::ap_key().sk, fv::party_key().pk, &msg, &err),
            "seal_masked_request");
    p2b::vfl::MaskedRequest opened;
    require(
        p2b::vfl::open_masked_request(msg.data(), msg.size(), fv::party_key().sk, fv::ap_key().pk,
                                      fv::kParty, 0, &opened) == p2b::vfl::RequestStatus::ok,
        "the party refuses a seed request");
    // The documented nonce: "P2BR" | party | round | 0x02 | zeros.
    uint8_t nonce[crypto_box_NONCEBYTES] = {'P', '2', 'B', 'R'};
    std::memcpy(nonce + 4, msg.data() + 4, 12);
    nonce[16] = 0x02;
    constexpr size_t kPrefix = p2b::vfl::kRequestPrefixBytes;
    Bytes plain(msg.begin(), msg.begin() + kPrefix);
    plain.resize(msg.size() - crypto_box_MACBYTES);
    require(crypto_box_open_easy(plain.data() + kPrefix, msg.data() + kPrefix, msg.size() - kPrefix,
                                 nonce, fv::ap_key().pk, fv::party_key().sk) == 0,
            "crypto_box_open_easy");
    const std::string name = "k" + std::to_string(items);
    write_seed("fuzz_masked_request", "request-" + name, 0, msg);
    write_seed("fuzz_masked_request", "plain-" + name, 1, plain);
  }
}

}  // namespace

// Saved shared-model states as fuzz_shared_state's models have them (d = 3,
// 4 items, a ring of 4), after a few decisions, half of them rewarded: with
// the MAC (bit 0 clear) and without it (bit 0 set), in f64 and f32.
void shared_state_seeds() {
  for (const uint32_t precision : {P2B_PRECISION_F64, P2B_PRECISION_F32}) {
    p2b_shared_config c;
    require(p2b_shared_config_default(&c) == P2B_OK, "shared config");
    c.dim = 3;
    c.max_items = 4;
    c.pending_capacity = 4;
    c.precision = precision;
    c.tie_rel_tol = 1e-9;
    c.rng_mode = P2B_RNG_SEEDED;
    size_t need = 0;
    require(p2b_shared_model_footprint(&c, &need) == P2B_OK, "shared footprint");
    std::vector<unsigned char> arena(need + P2B_ARENA_ALIGN);
    const auto addr = reinterpret_cast<uintptr_t>(arena.data());
    void* mem = arena.data() + (P2B_ARENA_ALIGN - addr % P2B_ARENA_ALIGN) % P2B_ARENA_ALIGN;
    p2b_shared_model* m = nullptr;
    require(p2b_shared_model_init(mem, need, &c, &m) == P2B_OK, "shared init");
    const double items[12] = {0.5, -0.2, 0.1, -1, 0, 0.3, 0.2, 0.2, 0.2, 0, 1, -0.5};
    for (int i = 0; i < 6; ++i) {
      uint32_t item = 0;
      uint64_t id = 0;
      require(p2b_shared_model_decide(m, items, 4, 3, &item, &id) == P2B_OK, "shared decide");
      if (i % 2 == 0) require(p2b_shared_model_reward(m, id, 0.75) == P2B_OK, "shared reward");
    }
    size_t len = 0;
    require(p2b_shared_model_save_size(m, &len) == P2B_OK, "shared save size");
    Bytes state(len);
    size_t written = 0;
    require(
        p2b_shared_model_save(m, p2b_fuzz::keys().state_key, state.data(), len, &written) == P2B_OK,
        "shared save");
    const int single = precision == P2B_PRECISION_F32 ? 2 : 0;
    const std::string name = precision == P2B_PRECISION_F32 ? "f32" : "f64";
    write_seed("fuzz_shared_state", "saved-" + name, single, state);
    write_seed("fuzz_shared_state", "body-" + name, single | 1, state.data(), len - 32);
  }
}

// FCLUB warm starts as fuzz_shared_model_bundle's models take them (d = 3):
// a cluster's S and u from a few rounds, as downloaded (mode 0, no time, f64)
// and as signed bodies (mode 1; mode 3 with a not-after time for the timed
// f32 model). Each is checked to apply first.
void shared_model_bundle_seeds() {
  const double gram[9] = {2.1, 0.3, -0.4, 0.3, 1.7, 0.2, -0.4, 0.2, 1.2};
  const double moment[3] = {0.9, -0.35, 0.5};
  const struct {
    const char* name;
    uint64_t version;
    uint64_t not_after_unix;
    int mode;
  } seeds[] = {{"bundle-v1", 1, 0, 0},
               {"body-v1", 1, 0, 1},
               {"body-v-large", 0xFEDCBA9876543210ULL, 0, 1},
               {"body-not-after", 2, 1795003600, 3}};
  for (const auto& s : seeds) {
    p2b::server::ModelSpec spec;
    spec.dim = 3;
    spec.ridge_lambda = 1.0;
    spec.version = s.version;
    spec.created_unix = 1795000000;
    spec.not_after_unix = s.not_after_unix;
    Bytes bundle;
    std::string err;
    require(p2b::server::build_shared_model_bundle(spec, gram, moment, p2b_fuzz::keys().sign_sk,
                                                   &bundle, &err),
            "build_shared_model_bundle");
    p2b_shared_config c;
    require(p2b_shared_config_default(&c) == P2B_OK, "shared config");
    c.dim = 3;
    c.max_items = 4;
    c.pending_capacity = 4;
    c.precision = (s.mode & 2) != 0 ? P2B_PRECISION_F32 : P2B_PRECISION_F64;
    c.rng_mode = P2B_RNG_SEEDED;
    c.analyzer_verify_key = p2b_fuzz::keys().verify_pk;
    size_t need = 0;
    require(p2b_shared_model_footprint(&c, &need) == P2B_OK, "shared footprint");
    std::vector<unsigned char> arena(need + P2B_ARENA_ALIGN);
    const auto addr = reinterpret_cast<uintptr_t>(arena.data());
    void* mem = arena.data() + (P2B_ARENA_ALIGN - addr % P2B_ARENA_ALIGN) % P2B_ARENA_ALIGN;
    p2b_shared_model* m = nullptr;
    require(p2b_shared_model_init(mem, need, &c, &m) == P2B_OK, "shared init");
    require(p2b_shared_model_apply_model_at(m, bundle.data(), bundle.size(), 1795000000) == P2B_OK,
            "a fresh shared model refuses a bundle");
    const size_t len = (s.mode & 1) != 0 ? bundle.size() - crypto_sign_BYTES : bundle.size();
    write_seed("fuzz_shared_model_bundle", s.name, s.mode, bundle.data(), len);
  }
}

// The services' files: feature CSVs (item rows and user rows, for the
// all-zero user the target looks up) and a state file.
void vfl_files_seeds() {
  const std::string zero(32, '0');
  const std::string items = "# user,item,f1,f2,f3\n" + zero + ",0,0.5,-1,2e-3\n" + zero +
                            ",1,1,0,-0.25\n" + std::string(31, '0') + "1,0,3,3,3\n";
  const std::string users = zero + ",*,0.1,0.2,0.3\n";
  const std::string state = "p2b-vfl-state 1\nround_id 41\nmask_epoch 2\n";
  write_seed("fuzz_vfl_files", "items", 0, reinterpret_cast<const uint8_t*>(items.data()),
             items.size());
  write_seed("fuzz_vfl_files", "users", 0, reinterpret_cast<const uint8_t*>(users.data()),
             users.size());
  write_seed("fuzz_vfl_files", "state", 1, reinterpret_cast<const uint8_t*>(state.data()),
             state.size());
}

// FCLUB uploads and downloads (fclub_fixture.hpp): sealed at the
// deployment's d = 3 (uploads by the local server's current and retired
// keys), and, for the unsealed modes, the padded plaintext and the message
// with its pad byte at d = 3 and d = 1.
template <class Side>
void fclub_side_seeds(const char* target, const typename Side::Msg& d3,
                      const typename Side::Msg& d1, const uint8_t* retired_sk) {
  namespace ff = p2b_fuzz::fclub;
  std::string err;
  for (const uint8_t* sk : {Side::current_sign_sk(), retired_sk}) {
    if (sk == nullptr) continue;
    Bytes w;
    require(Side::seal(d3, sk, &w, &err), "sealing an FCLUB seed");
    typename Side::Msg opened;
    require(Side::open(w.data(), w.size(), ff::expect(ff::kDim), &opened, &err) ==
                p2b::fclub::OpenStatus::ok,
            "an FCLUB seed does not open");
    write_seed(target, sk == retired_sk ? "sealed-d3-retired-key" : "sealed-d3", 0, w);
  }
  for (const typename Side::Msg* m : {&d3, &d1}) {
    Bytes padded;
    require(Side::pad(*m, Side::current_sign_sk(), &padded, &err), "padding an FCLUB seed");
    typename Side::Msg opened;
    require(Side::check(padded.data(), padded.size(), ff::expect(0), &opened, &err) ==
                p2b::fclub::OpenStatus::ok,
            "an FCLUB seed's plaintext is refused");
    const std::string name = "d" + std::to_string(m->stats.dim);
    Bytes message{static_cast<uint8_t>(m->stats.dim - 1)};
    const Bytes body = ff::message_of(padded);
    message.insert(message.end(), body.begin(), body.end());
    write_seed(target, "message-" + name, 1, message);
    write_seed(target, "plain-" + name, 2, padded);
  }
}

void fclub_seeds() {
  namespace ff = p2b_fuzz::fclub;
  p2b::fclub::Upload u1 = ff::upload(1);
  u1.seq = 0;
  fclub_side_seeds<ff::UploadSide>("fuzz_fclub_upload", ff::upload(ff::kDim), u1,
                                   p2b_fuzz::keys().shuffler_sign_sk[0]);
  p2b::fclub::Download d1 = ff::download(1);
  d1.kind = p2b::fclub::kDownloadReplace;
  fclub_side_seeds<ff::DownloadSide>("fuzz_fclub_download", ff::download(ff::kDim), d1, nullptr);
}

// p2b-fclub-local's request bodies (d = 5, 8 users): valid ones of each
// kind and a few near misses.
void fclub_request_seeds() {
  const std::pair<const char*, const char*> seeds[] = {
      {"recommend", R"({"user":3,"items":[[0.5,0,0,0,0.7],[0,0.5,0,0,0.7]]})"},
      {"reward", R"({"user":0,"x":[0.6,0,0,0,0.6],"reward":1})"},
      {"user-too-big", R"({"user":8,"x":[0.6,0,0,0,0.6],"reward":0})"},
      {"short-row", R"({"user":1,"items":[[0.5,0,0,0]]})"},
      {"not-json", "user=1&reward=1"},
  };
  for (const auto& [name, body] : seeds) {
    write_seed("fuzz_fclub_requests", name, -1, reinterpret_cast<const uint8_t*>(body),
               std::strlen(body));
  }
}

// P-FCB (pfcb_fixture.hpp): a posting by each member at m = 4, a Share
// body for the harness to seal, and the relay's queries and members files.
Bytes pfcb_share_body(uint32_t release) {
  namespace pf = p2b_fuzz::pfcb;
  p2b_pfcb_v1_Share sh = p2b_pfcb_v1_Share_init_zero;
  sh.format = 1;
  sh.producers = pf::kProducers;
  sh.release = release;
  sh.round = 256;
  sh.release_epsilon = 0.125;
  sh.w_noisy_count = sh.y_noisy_count = pf::kProducers;
  for (uint32_t i = 0; i < pf::kProducers; ++i) {
    sh.w_noisy[i] = 40 - 7 * static_cast<int32_t>(i);
    sh.y_noisy[i] = 3 * static_cast<int32_t>(i) - 2;
  }
  Bytes body(p2b::pfcb::share_body_size(pf::kProducers));
  pb_ostream_t os = pb_ostream_from_buffer(body.data(), body.size());
  require(pb_encode(&os, &p2b_pfcb_v1_Share_msg, &sh) && os.bytes_written == body.size(),
          "encoding a P-FCB share seed");
  return body;
}

void pfcb_seeds() {
  namespace pf = p2b_fuzz::pfcb;
  namespace pw = p2b::pfcb;
  for (std::size_t i = 0; i < pf::kMembers; ++i) {
    const auto release = static_cast<uint32_t>(i + 1);
    const Bytes body = pfcb_share_body(release);
    Bytes posting;
    std::string err;
    require(pw::seal_posting_body(body.data(), body.size(), pf::kProducers, release,
                                  pf::member_sign_sk(i), pf::consortium_key(), &posting, &err),
            "sealing a P-FCB seed");
    pw::PostingHeader h;
    require(pw::verify_posting_signature(posting.data(), posting.size(), pf::kProducers,
                                         pf::consortium_fp(), pf::members(), &h,
                                         nullptr) == pw::PostingStatus::ok,
            "a P-FCB seed is refused");
    const std::string name = "posting-member" + std::to_string(i);
    write_seed("fuzz_pfcb_posting", name, 0, posting);
    write_seed("fuzz_pfcb_relay_requests", name, 2, posting);
  }
  write_seed("fuzz_pfcb_posting", "body-release1", 1, pfcb_share_body(1));
  const std::string own = pw::fingerprint_hex(pf::members().fingerprint(1));
  const std::pair<std::string, std::string> queries[] = {
      {"first", "after=0&limit=64"},
      {"exclude", "after=12&exclude=" + own + "&limit=1"},
      {"bad-after", "after=-1"},
      {"repeated", "limit=2&limit=3"},
  };
  for (const auto& [name, q] : queries) {
    write_seed("fuzz_pfcb_relay_requests", "query-" + name, 0,
               reinterpret_cast<const uint8_t*>(q.data()), q.size());
  }
  std::string members = "# three members\n";
  for (std::size_t i = 0; i < pf::kMembers; ++i) {
    char hex[2 * pw::kVerifyKeyBytes + 1];
    sodium_bin2hex(hex, sizeof hex, pf::member_sign_sk(i) + pw::kSignKeyBytes - pw::kVerifyKeyBytes,
                   pw::kVerifyKeyBytes);
    members += std::string(hex) + (i == 1 ? "\r\n\n" : "\n");
  }
  write_seed("fuzz_pfcb_relay_requests", "members", 1,
             reinterpret_cast<const uint8_t*>(members.data()), members.size());
}
// P-FCB shares (m = 4, as the target's receiver): one inside the band, one
// outside, one with no units, and one of another m.
void cmab_share_seeds() {
  auto share = [](uint32_t m, uint32_t release, int32_t w, int32_t y) {
    p2b::CmabShare s;
    s.producers = m;
    s.release = release;
    s.round = 256;
    s.release_epsilon = 0.09;
    for (uint32_t i = 0; i < m; ++i) {
      s.w_noisy[i] = w;
      s.y_noisy[i] = y;
    }
    Bytes out(p2b::cmab_share_encoded_size(m));
    size_t n = 0;
    require(p2b::cmab_share_encode(s, out.data(), out.size(), &n) == p2b::Status::ok,
            "encoding a share seed");
    return out;
  };
  write_seed("fuzz_cmab_share", "inside-band", 0, share(4, 1, 40, 20));
  write_seed("fuzz_cmab_share", "outside-band", 1, share(4, 2, 40, 39));
  write_seed("fuzz_cmab_share", "no-units", 0, share(4, 3, 0, 0));
  write_seed("fuzz_cmab_share", "other-m", 1, share(5, 1, 40, 20));
}

// Saved P-FCB agent states of fuzz_cmab_state's configuration: fresh, after
// releases with a share waiting, and mid-round (a decision awaiting its
// observation); with the MAC (mode 0) and as bodies (mode 1).
void cmab_state_seeds() {
  p2b_fuzz::CmabFixture fixture(p2b_fuzz::tune_for_state);
  auto seed = [](const std::string& name, const Bytes& state) {
    write_seed("fuzz_cmab_state", "saved-" + name, 0, state);
    write_seed("fuzz_cmab_state", "body-" + name, 1, state.data(),
               state.size() - 32);  // the MAC
  };
  p2b_cmab* a = fixture.fresh();
  seed("fresh", p2b_fuzz::CmabFixture::saved(a));
  p2b_fuzz::CmabFixture::play(a, 12);
  seed("released", p2b_fuzz::CmabFixture::saved(a));
  uint32_t units[p2b_fuzz::kCmabProducers];
  require(p2b_cmab_decide(a, units, p2b_fuzz::kCmabProducers) == P2B_OK, "cmab decide");
  seed("mid-round", p2b_fuzz::CmabFixture::saved(a));
}

// P-FCB peer checkpoints as a restarted agent reads them: the saved state
// of fuzz_cmab_state's agent after releases, the fetch cursor, and two
// postings waiting (their bytes stand in for sealed P2BX: the checkpoint
// does not open them). As a sealed file (mode 0) and as a body (mode 1);
// one with nothing waiting.
void pfcb_checkpoint_seeds() {
  p2b_fuzz::CmabFixture fixture(p2b_fuzz::tune_for_state);
  p2b_cmab* a = fixture.fresh();
  p2b_fuzz::CmabFixture::play(a, 12);
  p2b::pfcb::Checkpoint c;
  c.cursor = 41;
  c.agent_state = p2b_fuzz::CmabFixture::saved(a);
  c.postings.push_back({2, Bytes(229, 0x21)});
  c.postings.push_back({3, Bytes(229, 0x31)});
  Bytes sealed;
  require(p2b::pfcb::seal_checkpoint(c, p2b_fuzz::keys().state_key, &sealed), "checkpoint seal");
  write_seed("fuzz_pfcb_checkpoint", "sealed-two-waiting", 0, sealed);
  write_seed("fuzz_pfcb_checkpoint", "body-two-waiting", 1, p2b::pfcb::encode_checkpoint_body(c));
  c.postings.clear();
  write_seed("fuzz_pfcb_checkpoint", "body-none-waiting", 1, p2b::pfcb::encode_checkpoint_body(c));
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  g_out = argv[1];
  (void)p2b_fuzz::keys();  // installs the fixed randombytes before anything seals
  envelope_seeds();
  model_seeds();
  codebook_seeds();
  state_seeds();
  batch_seeds();
  key_list_seeds();
  mask_bundle_seeds();
  masked_message_seeds();
  masked_request_seeds();
  shared_state_seeds();
  shared_model_bundle_seeds();
  vfl_files_seeds();
  fclub_seeds();  // last: the seeds before it draw the fixed randomness as they did
  fclub_request_seeds();
  cmab_share_seeds();
  cmab_state_seeds();
  pfcb_seeds();             // last again: it draws the fixed randomness (nonces)
  pfcb_checkpoint_seeds();  // after it: its nonce draws the fixed randomness too
  std::printf("make_corpus: seeds written under %s\n", g_out.c_str());
  return 0;
}
