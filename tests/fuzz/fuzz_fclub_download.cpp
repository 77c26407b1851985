// A local server's opener of FCLUB downloads (P2BD),
// p2b::fclub::open_download and check_download_plaintext, on untrusted bytes.
// Modes in fclub_fixture.hpp (fuzz_one): 0 a sealed download of d = 3 to the
// fixture's local box key; 1 a message the harness frames, signs with the
// global server's key and pads; 2 an unsealed padded plaintext. Accepted
// downloads must pass every documented check, re-encode to the same bytes
// and survive a round trip.
#include "fclub_fixture.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return p2b_fuzz::fclub::fuzz_one<p2b_fuzz::fclub::DownloadSide>(data, size);
}
