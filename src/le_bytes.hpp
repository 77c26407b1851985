// Fixed-width little-endian fields for the saved states that are not
// protobuf (the shared model's, the P-FCB agent's): the byte order is the
// format's, whatever the device's. Bounds are the caller's: each format
// checks the whole length against its configuration before reading.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace p2b {

class LeWriter {
 public:
  explicit LeWriter(uint8_t* out) : p_(out) {}
  void bytes(const uint8_t* v, std::size_t n) {
    std::memcpy(p_, v, n);
    p_ += n;
  }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) *p_++ = static_cast<uint8_t>(v >> (8 * i));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) *p_++ = static_cast<uint8_t>(v >> (8 * i));
  }
  void f64(double v) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    u64(bits);
  }
  void i32(int32_t v) {
    uint32_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    u32(bits);
  }

 private:
  uint8_t* p_;
};

class LeReader {
 public:
  explicit LeReader(const uint8_t* in) : p_(in) {}
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(*p_++) << (8 * i);
    return v;
  }
  uint64_t u64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(*p_++) << (8 * i);
    return v;
  }
  double f64() {
    const uint64_t bits = u64();
    double v = 0.0;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  int32_t i32() {
    const uint32_t bits = u32();
    int32_t v = 0;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }

 private:
  const uint8_t* p_;
};

}  // namespace p2b
