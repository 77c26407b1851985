// The C API of the passive party (p2b_vfl.h) over mask_bundle, party_mask
// and masked_message. It adds no behaviour of its own.
#include <sodium.h>

#include <cmath>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "vfl/mask_bundle.hpp"
#include "vfl/masked_message.hpp"
#include "vfl/p2b_vfl.h"
#include "vfl/party_mask.hpp"

struct p2b_vfl_party {
  p2b::vfl::MaskBlock block;
  uint8_t box_sk[P2B_VFL_KEY_BYTES] = {};
  ~p2b_vfl_party() { sodium_memzero(box_sk, sizeof box_sk); }
};

namespace {

using p2b::vfl::BundleStatus;

p2b_vfl_status from_bundle(BundleStatus s) {
  switch (s) {
    case BundleStatus::ok:
      return P2B_VFL_OK;
    case BundleStatus::bad_length:
      return P2B_VFL_ERR_BAD_LENGTH;
    case BundleStatus::not_openable:
      return P2B_VFL_ERR_NOT_OPENABLE;
    case BundleStatus::malformed:
      return P2B_VFL_ERR_MALFORMED;
    case BundleStatus::untrusted_signer:
      return P2B_VFL_ERR_UNTRUSTED_SIGNER;
    case BundleStatus::bad_signature:
      return P2B_VFL_ERR_BAD_SIGNATURE;
    case BundleStatus::wrong_party:
      return P2B_VFL_ERR_WRONG_PARTY;
    case BundleStatus::wrong_dimension:
      return P2B_VFL_ERR_WRONG_DIMENSION;
    case BundleStatus::bad_partition:
    case BundleStatus::zero_block:
      return P2B_VFL_ERR_BAD_PARTITION;
    case BundleStatus::rollback:
      return P2B_VFL_ERR_ROLLBACK;
    case BundleStatus::not_orthonormal:
      return P2B_VFL_ERR_NOT_ORTHONORMAL;
  }
  return P2B_VFL_ERR_MALFORMED;
}

bool all_finite(const double* v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(v[i])) return false;
  }
  return true;
}

}  // namespace

