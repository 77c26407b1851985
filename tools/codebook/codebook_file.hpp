// Writes a trained codebook in the shared file format (p2b/codebook_format.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace p2b::codebook {

// Encodes and writes `centroids` (k x d) for q digits. An existing file is
// refused unless `force`; the file is written whole or not at all (a
// temporary beside it, then renamed). On failure returns false with `err`.
bool write_codebook_file(const std::string& path, const std::vector<float>& centroids, uint32_t d,
                         uint32_t q, bool force, std::string* err);

}  // namespace p2b::codebook
