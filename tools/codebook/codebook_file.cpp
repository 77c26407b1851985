#include "codebook/codebook_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "p2b/codebook_format.hpp"
#include "posix/sodium_port.hpp"

namespace p2b::codebook {

namespace {

bool write_all(int fd, const uint8_t* data, std::size_t len) {
  while (len > 0) {
    const ssize_t w = ::write(fd, data, len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    len -= static_cast<std::size_t>(w);
  }
  return true;
}

}  // namespace

bool write_codebook_file(const std::string& path, const std::vector<float>& centroids, uint32_t d,
                         uint32_t q, bool force, std::string* err) {
  const auto k = static_cast<uint32_t>(centroids.size() / d);
  std::size_t size = 0;
  if (encoded_codebook_size(centroids.data(), k, d, q, &size) != Status::ok) {
    *err = "codebook cannot be encoded (k, d or q out of range)";
    return false;
  }
  std::vector<uint8_t> bytes(size);
  std::size_t written = 0;
  const CryptoPort crypto = port::sodium_crypto();
  if (encode_codebook(crypto, centroids.data(), k, d, q, bytes.data(), size, &written) !=
      Status::ok) {
    *err = "codebook encoding failed";
    return false;
  }
  if (!force && ::access(path.c_str(), F_OK) == 0) {
    *err = path + " exists (use --force to replace it)";
    return false;
  }
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    *err = tmp + ": " + std::strerror(errno);
    return false;
  }
  const bool ok = write_all(fd, bytes.data(), written) && ::fsync(fd) == 0;
  const int saved = errno;
  ::close(fd);
  // Without --force, link() refuses a file that appeared meanwhile.
  const bool placed = ok && (force ? ::rename(tmp.c_str(), path.c_str()) == 0
                                   : ::link(tmp.c_str(), path.c_str()) == 0);
  const int place_errno = errno;
  ::unlink(tmp.c_str());
  if (!placed) {
    *err = path + ": " + std::strerror(ok ? place_errno : saved);
    return false;
  }
  return true;
}

}  // namespace p2b::codebook