extern "C" {

const char* p2b_vfl_status_str(p2b_vfl_status s) {
  switch (s) {
    case P2B_VFL_OK:
      return "ok";
    case P2B_VFL_ERR_NULL_POINTER:
      return "a required pointer is NULL";
    case P2B_VFL_ERR_BAD_LENGTH:
      return "bundle length does not match its header";
    case P2B_VFL_ERR_NOT_OPENABLE:
      return "the bundle's seal does not open: another key or a changed bit";
    case P2B_VFL_ERR_MALFORMED:
      return "not a P2BQ bundle of a known format";
    case P2B_VFL_ERR_UNTRUSTED_SIGNER:
      return "bundle signed by a key other than the pinned PMG key";
    case P2B_VFL_ERR_BAD_SIGNATURE:
      return "the PMG's signature does not verify";
    case P2B_VFL_ERR_WRONG_PARTY:
      return "bundle for another party index";
    case P2B_VFL_ERR_WRONG_DIMENSION:
      return "bundle for another d";
    case P2B_VFL_ERR_BAD_PARTITION:
      return "blocks do not sum to d, or a block is empty";
    case P2B_VFL_ERR_ROLLBACK:
      return "epoch is not above the last one accepted";
    case P2B_VFL_ERR_NOT_ORTHONORMAL:
      return "the block's columns are not orthonormal";
    case P2B_VFL_ERR_SHAPE:
      return "item count is 0 or a buffer has the wrong size";
    case P2B_VFL_ERR_NON_FINITE:
      return "a feature value is NaN or infinite";
    case P2B_VFL_ERR_ROUND:
      return "round id 0 is never sealed";
    case P2B_VFL_ERR_CRYPTO:
      return "libsodium failed";
    case P2B_VFL_ERR_OUT_OF_MEMORY:
      return "out of memory";
  }
  return "unknown status";
}

p2b_vfl_status p2b_vfl_party_open(const uint8_t* bundle, size_t len, const uint8_t* party_box_pk,
                                  const uint8_t* party_box_sk, const uint8_t* pmg_sign_pk,
                                  uint32_t party_index, uint32_t d, uint64_t last_epoch,
                                  p2b_vfl_party** out) {
  if (bundle == nullptr || party_box_pk == nullptr || party_box_sk == nullptr ||
      pmg_sign_pk == nullptr || out == nullptr) {
    return P2B_VFL_ERR_NULL_POINTER;
  }
  p2b::vfl::MaskVersion last;
  last.epoch = last_epoch;
  p2b::vfl::BundleExpect expect;
  expect.party_index = party_index;
  expect.d = d;
  expect.last_accepted = last_epoch == 0 ? nullptr : &last;
  p2b::vfl::OpenedBundle opened;
  const BundleStatus st = p2b::vfl::open_mask_bundle(bundle, len, party_box_pk, party_box_sk,
                                                     pmg_sign_pk, expect, &opened);
  if (st != BundleStatus::ok) return from_bundle(st);
  auto* party = new (std::nothrow) p2b_vfl_party();
  if (party == nullptr) return P2B_VFL_ERR_OUT_OF_MEMORY;
  party->block = std::move(opened.block);
  std::memcpy(party->box_sk, party_box_sk, P2B_VFL_KEY_BYTES);
  *out = party;
  return P2B_VFL_OK;
}

void p2b_vfl_party_free(p2b_vfl_party* party) {
  delete party;
}

p2b_vfl_status p2b_vfl_party_info(const p2b_vfl_party* party, uint32_t* d, uint32_t* d_j,
                                  uint64_t* epoch, uint8_t* mask_id) {
  if (party == nullptr) return P2B_VFL_ERR_NULL_POINTER;
  if (d != nullptr) *d = party->block.d;
  if (d_j != nullptr) *d_j = party->block.d_j;
  if (epoch != nullptr) *epoch = party->block.epoch;
  if (mask_id != nullptr) std::memcpy(mask_id, party->block.mask_id, P2B_VFL_MASK_ID_BYTES);
  return P2B_VFL_OK;
}

p2b_vfl_status p2b_vfl_party_mask(const p2b_vfl_party* party, const double* x_j, uint32_t k_items,
                                  double* out, size_t out_len) {
  if (party == nullptr || x_j == nullptr || out == nullptr) return P2B_VFL_ERR_NULL_POINTER;
  const p2b::vfl::MaskBlock& b = party->block;
  if (k_items == 0 || out_len != static_cast<size_t>(k_items) * b.d) return P2B_VFL_ERR_SHAPE;
  if (!all_finite(x_j, static_cast<size_t>(k_items) * b.d_j)) return P2B_VFL_ERR_NON_FINITE;
  return p2b::vfl::mask_block(b, x_j, k_items, out) ? P2B_VFL_OK : P2B_VFL_ERR_SHAPE;
}

size_t p2b_vfl_message_bytes(uint32_t k_items, uint32_t d) {
  return p2b::vfl::masked_message_bytes(k_items, d);
}

p2b_vfl_status p2b_vfl_party_seal(const p2b_vfl_party* party, const uint8_t* ap_box_pk,
                                  uint64_t round_id, const uint8_t* user_token, const double* x_j,
                                  uint32_t k_items, uint8_t* out, size_t cap, size_t* written) {
  if (party == nullptr || ap_box_pk == nullptr || user_token == nullptr || x_j == nullptr ||
      out == nullptr || written == nullptr) {
    return P2B_VFL_ERR_NULL_POINTER;
  }
  const p2b::vfl::MaskBlock& b = party->block;
  if (k_items == 0 || cap < p2b::vfl::masked_message_bytes(k_items, b.d)) {
    return P2B_VFL_ERR_SHAPE;
  }
  if (round_id == 0) return P2B_VFL_ERR_ROUND;
  std::vector<double> masked(static_cast<size_t>(k_items) * b.d);
  const p2b_vfl_status st = p2b_vfl_party_mask(party, x_j, k_items, masked.data(), masked.size());
  if (st != P2B_VFL_OK) return st;
  p2b::vfl::MaskedHeader h;
  std::memcpy(h.mask_id, b.mask_id, P2B_VFL_MASK_ID_BYTES);
  h.epoch = b.epoch;
  h.party_index = b.party_index;
  h.round_id = round_id;
  std::memcpy(h.user_token, user_token, P2B_VFL_TOKEN_BYTES);
  h.k_items = k_items;
  h.d = b.d;
  std::vector<uint8_t> msg;
  std::string err;
  if (!p2b::vfl::seal_masked_message(h, masked.data(), party->box_sk, ap_box_pk, &msg, &err)) {
    return P2B_VFL_ERR_CRYPTO;
  }
  std::memcpy(out, msg.data(), msg.size());
  *written = msg.size();
  return P2B_VFL_OK;
}

}  // extern "C"
