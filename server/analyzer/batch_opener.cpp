#include "batch_opener.hpp"

#include <sodium.h>

#include <algorithm>
#include <map>
#include <set>

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

Epoch epoch_of(const server::InnerCiphertext& inner) {
  Epoch e{};
  std::copy(inner.begin(), inner.begin() + e.size(), e.begin());
  return e;
}

bool parse_epoch(const std::string& hex, Epoch* out) {
  std::size_t len = 0;
  return hex.size() == 2 * out->size() &&
         sodium_hex2bin(out->data(), out->size(), hex.data(), hex.size(), nullptr, &len, nullptr) ==
             0 &&
         len == out->size();
}

uint64_t OpenedBatch::rejected_total() const {
  uint64_t n = 0;
  for (const uint64_t r : rejected) n += r;
  return n;
}

std::vector<OpenedRecord> open_records(const server::Batch& batch, const KeyRing& keys,
                                       uint32_t n_codes, uint32_t n_actions,
                                       const std::set<Epoch>* retired) {
  std::vector<OpenedRecord> out(batch.records.size());
  for (std::size_t i = 0; i < batch.records.size(); ++i) {
    const server::BatchRecord& rec = batch.records[i];
    OpenedRecord& o = out[i];
    o.digest = server::inner_digest(rec.inner);
    o.epoch = epoch_of(rec.inner);
    if (retired != nullptr && retired->count(o.epoch) > 0) {
      o.reason = RejectReason::replayed;
      continue;
    }
    server::InnerOpened rep{};
    const server::OpenStatus st = server::open_inner(rec.inner.data(), rec.inner.size(),
                                                     keys.box_keys(), keys.n_box_keys(), &rep);
    if (st != server::OpenStatus::ok) {
      o.reason = reason_of(st);
    } else if (rep.code != rec.crowd_id) {
      o.reason = RejectReason::crowd_mismatch;
    } else if (rep.code >= n_codes) {
      o.reason = RejectReason::code_out_of_range;
    } else if (rep.action >= n_actions) {
      o.reason = RejectReason::action_out_of_range;
    } else {
      o.valid = true;
      o.report = {rep.code, rep.action, static_cast<double>(rep.reward)};
    }
  }
  return out;
}

OpenedBatch screen_records(const std::vector<OpenedRecord>& records,
                           const std::function<bool(const server::InnerDigest&)>& seen_before,
                           const common::ThresholdPolicy& policy, common::Randomness& rng) {
  return screen_opened(
      records, [&seen_before](const OpenedRecord& r) { return seen_before(r.digest); }, policy,
      rng);
}

OpenedBatch screen_opened(const std::vector<OpenedRecord>& records,
                          const std::function<bool(const OpenedRecord&)>& seen_before,
                          const common::ThresholdPolicy& policy, common::Randomness& rng) {
  OpenedBatch out;
  std::set<server::InnerDigest> in_batch;
  std::vector<const OpenedRecord*> fresh;
  fresh.reserve(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    const OpenedRecord& r = records[i];
    if (!in_batch.insert(r.digest).second || seen_before(r)) {
      ++out.rejected[static_cast<int>(RejectReason::replayed)];
      continue;
    }
    if (!r.valid) {
      ++out.rejected[static_cast<int>(r.reason)];
      if (is_quarantined(r.reason)) out.quarantine.push_back(i);
      continue;
    }
    out.new_digests.push_back(r.digest);
    out.new_epochs.push_back(r.epoch);
    fresh.push_back(&r);
  }
  std::map<uint32_t, std::size_t> crowd_size;
  for (const OpenedRecord* r : fresh) ++crowd_size[r->report.code];
  std::map<uint32_t, bool> released;
  for (const auto& [code, count] : crowd_size)
    released[code] = common::crowd_survives(count, policy, rng);
  out.valid.reserve(fresh.size());
  for (const OpenedRecord* r : fresh) {
    if (!released[r->report.code]) {
      ++out.rejected[static_cast<int>(RejectReason::below_threshold)];
    } else {
      out.valid.push_back(r->report);
    }
  }
  return out;
}

}  // namespace p2b::analyzer
