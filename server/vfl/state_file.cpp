#include "vfl/state_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/keyfiles.hpp"
#include "common/option_values.hpp"

namespace p2b::vfl {

namespace {

std::string dir_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

bool read_state(const std::string& path, ServiceState* out, bool* existed, std::string* err) {
  *existed = false;
  std::ifstream in(path);
  if (!in) {
    if (errno == ENOENT) {
      *out = ServiceState{};
      return true;
    }
    *err = path + ": " + std::strerror(errno);
    return false;
  }
  *existed = true;
  std::string magic, version, k1, v1, k2, v2, extra;
  in >> magic >> version >> k1 >> v1 >> k2 >> v2;
  ServiceState s;
  if (magic != "p2b-vfl-state" || version != "1" || k1 != "round_id" || k2 != "mask_epoch" ||
      !common::parse_count(v1, 0, UINT64_MAX, &s.round_id) ||
      !common::parse_count(v2, 0, UINT64_MAX, &s.mask_epoch) || (in >> extra)) {
    *err = path + ": not a p2b-vfl-state file";
    return false;
  }
  *out = s;
  return true;
}

bool write_state(const std::string& path, const ServiceState& s, std::string* err) {
  std::ostringstream text;
  text << "p2b-vfl-state 1\nround_id " << s.round_id << "\nmask_epoch " << s.mask_epoch << "\n";
  const std::string bytes = text.str();
  keyfiles::StagedKey staged;
  if (!keyfiles::stage_key_file(path, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                                keyfiles::KeyKind::secret_key, &staged, err)) {
    return false;
  }
  if (!keyfiles::commit_staged_key(staged, err)) {
    keyfiles::discard_staged_key(staged);
    return false;
  }
  return keyfiles::sync_directory(dir_of(path), err);
}

}  // namespace p2b::vfl
