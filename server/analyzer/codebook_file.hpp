// Loading the codebook file the devices encode with (docs/formats.md). The
// analyzer needs its centroids (default mode), its k (to refuse codes >= k)
// and its fingerprint, which every signed model names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "p2b/codebook_format.hpp"

namespace p2b::analyzer {

struct Codebook {
  CodebookInfo info{};
  std::vector<float> centroids;  // k x dim, row-major
};

// Throws std::runtime_error naming the file and the reason.
Codebook load_codebook_file(const std::string& path);
Codebook parse_codebook_bytes(const uint8_t* data, std::size_t len);

}  // namespace p2b::analyzer
