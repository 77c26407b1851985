#include "raw_format.hpp"

#include <cmath>
#include <cstring>

namespace p2b::analyzer {

namespace {

constexpr uint8_t kMagic[4] = {'P', '2', 'B', 'R'};

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "raw floats are read as f32le");

uint32_t get_u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

float get_f32(const uint8_t* p) {
  float f = 0.0F;
  std::memcpy(&f, p, sizeof f);
  return f;
}

void put_u32(std::vector<uint8_t>* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}

void put_f32(std::vector<uint8_t>* out, float f) {
  uint32_t v = 0;
  std::memcpy(&v, &f, sizeof v);
  put_u32(out, v);
}

bool fail(std::string* err, const std::string& why) {
  *err = why;
  return false;
}

}  // namespace

bool decode_raw(const uint8_t* data, std::size_t len, uint32_t dim, uint32_t n_actions,
                RawBatch* out, std::string* err) {
  if (data == nullptr || len < kRawHeaderBytes || std::memcmp(data, kMagic, 4) != 0) {
    return fail(err, "not a raw batch");
  }
  if (get_u32(data + 4) != dim) return fail(err, "context dimension differs from the model's");
  const uint32_t count = get_u32(data + 8);
  if (count > kMaxRawRecords) return fail(err, "too many records");
  const std::size_t record = static_cast<std::size_t>(dim) * 4 + 8;
  if (len != kRawHeaderBytes + count * record) return fail(err, "length does not match count");

  RawBatch batch;
  batch.dim = dim;
  batch.contexts.resize(static_cast<std::size_t>(count) * dim);
  batch.actions.resize(count);
  batch.rewards.resize(count);
  for (uint32_t r = 0; r < count; ++r) {
    const uint8_t* p = data + kRawHeaderBytes + r * record;
    const uint8_t* tail = p + static_cast<std::size_t>(dim) * 4;  // action, reward
    const std::string where = "record " + std::to_string(r) + ": ";
    double* x = batch.contexts.data() + static_cast<std::size_t>(r) * dim;
    double sum = 0.0;
    for (uint32_t i = 0; i < dim; ++i) {
      const float v = get_f32(p + static_cast<std::size_t>(i) * 4);
      if (!std::isfinite(v)) return fail(err, where + "non-finite context");
      if (v < 0.0F) return fail(err, where + "negative context");
      x[i] = static_cast<double>(v);
      sum += x[i];
    }
    // The device's normalisation: scale does not matter, zero means uniform.
    for (uint32_t i = 0; i < dim; ++i) x[i] = sum > 0.0 ? x[i] / sum : 1.0 / dim;
    batch.actions[r] = get_u32(tail);
    if (batch.actions[r] >= n_actions) return fail(err, where + "action out of range");
    const float reward = get_f32(tail + 4);
    if (!std::isfinite(reward) || reward < 0.0F || reward > 1.0F) {
      return fail(err, where + "reward outside [0, 1]");
    }
    batch.rewards[r] = static_cast<double>(reward);
  }
  *out = std::move(batch);
  return true;
}

std::vector<uint8_t> encode_raw(uint32_t dim, const std::vector<float>& contexts,
                                const std::vector<uint32_t>& actions,
                                const std::vector<float>& rewards) {
  std::vector<uint8_t> out(kMagic, kMagic + sizeof kMagic);
  put_u32(&out, dim);
  put_u32(&out, static_cast<uint32_t>(actions.size()));
  for (std::size_t r = 0; r < actions.size(); ++r) {
    for (uint32_t i = 0; i < dim; ++i) put_f32(&out, contexts[r * dim + i]);
    put_u32(&out, actions[r]);
    put_f32(&out, rewards[r]);
  }
  return out;
}

}  // namespace p2b::analyzer
