// The party's opener of P2BQ mask bundles, p2b::vfl::open_mask_bundle, on
// untrusted bytes. Mode (first byte % 3): 0 the rest is a sealed bundle as
// received; 1 the rest is the signed part, signed here with the fixed PMG key
// and checked by verify_mask_bundle (what the seal hides), expecting d = 6
// and party 1; 2 as 1, but expecting the d and party its own header names,
// with epoch 5 as the last accepted, so any shape and the rollback check are
// reached.
#include <cstring>

#include "vfl_fixture.hpp"
#include "wire/le_bytes.hpp"

namespace {

namespace fv = p2b_fuzz::vfl;
using p2b::vfl::BundleStatus;

uint32_t u32_at(const uint8_t* p, size_t size, size_t off) {
  return size >= off + 4 ? p2b::server::wire::get_u32(p + off) : 0;
}

void check_accepted(const p2b::vfl::OpenedBundle& o, const p2b::vfl::BundleExpect& e,
                    size_t signed_len) {
  const p2b::vfl::MaskBlock& b = o.block;
  p2b_fuzz::require(b.d == e.d && b.party_index == e.party_index, "accepted another shape");
  p2b_fuzz::require(p2b::vfl::check_partition(b.partition, b.d) == p2b::vfl::PartitionCheck::ok,
                    "accepted a bad partition");
  p2b_fuzz::require(b.d_j == b.partition[b.party_index] &&
                        b.col_offset == p2b::vfl::column_offset(b.partition, b.party_index) &&
                        b.col_offset + b.d_j <= b.d,
                    "block position");
  p2b_fuzz::require(b.q.size() == static_cast<size_t>(b.d) * b.d_j, "block size");
  p2b_fuzz::require(p2b::vfl::orthogonality_error(b.q.data(), b.d, b.d_j) <=
                        p2b::vfl::orthogonality_tolerance(b.d),
                    "accepted a block that is not orthonormal");
  p2b_fuzz::require(signed_len == p2b::vfl::mask_bundle_signed_bytes(
                                      static_cast<uint32_t>(b.partition.size()), b.d, b.d_j),
                    "length disagrees with the header");
  p2b_fuzz::require(e.last_accepted == nullptr || b.epoch > e.last_accepted->epoch,
                    "accepted a rollback");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const p2b_fuzz::Keys& k = p2b_fuzz::keys();
  p2b_fuzz::Input in{};
  if (!p2b_fuzz::split_mode(data, size, 3, &in)) return 0;
  p2b::vfl::BundleExpect e{fv::kParty, fv::kD, nullptr};
  p2b::vfl::OpenedBundle out;
  if (in.mode == 0) {
    const BundleStatus st = p2b::vfl::open_mask_bundle(in.data, in.size, fv::party_key().pk,
                                                       fv::party_key().sk, k.verify_pk, e, &out);
    if (st == BundleStatus::ok) {
      check_accepted(out, e, in.size - crypto_box_SEALBYTES - crypto_sign_BYTES);
      // The same bundle again, after it was accepted, is a rollback.
      p2b::vfl::MaskVersion last;
      last.epoch = out.block.epoch;
      e.last_accepted = &last;
      p2b_fuzz::require(
          p2b::vfl::open_mask_bundle(in.data, in.size, fv::party_key().pk, fv::party_key().sk,
                                     k.verify_pk, e, &out) == BundleStatus::rollback,
          "a bundle accepted twice");
    }
    return 0;
  }
  std::vector<uint8_t> plain(in.data, in.data + in.size);
  plain.resize(in.size + crypto_sign_BYTES);
  crypto_sign_detached(plain.data() + in.size, nullptr, plain.data(), in.size, k.sign_sk);
  p2b::vfl::MaskVersion last;
  if (in.mode == 2) {
    e.d = u32_at(in.data, in.size, 8);
    e.party_index = u32_at(in.data, in.size, 12);
    last.epoch = fv::kEpoch;
    e.last_accepted = &last;
  }
  const BundleStatus st =
      p2b::vfl::verify_mask_bundle(plain.data(), plain.size(), k.verify_pk, e, &out);
  if (st == BundleStatus::ok) check_accepted(out, e, in.size);
  return 0;
}
