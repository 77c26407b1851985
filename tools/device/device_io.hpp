// What a host-side device needs from a deployment's files and services: the
// public keys it pins, the codebook it encodes with, the shuffler it reports
// to and the analyzer whose signed model it applies. Shared by p2b-demo and
// p2b-device, so both talk to the services the same way an app would.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "p2b.h"

namespace p2b::device {

// The deployment's public keys, as a device embeds them.
struct DeviceKeys {
  uint8_t shuffler[P2B_KEY_BYTES], analyzer[P2B_KEY_BYTES], verify[P2B_KEY_BYTES];
};

// shuffler.box.pk, analyzer.box.pk and analyzer.sign.pk from `dir`
// (p2b-keygen's layout). Throws std::runtime_error naming the file.
DeviceKeys read_device_keys(const std::filesystem::path& dir);

// A codebook file's centroids (k x dim, row-major), checked by the C API's
// own parser. Throws std::runtime_error.
std::vector<float> read_codebook(const std::filesystem::path& file, uint32_t* dim);

// Waits up to `seconds` for URL/readyz to answer 200, as a device retries a
// service that is starting; false if it never did.
bool wait_ready(const std::string& url, double seconds);

// POSTs the sealed envelopes to URL/v1/reports, `per_post` to a request;
// throws unless every request is answered 202. `posted` (if given) is called
// with the running count after each request.
void post_envelopes(const std::string& shuffler_url, const std::vector<std::string>& envelopes,
                    std::size_t per_post, void (*posted)(std::size_t done, std::size_t total));

// The analyzer's signed model bundle at URL + path (e.g. "/v1/model"), empty
// before its first model. Throws if the analyzer cannot be reached or
// answers neither 200 nor 404.
std::vector<uint8_t> fetch_model(const std::string& analyzer_url, const std::string& path);

}  // namespace p2b::device
