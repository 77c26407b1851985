#include "batch_opener.hpp"

#include "wire/envelope_open.hpp"

namespace p2b::analyzer {

namespace {

RejectReason reason_of(server::OpenStatus st) {
  switch (st) {
    case server::OpenStatus::wrong_length:
      return RejectReason::wrong_length;
    case server::OpenStatus::unknown_key:
      return RejectReason::unknown_key;
    case server::OpenStatus::decrypt_failed:
      return RejectReason::decrypt_failed;
    case server::OpenStatus::ok:
    case server::OpenStatus::malformed:
      break;
  }
  return RejectReason::malformed;
}

}  // namespace

uint64_t OpenedBatch::rejected_total() const {
  uint64_t n = 0;
  for (const uint64_t r : rejected) n += r;
  return n;
}

OpenedBatch open_batch(const server::Batch& batch, const KeyRing& keys, uint32_t n_codes,
                       uint32_t n_actions) {
  OpenedBatch out;
  out.valid.reserve(batch.records.size());
  for (const server::InnerCiphertext& inner : batch.records) {
    server::InnerOpened rep{};
    const server::OpenStatus st =
        server::open_inner(inner.data(), inner.size(), keys.box_keys(), keys.n_box_keys(), &rep);
    if (st != server::OpenStatus::ok) {
      ++out.rejected[static_cast<int>(reason_of(st))];
    } else if (rep.code >= n_codes) {
      ++out.rejected[static_cast<int>(RejectReason::code_out_of_range)];
    } else if (rep.action >= n_actions) {
      ++out.rejected[static_cast<int>(RejectReason::action_out_of_range)];
    } else {
      out.valid.push_back({rep.code, rep.action, static_cast<double>(rep.reward)});
    }
  }
  return out;
}

}  // namespace p2b::analyzer
