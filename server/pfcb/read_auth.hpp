// Signed reads of GET /v1/pfcb/postings (docs/pfcb-relay.md, "Signed
// reads"): the relay serves postings only to a member that proves its key,
// so an outsider learns neither the postings nor who posts them.
//
// The reader sends its Ed25519 verify key, a time and a signature (the
// headers in relay_requests.hpp) over this 85-byte message:
//
//   "P2B-PFCB-READ-v1" (16 bytes; a posting frame starts "P2BX", so no
//                       read message is ever a posting's signed bytes)
//   | consortium_fp[16] | reader_fp[16] (BLAKE2b-128 of the verify key)
//   | u64le after | u32le limit | u8 exclude | exclude_fp[16] (zero if not)
//   | u64le time_us (unix time in microseconds)
//
// Freshness: time_us must lie within kReadWindowMicros of the relay's clock
// AND above the last time the relay accepted from that reader, which the
// store keeps (relay_store.hpp), so a replayed request is refused even
// after a restart, and a captured request that was never delivered expires
// after the window. Microseconds rather than a counter: a restarted agent
// needs no state to go on (its clock has moved), and two reads of one agent
// never share a value.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "pfcb/relay_requests.hpp"
#include "pfcb/wire/pfcb_wire.hpp"

namespace p2b::pfcb {

inline constexpr std::size_t kReadMessageBytes = 85;
// ±300 s: the usual allowance for unsynchronised clocks (as Kerberos's).
inline constexpr uint64_t kReadWindowMicros = uint64_t{300} * 1000 * 1000;

// Why a read was refused before the store's replay check. Every one gets
// the same 403 answer; the names are for the counters and the log.
enum class ReadAuthStatus {
  ok,
  missing_auth,    // none of the three headers
  malformed_auth,  // some of them, or not of their shape
  stale,           // the time is outside the window
  bad_signature,   // the presented key did not sign this request
  unknown_reader,  // a valid signature by a key that is not a member's
};
const char* read_auth_status_name(ReadAuthStatus s);

std::array<uint8_t, kReadMessageBytes> read_message(const uint8_t* consortium_fp,
                                                    const uint8_t* reader_fp, const ListQuery& q,
                                                    uint64_t time_us);

// The relay's check of a parsed ReadAuth, in this order: the window, the
// signature by the presented key, then membership. The signature comes
// before membership so that nobody without a member's secret key can tell
// a member's key from any other (both are bad_signature), and the public
// per-reason counters are no membership oracle. `reader_fp` gets the
// member's fingerprint on ok.
ReadAuthStatus verify_read(const ReadAuth& auth, const ListQuery& q, const uint8_t* consortium_fp,
                           const Members& members, uint64_t now_us, uint8_t* reader_fp);

// The client's side: the three headers for reading `q` at `time_us` with
// the Ed25519 secret key `sign_sk` (seed | verify key). False if signing
// failed; `headers` is then untouched.
bool sign_read(const ListQuery& q, const uint8_t* consortium_fp, uint64_t time_us,
               const uint8_t* sign_sk, std::multimap<std::string, std::string>* headers);

}  // namespace p2b::pfcb
