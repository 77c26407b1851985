#include "shuffler/sealed_rows.hpp"

#include <sodium.h>

#include <algorithm>

namespace p2b::shuffler::sealed_rows {

namespace {

using spool_seal::Bytes;

// Integers are stored little-endian whatever the host.
std::array<uint8_t, 8> le64(int64_t v) {
  std::array<uint8_t, 8> out{};
  const auto u = static_cast<uint64_t>(v);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint8_t>(u >> (8 * i));
  return out;
}

std::array<uint8_t, 4> le32(uint32_t v) {
  std::array<uint8_t, 4> out{};
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint8_t>(v >> (8 * i));
  return out;
}

std::vector<uint8_t> seal_report(const SpoolKey& key, const Report& r,
                                 const std::vector<uint8_t>& identity) {
  const std::array<uint8_t, 4> crowd = le32(r.crowd_id);
  return spool_seal::seal(key, {{crowd.data(), crowd.size()}, {r.inner.data(), r.inner.size()}},
                          identity);
}

bool open_report(const SpoolKey& key, const std::vector<uint8_t>& sealed,
                 const std::vector<uint8_t>& identity, Report* r) {
  std::vector<uint8_t> plain;
  const bool ok =
      spool_seal::open(key, sealed, identity, &plain) && plain.size() == 4 + r->inner.size();
  if (ok) {
    r->crowd_id = 0;
    for (std::size_t i = 0; i < 4; ++i) r->crowd_id |= uint32_t{plain[i]} << (8 * i);
    std::copy(plain.begin() + 4, plain.end(), r->inner.begin());
  }
  sodium_memzero(plain.data(), plain.size());
  return ok;
}

std::vector<uint8_t> record_identity(int64_t id) {
  const std::array<uint8_t, 8> n = le64(id);
  return spool_seal::row_identity('r', {{n.data(), n.size()}});
}

std::vector<uint8_t> batched_identity(const server::BatchId& batch, int64_t position) {
  const std::array<uint8_t, 8> n = le64(position);
  return spool_seal::row_identity('b', {{batch.data(), batch.size()}, {n.data(), n.size()}});
}

std::vector<uint8_t> seen_identity(const EpochId& epoch, const LookupTag& tag) {
  return spool_seal::row_identity('s', {{epoch.data(), epoch.size()}, {tag.data(), tag.size()}});
}

}  // namespace

std::vector<uint8_t> seal_record(const SpoolKey& key, int64_t id, const Report& r) {
  return seal_report(key, r, record_identity(id));
}

bool open_record(const SpoolKey& key, int64_t id, const std::vector<uint8_t>& sealed, Report* r) {
  return open_report(key, sealed, record_identity(id), r);
}

std::vector<uint8_t> seal_batched(const SpoolKey& key, const server::BatchId& batch,
                                  int64_t position, const Report& r) {
  return seal_report(key, r, batched_identity(batch, position));
}

bool open_batched(const SpoolKey& key, const server::BatchId& batch, int64_t position,
                  const std::vector<uint8_t>& sealed, Report* r) {
  return open_report(key, sealed, batched_identity(batch, position), r);
}

LookupTag seen_tag(const SpoolKey& key, const EpochId& epoch, const server::InnerDigest& inner) {
  return spool_seal::lookup_tag(key, 's',
                                {{epoch.data(), epoch.size()}, {inner.data(), inner.size()}});
}

std::vector<uint8_t> seal_seen(const SpoolKey& key, const EpochId& epoch, const LookupTag& tag,
                               const Sighting& s) {
  return spool_seal::seal(key, {{s.inner.data(), s.inner.size()}, {s.outer.data(), s.outer.size()}},
                          seen_identity(epoch, tag));
}

bool open_seen(const SpoolKey& key, const EpochId& epoch, const LookupTag& tag,
               const std::vector<uint8_t>& sealed, Sighting* s) {
  std::vector<uint8_t> plain;
  if (!spool_seal::open(key, sealed, seen_identity(epoch, tag), &plain) ||
      plain.size() != s->inner.size() + s->outer.size()) {
    return false;
  }
  std::copy(plain.begin(), plain.begin() + static_cast<std::ptrdiff_t>(s->inner.size()),
            s->inner.begin());
  std::copy(plain.begin() + static_cast<std::ptrdiff_t>(s->inner.size()), plain.end(),
            s->outer.begin());
  return true;
}

LookupTag legacy_tag(const SpoolKey& key, const EnvelopeDigest& digest) {
  return spool_seal::lookup_tag(key, 'l', {{digest.data(), digest.size()}});
}

std::vector<uint8_t> seal_legacy(const SpoolKey& key, const LookupTag& tag,
                                 const EnvelopeDigest& digest) {
  return spool_seal::seal(key, {{digest.data(), digest.size()}},
                          spool_seal::row_identity('l', {{tag.data(), tag.size()}}));
}

bool open_legacy(const SpoolKey& key, const LookupTag& tag, const std::vector<uint8_t>& sealed,
                 EnvelopeDigest* digest) {
  std::vector<uint8_t> plain;
  if (!spool_seal::open(key, sealed, spool_seal::row_identity('l', {{tag.data(), tag.size()}}),
                        &plain) ||
      plain.size() != digest->size()) {
    return false;
  }
  std::copy(plain.begin(), plain.end(), digest->begin());
  return true;
}

}  // namespace p2b::shuffler::sealed_rows
