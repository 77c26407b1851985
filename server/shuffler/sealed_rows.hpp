// The rows of the SQLite spool's sealed tables (schema 6), each sealed to
// its own identity (spool_seal.hpp). Nothing in a row orders arrivals:
//   records_sealed (id, sealed)            id random; sealed = crowd id, inner
//   batched_sealed (batch_id, position, sealed)   the shuffled order
//   seen_sealed    (epoch, tag, sealed)    tag = keyed hash of the inner digest;
//                                          sealed = inner digest, outer digest
//   legacy_sealed  (tag, sealed)           schema-3 digests, keyed likewise
#pragma once

#include <cstdint>
#include <vector>

#include "shuffler/spool.hpp"
#include "shuffler/spool_key.hpp"
#include "shuffler/spool_seal.hpp"

namespace p2b::shuffler::sealed_rows {

using spool_seal::LookupTag;

// A report as the spool keeps it.
struct Report {
  uint32_t crowd_id = 0;
  server::InnerCiphertext inner{};
};

std::vector<uint8_t> seal_record(const SpoolKey& key, int64_t id, const Report& r);
bool open_record(const SpoolKey& key, int64_t id, const std::vector<uint8_t>& sealed, Report* r);

std::vector<uint8_t> seal_batched(const SpoolKey& key, const server::BatchId& batch,
                                  int64_t position, const Report& r);
bool open_batched(const SpoolKey& key, const server::BatchId& batch, int64_t position,
                  const std::vector<uint8_t>& sealed, Report* r);

// Replay state: the row of an inner digest in an epoch.
struct Sighting {
  server::InnerDigest inner{};
  EnvelopeDigest outer{};
};

LookupTag seen_tag(const SpoolKey& key, const EpochId& epoch, const server::InnerDigest& inner);
std::vector<uint8_t> seal_seen(const SpoolKey& key, const EpochId& epoch, const LookupTag& tag,
                               const Sighting& s);
bool open_seen(const SpoolKey& key, const EpochId& epoch, const LookupTag& tag,
               const std::vector<uint8_t>& sealed, Sighting* s);

// A schema-3 digest (outer or inner: they were never told apart).
LookupTag legacy_tag(const SpoolKey& key, const EnvelopeDigest& digest);
std::vector<uint8_t> seal_legacy(const SpoolKey& key, const LookupTag& tag,
                                 const EnvelopeDigest& digest);
bool open_legacy(const SpoolKey& key, const LookupTag& tag, const std::vector<uint8_t>& sealed,
                 EnvelopeDigest* digest);

}  // namespace p2b::shuffler::sealed_rows
