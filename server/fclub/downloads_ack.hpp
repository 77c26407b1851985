// A local server's acknowledgement of the downloads it has applied (POST
// /v1/fclub/downloads-ack?server=S&version=V). Only an acknowledgement
// deletes downloads from the global's queue; fetching them never does, so
// an outsider who reads a queue cannot empty it. The body is an Ed25519
// signature by local S's signing key (the one its uploads carry) over
//
//   "p2b fclub downloads-ack v1" | deployment fingerprint (16) | server (u32) | version (u64)
//
// (little-endian): bound to one deployment, one server and one version.
// Replaying one is harmless: it deletes versions <= V, which its sender
// already acknowledged, and versions only grow (with --store, across
// restarts too).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace p2b::fclub {

constexpr std::size_t kDownloadsAckSignatureBytes = 64;

struct DownloadsAck {
  uint32_t server = 0;
  uint64_t version = 0;
};

// The detached signature, as the request body (64 raw bytes).
std::string sign_downloads_ack(const uint8_t sign_sk[64], const uint8_t* deployment_fp,
                               const DownloadsAck& ack);

// Whether `body` is exactly a signature of `ack` by `sign_pk`.
bool verify_downloads_ack(const uint8_t sign_pk[32], const uint8_t* deployment_fp,
                          const DownloadsAck& ack, const std::string& body);

}  // namespace p2b::fclub
