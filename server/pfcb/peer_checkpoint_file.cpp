// Writing and reading a peer's checkpoint file: whole-file replacement
// through the key-file staging (fsynced temporary, rename, directory sync).
#include <cerrno>
#include <cstring>
#include <fstream>

#include "common/keyfiles.hpp"
#include "pfcb/peer_checkpoint.hpp"

namespace p2b::pfcb {

bool write_checkpoint(const std::string& path, const Checkpoint& c,
                      const uint8_t key[kStateKeyBytes], std::string* err) {
  std::vector<uint8_t> file;
  if (!seal_checkpoint(c, key, &file)) {
    *err = "checkpoint: encryption failed";
    return false;
  }
  keyfiles::StagedKey staged;
  if (!keyfiles::stage_key_file(path, file.data(), file.size(), keyfiles::KeyKind::secret_key,
                                &staged, err)) {
    return false;
  }
  if (!keyfiles::commit_staged_key(staged, err)) {
    keyfiles::discard_staged_key(staged);
    return false;
  }
  const std::size_t slash = path.rfind('/');
  return keyfiles::sync_directory(slash == std::string::npos ? "." : path.substr(0, slash), err);
}

bool read_checkpoint(const std::string& path, const uint8_t key[kStateKeyBytes], Checkpoint* out,
                     bool* exists, std::string* err) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    *exists = errno != ENOENT;
    if (*exists) *err = path + ": cannot open checkpoint (" + std::strerror(errno) + ")";
    return !*exists;
  }
  *exists = true;
  std::vector<uint8_t> file;
  char c = 0;
  while (file.size() <= kCheckpointMaxBytes && f.get(c)) file.push_back(static_cast<uint8_t>(c));
  if (f.bad()) {
    *err = path + ": read failed";
    return false;
  }
  if (!open_checkpoint(file.data(), file.size(), key, out, err)) {
    *err = path + ": " + *err;
    return false;
  }
  return true;
}

}  // namespace p2b::pfcb
