// A service's own mask bundle, read from the file the PMG wrote and opened
// with open_mask_bundle: both services load and reload it the same way.
#pragma once

#include <cstdint>
#include <string>

#include "vfl/mask_bundle.hpp"

namespace p2b::vfl {

struct BundleKeys {
  const uint8_t* box_pk;  // the service's X25519 pair
  const uint8_t* box_sk;
  const uint8_t* pmg_sign_pk;  // the pinned PMG key
};

// Reads `path` (refusing more bytes than any bundle has) and opens it for
// party `party_index` of dimension `d`, refusing an epoch not above
// `last_epoch` (0: none accepted yet). On failure `err` names the file.
BundleStatus open_bundle_file(const std::string& path, const BundleKeys& keys, uint32_t party_index,
                              uint32_t d, uint64_t last_epoch, OpenedBundle* out, std::string* err);

}  // namespace p2b::vfl
