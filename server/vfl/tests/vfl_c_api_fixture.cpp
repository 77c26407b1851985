#include "vfl_c_api_fixture.h"

#include <sodium.h>

#include <cstring>
#include <string>
#include <vector>

#include "vfl/mask.hpp"
#include "vfl/mask_bundle.hpp"
#include "vfl/masked_message.hpp"

namespace {
p2b::vfl::Mask g_mask;
}

extern "C" int vfl_fixture_make(vfl_fixture* f) {
  if (sodium_init() < 0) return 1;
  crypto_box_keypair(f->party_pk, f->party_sk);
  crypto_box_keypair(f->ap_pk, f->ap_sk);
  uint8_t pmg_sk[crypto_sign_SECRETKEYBYTES];
  crypto_sign_keypair(f->pmg_pk, pmg_sk);
  uint8_t seed[p2b::vfl::kMaskSeedBytes] = {42};
  if (p2b::vfl::draw_mask(seed, 5, 1, &g_mask) != p2b::vfl::MaskStatus::ok) return 2;
  const p2b::vfl::Partition partition = {2, 3};
  std::vector<uint8_t> sealed;
  std::string err;
  if (!p2b::vfl::seal_mask_bundle(g_mask, partition, 1, 0, pmg_sk, f->party_pk, &sealed, &err) ||
      sealed.size() > sizeof f->bundle) {
    return 3;
  }
  std::memcpy(f->bundle, sealed.data(), sealed.size());
  f->bundle_len = sealed.size();
  p2b::vfl::MaskBlock block;
  if (!p2b::vfl::block(g_mask, partition, 1, &block)) return 4;
  std::memcpy(f->q_block, block.q.data(), sizeof f->q_block);
  sodium_memzero(pmg_sk, sizeof pmg_sk);
  return 0;
}

extern "C" int vfl_fixture_open(const vfl_fixture* f, const uint8_t* msg, size_t len, uint32_t k,
                                uint64_t last_round, double* values) {
  p2b::vfl::MessageExpect expect;
  expect.party_index = 1;
  std::memcpy(expect.current.mask_id, g_mask.mask_id, sizeof expect.current.mask_id);
  expect.current.epoch = g_mask.epoch;
  expect.k_items = k;
  expect.d = 5;
  expect.last_round_id = last_round;
  p2b::vfl::MaskedMessage m;
  if (p2b::vfl::open_masked_message(msg, len, f->ap_sk, f->party_pk, expect, &m) !=
      p2b::vfl::MessageStatus::ok) {
    return 1;
  }
  std::memcpy(values, m.values.data(), m.values.size() * sizeof(double));
  return 0;
}
