#include "batch_format.hpp"

#include <cstring>

namespace p2b::server {

namespace {

constexpr uint8_t kMagic[4] = {'P', '2', 'B', 'B'};
constexpr uint32_t kFormat = 1;

void put_u32(std::vector<uint8_t>* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}

uint32_t get_u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

}  // namespace

std::vector<uint8_t> encode_batch(const Batch& batch) {
  std::vector<uint8_t> out;
  out.reserve(kBatchHeaderBytes + batch.records.size() * kInnerBytes);
  out.insert(out.end(), kMagic, kMagic + sizeof kMagic);
  put_u32(&out, kFormat);
  out.insert(out.end(), batch.id.begin(), batch.id.end());
  put_u32(&out, static_cast<uint32_t>(batch.records.size()));
  for (const InnerCiphertext& r : batch.records) out.insert(out.end(), r.begin(), r.end());
  return out;
}

bool decode_batch(const uint8_t* data, std::size_t len, Batch* out, std::string* err) {
  if (data == nullptr || len < kBatchHeaderBytes || std::memcmp(data, kMagic, 4) != 0) {
    *err = "not a batch";
    return false;
  }
  if (get_u32(data + 4) != kFormat) {
    *err = "unsupported batch format";
    return false;
  }
  const uint32_t count = get_u32(data + 8 + kBatchIdBytes);
  if (count > kMaxBatchRecords || len != kBatchHeaderBytes + count * kInnerBytes) {
    *err = "batch length does not match its record count";
    return false;
  }
  std::memcpy(out->id.data(), data + 8, kBatchIdBytes);
  out->records.resize(count);
  const uint8_t* rec = data + kBatchHeaderBytes;
  for (uint32_t i = 0; i < count; ++i, rec += kInnerBytes) {
    std::memcpy(out->records[i].data(), rec, kInnerBytes);
  }
  return true;
}

std::string batch_id_hex(const BatchId& id) {
  static const char* kHex = "0123456789abcdef";
  std::string s;
  for (uint8_t b : id) {
    s.push_back(kHex[b >> 4]);
    s.push_back(kHex[b & 15]);
  }
  return s;
}

}  // namespace p2b::server
