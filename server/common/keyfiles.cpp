#include "common/keyfiles.hpp"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "p2b/crypto.hpp"

namespace p2b::keyfiles {

namespace {

static_assert(crypto_generichash_BYTES_MIN <= kFingerprintBytes, "BLAKE2b-128 is in range");

constexpr mode_t kSecretMode = 0600;
constexpr mode_t kPublicMode = 0644;

mode_t mode_of(KeyKind kind) {
  return kind == KeyKind::secret_key ? kSecretMode : kPublicMode;
}

// Takes errno as an argument because cleanup between the failing call and
// the message could overwrite it.
std::string sys_error(const std::string& path, const char* what, int err_no) {
  return path + ": " + what + ": " + std::strerror(err_no);
}

bool write_all(int fd, const uint8_t* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

// Returns how many bytes were read before end of file or an error.
std::size_t read_up_to(int fd, uint8_t* p, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd, p + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  return got;
}

// The file was opened 0600. The final mode is set with fchmod, which the
// umask cannot narrow, and fsync comes after it, so the bytes and the mode
// are durable together.
bool fill_and_close(int fd, const uint8_t* key, std::size_t n, KeyKind kind,
                    const std::string& path, std::string* err) {
  const char* failed = nullptr;
  if (!write_all(fd, key, n)) {
    failed = "write failed";
  } else if (::fchmod(fd, mode_of(kind)) != 0) {
    failed = "chmod failed";
  } else if (::fsync(fd) != 0) {
    failed = "fsync failed";
  }
  int err_no = errno;
  if (::close(fd) != 0 && failed == nullptr) {
    failed = "close failed";
    err_no = errno;
  }
  if (failed != nullptr) *err = sys_error(path, failed, err_no);
  return failed == nullptr;
}

// ".name.XXXXXX" in the directory of `path`. A rename within one directory
// is atomic, which a rename across file systems is not.
std::string temp_template(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  const std::size_t base = slash == std::string::npos ? 0 : slash + 1;
  return path.substr(0, base) + "." + path.substr(base) + ".XXXXXX";
}

bool read_open_file(int fd, const std::string& path, uint8_t* out, std::size_t n, mode_t* mode,
                    std::string* err) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    *err = sys_error(path, "cannot stat", errno);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    *err = path + ": not a regular file";
    return false;
  }
  if (st.st_size != static_cast<off_t>(n)) {
    *err = path + ": is " + std::to_string(st.st_size) +
           " bytes, a key file here must be exactly " + std::to_string(n) +
           " (wrong file, or damaged?)";
    return false;
  }
  // A file that changes size while it is read is not the file that fstat saw.
  uint8_t extra = 0;
  if (read_up_to(fd, out, n) != n || read_up_to(fd, &extra, 1) != 0) {
    *err = path + ": changed size while being read";
    return false;
  }
  *mode = st.st_mode & 07777;
  return true;
}

bool read_with_mode(const std::string& path, uint8_t* out, std::size_t n, mode_t* mode,
                    std::string* err) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    *err = sys_error(path, "cannot open key file", errno);
    return false;
  }
  const bool ok = read_open_file(fd, path, out, n, mode, err);
  ::close(fd);
  return ok;
}

std::string mode_warning(const std::string& path, mode_t mode) {
  // The permission bits only (at most 07777, four digits): the file type's
  // bits are not the operator's to chmod, and the bound keeps gcc's
  // -Wformat-truncation quiet in Release builds.
  char octal[8];
  std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode & 07777));
  return path + ": secret key file has mode " + octal +
         ", wider than 0600: other users may read it (chmod 600 " + path + ")";
}

}  // namespace

bool create_key_file(const std::string& path, const uint8_t* key, std::size_t n, KeyKind kind,
                     std::string* err) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kSecretMode);
  if (fd < 0) {
    *err = sys_error(path, "cannot create key file", errno);
    return false;
  }
  if (fill_and_close(fd, key, n, kind, path, err)) return true;
  ::unlink(path.c_str());
  return false;
}

bool stage_key_file(const std::string& path, const uint8_t* key, std::size_t n, KeyKind kind,
                    StagedKey* out, std::string* err) {
  const std::string tmpl = temp_template(path);
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) {
    *err = sys_error(tmpl, "cannot create temporary file", errno);
    return false;
  }
  const std::string temp_path(name.data());
  if (!fill_and_close(fd, key, n, kind, temp_path, err)) {
    ::unlink(temp_path.c_str());
    return false;
  }
  out->temp_path = temp_path;
  out->path = path;
  return true;
}

bool commit_staged_key(const StagedKey& staged, std::string* err) {
  if (::rename(staged.temp_path.c_str(), staged.path.c_str()) == 0) return true;
  *err = sys_error(staged.path, "cannot replace key file", errno);
  return false;
}

void discard_staged_key(const StagedKey& staged) {
  ::unlink(staged.temp_path.c_str());
}

bool sync_directory(const std::string& dir, std::string* err) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    *err = sys_error(dir, "cannot open directory", errno);
    return false;
  }
  const bool ok = ::fsync(fd) == 0;
  if (!ok) *err = sys_error(dir, "fsync failed", errno);
  ::close(fd);
  return ok;
}

bool read_key_file(const std::string& path, uint8_t* out, std::size_t n, std::string* err) {
  mode_t mode = 0;
  return read_with_mode(path, out, n, &mode, err);
}

bool read_secret_key_file(const std::string& path, uint8_t* out, std::size_t n, std::string* err,
                          std::string* warning) {
  warning->clear();
  mode_t mode = 0;
  if (!read_with_mode(path, out, n, &mode, err)) {
    sodium_memzero(out, n);
    return false;
  }
  if ((mode & ~kSecretMode) != 0) *warning = mode_warning(path, mode);
  return true;
}

bool fingerprint_hex(const uint8_t* pk, std::string* hex) {
  uint8_t fp[kFingerprintBytes];
  if (sodium_init() < 0 ||
      crypto_generichash(fp, sizeof fp, pk, kPublicKeyBytes, nullptr, 0) != 0) {
    return false;
  }
  char buf[2 * kFingerprintBytes + 1];
  sodium_bin2hex(buf, sizeof buf, fp, sizeof fp);
  hex->assign(buf);
  return true;
}

}  // namespace p2b::keyfiles
