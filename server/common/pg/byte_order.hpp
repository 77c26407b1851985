// PostgreSQL's binary formats are big-endian: these write and read the
// fixed-width integers of values and array headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace p2b::pg::detail {

inline void put_be(std::string& out, uint64_t value, std::size_t width) {
  for (std::size_t i = width; i-- > 0;) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

inline uint64_t get_be(const char* in, std::size_t width) {
  uint64_t value = 0;
  for (std::size_t i = 0; i < width; ++i) value = (value << 8) | static_cast<unsigned char>(in[i]);
  return value;
}

// Type OIDs of pg_type.dat: stable across PostgreSQL versions.
enum Oid : unsigned {
  kBool = 16,
  kBytea = 17,
  kName = 19,
  kInt8 = 20,
  kInt4 = 23,
  kText = 25,
  kFloat8 = 701,
  kUnknown = 705,
  kBpchar = 1042,
  kVarchar = 1043,
  kByteaArray = 1001,
  kInt4Array = 1007,
  kTextArray = 1009,
  kInt8Array = 1016,
};

}  // namespace p2b::pg::detail
