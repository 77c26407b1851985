// Saved state of a SharedModel: a fixed little-endian layout (docs/formats.md,
// "Shared-model state") under the same keyed MAC as the agent's state, with
// its own label. Restore parses twice, checking, then applying, so a refused
// state leaves the model exactly as it was.
#include <cmath>
#include <cstring>

#include "le_bytes.hpp"
#include "ridge_arm.hpp"
#include "shared_state.hpp"
#include "state_mac.hpp"

namespace p2b {

namespace {

constexpr uint8_t kMagic[4] = {'P', '2', 'B', 'L'};
// 2 adds the version of the warm start applied last (anti-rollback across
// restarts). Format 1 predates warm starts; it still restores, as version 0.
constexpr uint32_t kFormat = 2;
constexpr uint32_t kFormatNoModelVersion = 1;
constexpr char kMacLabel[] = "p2b shared model state MAC key v1";
// magic, format, 5 u32 of shape, 4 f64 of settings, 2 u32 + 5 u64 of the
// generator, next_id, updates and (format 2) model_version.
constexpr std::size_t kFixedBytesV1 = 4 + 4 + 5 * 4 + 4 * 8 + 2 * 4 + 5 * 8 + 2 * 8;

std::size_t body_bytes(const SharedConfig& c, uint32_t format) {
  const std::size_t d = c.dim;
  const std::size_t fixed = kFixedBytesV1 + (format == kFormatNoModelVersion ? 0 : 8);
  return fixed + 8 * (d * (d + 1) / 2) + 8 * d + c.pending_capacity * (16 + 8 * d);
}

template <typename T>
T get(const SharedState& s, std::size_t offset, std::size_t i) {
  return s.block<T>(offset)[i];
}

template <typename T>
double value_at(const SharedState& s, std::size_t offset, std::size_t i) {
  return static_cast<double>(get<T>(s, offset, i));
}

double stored(const SharedState& s, std::size_t offset, std::size_t i) {
  return s.cfg.precision == Precision::f32 ? value_at<float>(s, offset, i)
                                           : value_at<double>(s, offset, i);
}

void put(SharedState& s, std::size_t offset, std::size_t i, double v) {
  if (s.cfg.precision == Precision::f32) {
    s.block<float>(offset)[i] = static_cast<float>(v);
  } else {
    s.block<double>(offset)[i] = v;
  }
}

// A saved value must be one the model could hold: exact in its precision.
bool exact(const SharedConfig& c, double v) {
  if (c.precision == Precision::f64) return true;
  return fits_scalar<float>(v) && static_cast<double>(static_cast<float>(v)) == v;
}

bool factor_ok(const SharedConfig& c, double v, bool diagonal) {
  const bool in_bounds = c.precision == Precision::f32 ? factor_entry_ok_as<float>(v, diagonal)
                                                       : factor_entry_ok_as<double>(v, diagonal);
  return in_bounds && exact(c, v);
}

bool vector_ok(const SharedConfig& c, double v) {
  const bool in_bounds =
      c.precision == Precision::f32 ? vector_entry_ok_as<float>(v) : vector_entry_ok_as<double>(v);
  return in_bounds && exact(c, v);
}

void write_body(const SharedState& s, uint8_t* out) {
  const SharedConfig& c = s.cfg;
  const std::size_t d = c.dim;
  LeWriter w(out);
  w.bytes(kMagic, sizeof kMagic);
  w.u32(kFormat);
  w.u32(static_cast<uint32_t>(c.precision));
  w.u32(c.dim);
  w.u32(c.max_items);
  w.u32(c.pending_capacity);
  w.u32(static_cast<uint32_t>(c.policy));
  w.f64(c.alpha);
  w.f64(c.ridge_lambda);
  w.f64(c.ts_scale);
  w.f64(c.tie_rel_tol);
  const Rng::State r = s.rng.state();
  w.u32(r.deterministic);
  w.u32(r.has_spare);
  for (const uint64_t word : r.s) w.u64(word);
  w.u64(r.spare_bits);
  w.u64(s.next_id);
  w.u64(s.updates);
  w.u64(s.model_version);
  for (std::size_t j = 0; j < d; ++j) {
    for (std::size_t i = j; i < d; ++i) w.f64(stored(s, s.factor, j * d + i));
  }
  for (std::size_t i = 0; i < d; ++i) w.f64(stored(s, s.vector_b, i));
  for (uint32_t k = 0; k < c.pending_capacity; ++k) {
    const SharedSlot& sl = s.slot_array()[k];
    w.u64(sl.id);
    w.u32(sl.state);
    w.u32(sl.item);
    for (std::size_t i = 0; i < d; ++i) w.f64(stored(s, s.contexts, k * d + i));
  }
}

// The id slot k must hold for the ring to be one decide could have left:
// the latest id below next_id that maps to k, or 0 if none does yet.
uint64_t expected_slot_id(uint64_t next_id, uint32_t capacity, uint32_t k) {
  if (next_id <= 1) return 0;
  const uint64_t last = next_id - 1;
  const uint64_t back = (last % capacity + capacity - k) % capacity;
  return last >= back + 1 ? last - back : 0;
}

// What the fixed part of a saved state carries besides the config.
struct Counters {
  uint64_t next_id = 0;
  uint64_t updates = 0;
  uint64_t model_version = 0;
};

Status check_header(LeReader& in, const SharedState& s, Rng::State* rng, Counters* n) {
  const SharedConfig& c = s.cfg;
  const uint32_t format = in.u32();
  if (format != kFormat && format != kFormatNoModelVersion) return Status::unsupported_version;
  const bool same_shape = in.u32() == static_cast<uint32_t>(c.precision) && in.u32() == c.dim &&
                          in.u32() == c.max_items && in.u32() == c.pending_capacity &&
                          in.u32() == static_cast<uint32_t>(c.policy);
  const bool same_settings = in.f64() == c.alpha && in.f64() == c.ridge_lambda &&
                             in.f64() == c.ts_scale && in.f64() == c.tie_rel_tol;
  rng->deterministic = in.u32();
  rng->has_spare = in.u32();
  for (uint64_t& word : rng->s) word = in.u64();
  rng->spare_bits = in.u64();
  n->next_id = in.u64();
  n->updates = in.u64();
  n->model_version = format == kFormat ? in.u64() : 0;
  if (!same_shape || !same_settings || rng->deterministic != (c.deterministic ? 1U : 0U)) {
    return Status::state_mismatch;
  }
  return Rng::restorable(*rng) && n->next_id >= 1 ? Status::ok : Status::corrupt_state;
}

// Reads the statistics and the ring; writes them only when `apply`.
bool read_tables(LeReader& in, SharedState& s, uint64_t next_id, bool apply) {
  const SharedConfig& c = s.cfg;
  const std::size_t d = c.dim;
  for (std::size_t j = 0; j < d; ++j) {
    for (std::size_t i = j; i < d; ++i) {
      const double v = in.f64();
      if (!factor_ok(c, v, i == j)) return false;
      if (apply) put(s, s.factor, j * d + i, v);
    }
    for (std::size_t i = 0; apply && i < j; ++i) put(s, s.factor, j * d + i, 0.0);
  }
  for (std::size_t i = 0; i < d; ++i) {
    const double v = in.f64();
    if (!vector_ok(c, v)) return false;
    if (apply) put(s, s.vector_b, i, v);
  }
  for (uint32_t k = 0; k < c.pending_capacity; ++k) {
    const SharedSlot sl{in.u64(), in.u32(), in.u32()};
    const uint64_t want = expected_slot_id(next_id, c.pending_capacity, k);
    const bool slot_ok =
        want == 0 ? sl.id == 0 && sl.state == kSharedSlotEmpty && sl.item == 0
                  : sl.id == want && sl.item < c.max_items &&
                        (sl.state == kSharedSlotAwaiting || sl.state == kSharedSlotRewarded);
    if (!slot_ok) return false;
    for (std::size_t i = 0; i < d; ++i) {
      const double v = in.f64();
      const bool ok = want == 0 ? v == 0.0 : std::isfinite(v) && std::fabs(v) <= kMaxRawEntry;
      if (!ok || !exact(c, v)) return false;
      if (apply) put(s, s.contexts, k * d + i, v);
    }
    if (apply) s.slot_array()[k] = sl;
  }
  return true;
}

Status decode(const uint8_t* body, SharedState& s, bool apply) {
  LeReader in(body + sizeof kMagic);
  Rng::State rng{};
  Counters n;
  const Status st = check_header(in, s, &rng, &n);
  if (st != Status::ok) return st;
  if (!read_tables(in, s, n.next_id, apply)) return Status::corrupt_state;
  if (apply) {
    s.rng.set_state(rng);
    s.next_id = n.next_id;
    s.updates = n.updates;
    s.model_version = n.model_version;
  }
  return Status::ok;
}

}  // namespace

Status SharedModel::saved_size(std::size_t* bytes) const {
  if (bytes == nullptr) return Status::null_pointer;
  *bytes = body_bytes(SharedState::of(this).cfg, kFormat) + kStateMacBytes;
  return Status::ok;
}

Status SharedModel::save(const uint8_t* key, void* buf, std::size_t cap,
                         std::size_t* written) const {
  if (key == nullptr || buf == nullptr || written == nullptr) return Status::null_pointer;
  const SharedState& s = SharedState::of(this);
  const std::size_t body = body_bytes(s.cfg, kFormat);
  if (cap < body + kStateMacBytes) return Status::buffer_too_small;
  auto* out = static_cast<uint8_t*>(buf);
  write_body(s, out);
  state_mac(key, kMacLabel, out, body, out + body);
  *written = body + kStateMacBytes;
  return Status::ok;
}

Status SharedModel::restore(const uint8_t* key, const void* buf, std::size_t len) {
  if (key == nullptr || buf == nullptr) return Status::null_pointer;
  SharedState& s = SharedState::of(this);
  const auto* in = static_cast<const uint8_t*>(buf);
  if (len < sizeof kMagic + 4 + kStateMacBytes || std::memcmp(in, kMagic, sizeof kMagic) != 0) {
    return Status::corrupt_state;
  }
  // The length follows the format; the MAC below covers the format too.
  const std::size_t body = body_bytes(s.cfg, LeReader(in + sizeof kMagic).u32());
  if (len != body + kStateMacBytes) {
    // Another shape's state has another length; tell that from a bad MAC.
    uint8_t mac[kStateMacBytes];
    state_mac(key, kMacLabel, in, len - kStateMacBytes, mac);
    return same_bytes(mac, in + len - kStateMacBytes, kStateMacBytes) ? Status::state_mismatch
                                                                      : Status::corrupt_state;
  }
  uint8_t mac[kStateMacBytes];
  state_mac(key, kMacLabel, in, body, mac);
  // A wrong key and an edit look alike by design.
  if (!same_bytes(mac, in + body, kStateMacBytes)) return Status::corrupt_state;
  const Status st = decode(in, s, false);
  if (st != Status::ok) return st;
  decode(in, s, true);
  shared_refresh_theta(s);
  return Status::ok;
}

}  // namespace p2b
