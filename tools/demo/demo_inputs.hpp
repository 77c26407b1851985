// What p2b-demo's devices and services start from, made when missing: the
// deployment's keys (p2b-keygen) and the codebook file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "device/device_io.hpp"

namespace p2b::demo {

// Runs a command (its output shown); throws "<what> failed" when it fails.
void run_or_throw(const std::string& what, const std::vector<std::string>& argv);

// The device's keys from `dir`, running p2b-keygen there first when they
// are missing or from before batches were signed.
device::DeviceKeys load_or_make_keys(const std::filesystem::path& dir);

// The centroids of `file`, trained (k codes on the d = 10, q = 1 simplex
// grid) and written there first when it is missing.
std::vector<float> load_or_make_codebook(const std::filesystem::path& file, uint32_t k,
                                         uint64_t seed);

}  // namespace p2b::demo
