#include "vfl/bundle_file.hpp"

#include <fstream>
#include <vector>

namespace p2b::vfl {

BundleStatus open_bundle_file(const std::string& path, const BundleKeys& keys, uint32_t party_index,
                              uint32_t d, uint64_t last_epoch, OpenedBundle* out,
                              std::string* err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *err = path + ": cannot open";
    return BundleStatus::bad_length;
  }
  // A bundle for d = 4096 split in two is 67 MB; nothing larger is read.
  constexpr std::size_t kMaxBundle = std::size_t{8} * kMaxMaskDim * kMaxMaskDim + 65536;
  std::vector<uint8_t> bytes;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    bytes.insert(bytes.end(), buf, buf + in.gcount());
    if (bytes.size() > kMaxBundle) {
      *err = path + ": larger than any bundle";
      return BundleStatus::bad_length;
    }
  }
  MaskVersion last;
  last.epoch = last_epoch;
  BundleExpect expect;
  expect.party_index = party_index;
  expect.d = d;
  expect.last_accepted = last_epoch > 0 ? &last : nullptr;
  const BundleStatus st = open_mask_bundle(bytes.data(), bytes.size(), keys.box_pk, keys.box_sk,
                                           keys.pmg_sign_pk, expect, out);
  if (st != BundleStatus::ok) *err = path + ": " + bundle_status_name(st);
  return st;
}

}  // namespace p2b::vfl
