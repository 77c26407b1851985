// The body of a saved state. Restore decodes it twice: once validating every
// value without touching the agent, once applying.
#include "state_codec.hpp"

#include <pb_decode.h>
#include <pb_encode.h>

#include <cmath>
#include <cstring>

#include "p2b/envelope.hpp"

namespace p2b {

namespace {

bool finite_unit(float r) {
  return std::isfinite(r) && r >= 0.0F && r <= 1.0F;
}

// ---- encoding ----

bool write_header(pb_ostream_t* os, const AgentState& s) {
  const Rng::State rs = s.rng.state();
  const ReporterProgress p = s.reporter.progress();
  p2b_v1_StateHeader h = p2b_v1_StateHeader_init_zero;
  h.format = kStateFormat;
  h.scalar_bytes = sizeof(real);
  h.config_digest = s.config_digest;
  h.next_id = s.pending.next_id();
  h.reports = p.reports;
  h.windows_closed = p.windows_closed;
  h.dropped_outbox_full = p.dropped_outbox_full;
  h.model_version = s.model_version;
  h.baseline_model_version = s.baseline_model_version;
  h.window_len = p.window_len;
  h.outbox_head = p.outbox_head;
  h.outbox_len = p.outbox_len;
  std::memcpy(h.rng_state, rs.s, sizeof rs.s);
  h.rng_spare_bits = rs.spare_bits;
  h.rng_has_spare = rs.has_spare;
  h.rng_deterministic = rs.deterministic;
  h.has_key_list_version = h.has_shuffler_key = h.has_accepted_fps = true;
  h.key_list_version = s.key_list_version;
  std::memcpy(h.shuffler_key, s.shuffler_pk, sizeof h.shuffler_key);
  std::memcpy(h.accepted_fps, s.accepted_shuffler_fp, sizeof h.accepted_fps);
  return pb_encode_delimited(os, p2b_v1_StateHeader_fields, &h);
}

// Column `col` < d of an arm is its factor from the diagonal down; column d is b.
bool write_arms(pb_ostream_t* os, const ArmSet& arms) {
  const uint32_t d = arms.dim();
  for (uint32_t a = 0; a < arms.count(); ++a) {
    const ArmView av = arms.arm(a);
    for (uint32_t col = 0; col <= d; ++col) {
      p2b_v1_StateColumn c = p2b_v1_StateColumn_init_zero;
      c.arm = a;
      c.column = col;
      const real* src = col < d ? av.L + static_cast<std::size_t>(col) * d + col : av.b;
      c.values_count = static_cast<pb_size_t>(col < d ? d - col : d);
      for (pb_size_t i = 0; i < c.values_count; ++i) c.values[i] = src[i];
      if (!pb_encode_delimited(os, p2b_v1_StateColumn_fields, &c)) return false;
    }
  }
  return true;
}

// Codes are computed here, not at decide (reporter.hpp): the saved state is
// byte for byte what an agent that encoded every decision would save.
bool write_pending(pb_ostream_t* os, const PendingRing& ring, const Codebook& codebook,
                   uint32_t d) {
  for (uint32_t i = 0; i < ring.capacity(); ++i) {
    const PendingSlot& slot = ring.slot(i);
    p2b_v1_PendingDecision p = p2b_v1_PendingDecision_init_zero;
    p.id = slot.id;
    p.action = slot.action;
    p.code = slot.state == kSlotEmpty ? 0 : codebook.encode(ring.context(i));
    p.state = slot.state;
    p.context_count = static_cast<pb_size_t>(d);
    const real* x = ring.context(i);
    for (uint32_t k = 0; k < d; ++k) p.context[k] = x[k];
    if (!pb_encode_delimited(os, p2b_v1_PendingDecision_fields, &p)) return false;
  }
  return true;
}

bool write_interaction(pb_ostream_t* os, uint32_t code, uint32_t action, float reward) {
  p2b_v1_Interaction e = p2b_v1_Interaction_init_zero;
  e.code = code;
  e.action = action;
  e.reward = reward;
  return pb_encode_delimited(os, p2b_v1_Interaction_fields, &e);
}

// The whole window, then the whole outbox ring, used or not.
bool write_reporter(pb_ostream_t* os, const Reporter& r, const Codebook& codebook) {
  for (uint32_t i = 0; i < r.window_size(); ++i) {
    const WindowEntry& e = r.window_entry(i);
    if (!write_interaction(os, r.window_code(i, codebook), e.action, e.reward)) return false;
  }
  for (uint32_t i = 0; i < r.outbox_capacity(); ++i) {
    const Report& e = r.outbox_entry(i);
    if (!write_interaction(os, e.code, e.action, e.reward)) return false;
  }
  return true;
}

// ---- decoding ----

ReporterProgress progress_of(const p2b_v1_StateHeader& h) {
  return ReporterProgress{h.window_len, h.outbox_head,    h.outbox_len,
                          h.reports,    h.windows_closed, h.dropped_outbox_full};
}

bool is_zero(const uint8_t* p, std::size_t n) {
  uint8_t any = 0;
  for (std::size_t i = 0; i < n; ++i) any = static_cast<uint8_t>(any | p[i]);
  return any == 0;
}

// Format 4's shuffler keys: a non-zero current key whose fingerprint leads
// the accepted ones, which fill their slots from the front without repeats,
// and no other key before any list was applied. Format 3 has none of them.
Status check_shuffler_keys(const p2b_v1_StateHeader& h, const AgentState& s) {
  const bool any = h.has_key_list_version || h.has_shuffler_key || h.has_accepted_fps;
  const bool all = h.has_key_list_version && h.has_shuffler_key && h.has_accepted_fps;
  if (h.format == kOldestReadableStateFormat) return any ? Status::corrupt_state : Status::ok;
  if (!all || is_zero(h.shuffler_key, sizeof h.shuffler_key)) return Status::corrupt_state;
  uint8_t current[kFingerprintBytes];
  if (key_fingerprint(s.crypto, h.shuffler_key, current) != Status::ok) {
    return Status::crypto_failure;
  }
  static_assert(sizeof h.accepted_fps == kKeyListMaxKeys * kFingerprintBytes, "slots");
  const auto slot = [&h](std::size_t i) { return h.accepted_fps + i * kFingerprintBytes; };
  if (std::memcmp(slot(0), current, kFingerprintBytes) != 0) return Status::corrupt_state;
  bool ended = false;
  for (std::size_t i = 1; i < kKeyListMaxKeys; ++i) {
    const bool used = !is_zero(slot(i), kFingerprintBytes);
    if (used && (ended || h.key_list_version == 0)) return Status::corrupt_state;
    ended = ended || !used;
    for (std::size_t j = 0; used && j < i; ++j) {
      if (std::memcmp(slot(i), slot(j), kFingerprintBytes) == 0) return Status::corrupt_state;
    }
  }
  return Status::ok;
}

Rng::State rng_state_of(const p2b_v1_StateHeader& h) {
  Rng::State rs{};
  std::memcpy(rs.s, h.rng_state, sizeof rs.s);
  rs.spare_bits = h.rng_spare_bits;
  rs.has_spare = h.rng_has_spare;
  rs.deterministic = h.rng_deterministic;
  return rs;
}

Status read_header(pb_istream_t* is, const AgentState& s, p2b_v1_StateHeader* h) {
  if (!pb_decode_delimited(is, p2b_v1_StateHeader_fields, h)) return Status::corrupt_state;
  if (h->format != kStateFormat && h->format != kOldestReadableStateFormat) {
    return Status::unsupported_version;
  }
  if (h->scalar_bytes != sizeof(real) || h->config_digest != s.config_digest) {
    return Status::state_mismatch;
  }
  const bool ok = h->next_id >= 1 && s.reporter.progress_consistent(progress_of(*h)) &&
                  Rng::restorable(rng_state_of(*h)) &&
                  h->rng_deterministic == s.rng.state().deterministic;
  return ok ? check_shuffler_keys(*h, s) : Status::corrupt_state;
}

void apply_header(const p2b_v1_StateHeader& h, AgentState& s) {
  s.rng.set_state(rng_state_of(h));
  s.pending.restore_next_id(h.next_id);
  s.reporter.restore(progress_of(h));
  s.model_version = h.model_version;
  s.baseline_model_version = h.baseline_model_version;
  // A format-3 state predates key lists: the agent's shuffler keys stay.
  if (h.format == kOldestReadableStateFormat) return;
  s.key_list_version = h.key_list_version;
  std::memcpy(s.shuffler_pk, h.shuffler_key, sizeof s.shuffler_pk);
  std::memcpy(s.accepted_shuffler_fp, h.accepted_fps, sizeof s.accepted_shuffler_fp);
  std::memcpy(s.fp.shuffler, s.accepted_shuffler_fp[0], kFingerprintBytes);
}

// Reads column `col` of arm `a` into the factor (col < d) or b (col == d).
bool read_column(pb_istream_t* is, uint32_t a, uint32_t col, const ArmView& av, bool apply) {
  const uint32_t d = av.d;
  p2b_v1_StateColumn c = p2b_v1_StateColumn_init_zero;
  const uint32_t n = col < d ? d - col : d;
  if (!pb_decode_delimited(is, p2b_v1_StateColumn_fields, &c) || c.arm != a || c.column != col ||
      c.values_count != n) {
    return false;
  }
  for (uint32_t i = 0; i < n; ++i) {
    const bool ok = col < d ? factor_entry_ok(c.values[i], i == 0) : vector_entry_ok(c.values[i]);
    if (!ok) return false;
  }
  if (!apply) return true;
  if (col < d) {
    real* dst = av.L + static_cast<std::size_t>(col) * d;
    for (uint32_t r = 0; r < d; ++r) dst[r] = r < col ? real(0) : real(c.values[r - col]);
  } else {
    for (uint32_t i = 0; i < d; ++i) av.b[i] = static_cast<real>(c.values[i]);
  }
  return true;
}

bool read_arms(pb_istream_t* is, const ArmSet& arms, bool apply) {
  for (uint32_t a = 0; a < arms.count(); ++a) {
    const ArmView av = arms.arm(a);
    for (uint32_t col = 0; col <= arms.dim(); ++col) {
      if (!read_column(is, a, col, av, apply)) return false;
    }
  }
  return true;
}

// A context the agent normalised sums to 1 up to the rounding of d values to
// `real`, at most d half-ulps; 1e-4 is far above that and far below any
// context that was not normalised.
bool sums_to_one(const real* xn, uint32_t d) {
  double sum = 0.0;
  for (uint32_t k = 0; k < d; ++k) sum += static_cast<double>(xn[k]);
  return std::fabs(sum - 1.0) <= 1e-4;
}

bool read_pending(pb_istream_t* is, AgentState& s, uint64_t next_id, bool apply) {
  const uint32_t d = s.arms.dim();
  for (uint32_t i = 0; i < s.pending.capacity(); ++i) {
    p2b_v1_PendingDecision p = p2b_v1_PendingDecision_init_zero;
    if (!pb_decode_delimited(is, p2b_v1_PendingDecision_fields, &p) || p.context_count != d ||
        p.state > kSlotRewarded || p.action >= s.arms.count() || p.code >= s.codebook.size()) {
      return false;
    }
    const PendingSlot slot{p.id, p.action, 0, p.state, 0};
    if (!s.pending.slot_consistent(i, slot, next_id)) return false;
    real xn[kMaxDim];
    for (uint32_t k = 0; k < d; ++k) {
      if (!fits_real(p.context[k]) || p.context[k] < 0.0) return false;
      xn[k] = static_cast<real>(p.context[k]);
    }
    // The code is not kept (it is recomputed when saved), so it must be the
    // one its context encodes to, or 0 for an empty slot, as saved. Only a
    // normalised context has a code: encoding one that sums to 0 divides by 0.
    if (p.state != kSlotEmpty && !sums_to_one(xn, d)) return false;
    if (p.code != (p.state == kSlotEmpty ? 0 : s.codebook.encode(xn))) return false;
    if (apply) s.pending.restore_slot(i, slot, p.context);
  }
  return true;
}

bool read_interaction(pb_istream_t* is, const AgentState& s, p2b_v1_Interaction* e) {
  return pb_decode_delimited(is, p2b_v1_Interaction_fields, e) && e->code < s.codebook.size() &&
         e->action < s.arms.count() && finite_unit(e->reward);
}

bool read_reporter(pb_istream_t* is, AgentState& s, bool apply) {
  for (uint32_t i = 0; i < s.reporter.window_size(); ++i) {
    p2b_v1_Interaction e = p2b_v1_Interaction_init_zero;
    if (!read_interaction(is, s, &e)) return false;
    if (apply) s.reporter.restore_window_entry(i, e.code, e.action, e.reward);
  }
  for (uint32_t i = 0; i < s.reporter.outbox_capacity(); ++i) {
    p2b_v1_Interaction e = p2b_v1_Interaction_init_zero;
    if (!read_interaction(is, s, &e)) return false;
    if (apply) s.reporter.restore_outbox_entry(i, Report{e.code, e.action, e.reward});
  }
  return true;
}

}  // namespace

bool encode_state(pb_ostream_t* os, const AgentState& s) {
  return write_header(os, s) && write_arms(os, s.arms) &&
         write_pending(os, s.pending, s.codebook, s.arms.dim()) &&
         write_reporter(os, s.reporter, s.codebook);
}

uint32_t peek_format(const uint8_t* body, std::size_t len) {
  // StateHeader leads the body and its format field is encoded first.
  pb_istream_t is = pb_istream_from_buffer(body, len);
  uint64_t header_len = 0;
  pb_wire_type_t wire = PB_WT_VARINT;
  uint32_t tag = 0;
  bool eof = false;
  uint32_t format = 0;
  if (!pb_decode_varint(&is, &header_len) || !pb_decode_tag(&is, &wire, &tag, &eof) ||
      tag != p2b_v1_StateHeader_format_tag || wire != PB_WT_32BIT ||
      !pb_decode_fixed32(&is, &format)) {
    return 0;
  }
  return format;
}

Status decode_state(const uint8_t* body, std::size_t len, AgentState& s, bool apply) {
  pb_istream_t is = pb_istream_from_buffer(body, len);
  p2b_v1_StateHeader h = p2b_v1_StateHeader_init_zero;
  const Status st = read_header(&is, s, &h);
  if (st != Status::ok) return st;
  if (!read_arms(&is, s.arms, apply) || !read_pending(&is, s, h.next_id, apply) ||
      !read_reporter(&is, s, apply) || is.bytes_left != 0) {
    return Status::corrupt_state;
  }
  if (apply) {
    apply_header(h, s);
    s.arms.refresh_all_theta();
  }
  return Status::ok;
}

}  // namespace p2b
