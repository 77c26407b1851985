#include "device/device_io.hpp"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <thread>

#include "common/keyfiles.hpp"

namespace p2b::device {

namespace fs = std::filesystem;

DeviceKeys read_device_keys(const fs::path& dir) {
  DeviceKeys k{};
  std::string err;
  if (!keyfiles::read_key_file((dir / "shuffler.box.pk").string(), k.shuffler, sizeof k.shuffler,
                               &err) ||
      !keyfiles::read_key_file((dir / "analyzer.box.pk").string(), k.analyzer, sizeof k.analyzer,
                               &err) ||
      !keyfiles::read_key_file((dir / "analyzer.sign.pk").string(), k.verify, sizeof k.verify,
                               &err)) {
    throw std::runtime_error("keys: " + err);
  }
  return k;
}

std::vector<float> read_codebook(const fs::path& file, uint32_t* dim) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("codebook: cannot read " + file.string());
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
  std::vector<float> centroids(static_cast<std::size_t>(P2B_MAX_CODES) * P2B_MAX_DIM);
  p2b_codebook_info info{};
  const p2b_status s =
      p2b_codebook_parse(bytes.data(), bytes.size(), centroids.data(), centroids.size(), &info);
  if (p2b_is_error(s)) {
    throw std::runtime_error("codebook " + file.string() + ": " + p2b_status_str(s));
  }
  centroids.resize(static_cast<std::size_t>(info.k) * info.dim);
  *dim = info.dim;
  return centroids;
}

bool wait_ready(const std::string& url, double seconds) {
  httplib::Client cli(url);
  cli.set_connection_timeout(1);
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  for (;;) {
    const auto res = cli.Get("/readyz");
    if (res && res->status == 200) return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

void post_envelopes(const std::string& shuffler_url, const std::vector<std::string>& envelopes,
                    std::size_t per_post, void (*posted)(std::size_t done, std::size_t total)) {
  httplib::Client cli(shuffler_url);
  const std::size_t n = envelopes.size();
  for (std::size_t i = 0; i < n; i += per_post) {
    const std::size_t end = std::min(n, i + per_post);
    std::string body;
    for (std::size_t j = i; j < end; ++j) body += envelopes[j];
    const auto res = cli.Post("/v1/reports", body, "application/octet-stream");
    if (!res || res->status != 202) {
      throw std::runtime_error(
          "POST " + shuffler_url + "/v1/reports answered " +
          (res ? std::to_string(res->status) + " " + res->body : httplib::to_string(res.error())));
    }
    if (posted != nullptr) posted(end, n);
  }
}

std::vector<uint8_t> fetch_model(const std::string& analyzer_url, const std::string& path) {
  httplib::Client cli(analyzer_url);
  const auto res = cli.Get(path);
  if (!res) {
    throw std::runtime_error("GET " + analyzer_url + path + ": " + httplib::to_string(res.error()));
  }
  if (res->status == 404) return {};
  if (res->status != 200) {
    throw std::runtime_error("GET " + analyzer_url + path + " answered " +
                             std::to_string(res->status) + " " + res->body);
  }
  return {res->body.begin(), res->body.end()};
}

}  // namespace p2b::device
