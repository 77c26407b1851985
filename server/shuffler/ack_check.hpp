// Whether an analyzer's answer acknowledges exactly the batch that was sent.
// The batcher deletes a batch only on a match; anything else keeps it.
#pragma once

#include <cstdint>
#include <string>

#include "wire/batch_ack.hpp"
#include "wire/batch_format.hpp"

namespace p2b::shuffler {

struct AckVerdict {
  bool matches = false;
  std::string error;     // when !matches: why, for the log
  server::BatchAck ack;  // when matches: its counts, for the log
};

// `answer` is the body of a 200 (JSON with "ack": hex of wire/batch_ack.hpp).
// A match is signed by `verify_pk` (the pinned analyzer.sign.pk), names
// `batch`'s id and `digest`, counts as many records as `batch` holds, and
// its applied, quarantined and refused records add up to that count.
AckVerdict check_ack(const std::string& answer, const server::Batch& batch,
                     const server::BatchDigest& digest, const uint8_t* verify_pk);

}  // namespace p2b::shuffler
