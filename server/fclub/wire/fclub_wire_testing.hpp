// For tests and fuzz seeds only: frames that an opener must refuse, signed
// by a real key, so that a refusal test reaches the check it aims at
// instead of stopping at the signature. Never used by a service.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fclub/wire/fclub_messages.hpp"

namespace p2b::fclub::testing {

// The padded plaintext (u32le len | frame | zeros) of a message, signed by
// `sign_sk`, with none of the sealer's checks beyond the protobuf bounds
// (at most 2080 and 64 values), padded to the size of `wire_dim` (1..64).
// The signer_fp the message carries is the one given in the struct when
// `keep_signer_fp` is true, else the signing key's.
bool pad_upload_unchecked(const Upload& u, const uint8_t* sign_sk, uint32_t wire_dim,
                          bool keep_signer_fp, std::vector<uint8_t>* padded, std::string* err);
bool pad_download_unchecked(const Download& d, const uint8_t* sign_sk, uint32_t wire_dim,
                            bool keep_signer_fp, std::vector<uint8_t>* padded, std::string* err);

// crypto_box_seal of any bytes to `recipient_box_pk`.
bool seal_padded(const std::vector<uint8_t>& padded, const uint8_t* recipient_box_pk,
                 std::vector<uint8_t>* out);

}  // namespace p2b::fclub::testing
