// The global server's opener of FCLUB uploads (P2BU), p2b::fclub::open_upload
// and check_upload_plaintext, on untrusted bytes. Modes in fclub_fixture.hpp
// (fuzz_one): 0 a sealed upload of d = 3 to the fixture's global box key;
// 1 a message the harness frames, signs with the local server's current key
// and pads; 2 an unsealed padded plaintext. Accepted uploads must pass every
// documented check, re-encode to the same bytes and survive a round trip.
#include "fclub_fixture.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return p2b_fuzz::fclub::fuzz_one<p2b_fuzz::fclub::UploadSide>(data, size);
}
