// Just enough of ZIP to read NumPy .npz files: the central directory
// (with ZIP64 sizes), stored and deflated entries, CRC-32 checked. No
// encryption, no multi-disk archives. The bytes are untrusted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace p2b::data {

struct ZipEntry {
  std::string name;
  std::vector<uint8_t> bytes;  // uncompressed
};

// Throws std::runtime_error "<archive>: <problem>". Archives of more than
// max_entries entries, or whose entries add up to more than max_total_bytes
// uncompressed, are refused before that much is inflated.
std::vector<ZipEntry> read_zip(const uint8_t* data, size_t size, const std::string& archive,
                               size_t max_entries = 64, size_t max_total_bytes = size_t{1} << 29);

}  // namespace p2b::data
