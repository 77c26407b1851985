// Searching files for bytes that must not be at rest: the "nothing left on
// disk" tests grep a store's database, -wal and -shm files with this.
#pragma once

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace p2b_test {

// True if the file exists and holds `needle` anywhere; a missing file holds
// nothing.
inline bool file_contains(const std::string& path, const std::vector<uint8_t>& needle) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  const std::vector<uint8_t> hay((std::istreambuf_iterator<char>(in)),
                                 std::istreambuf_iterator<char>());
  return std::search(hay.begin(), hay.end(), needle.begin(), needle.end()) != hay.end();
}

// The database file and the two side files SQLite keeps next to it.
inline std::vector<std::string> store_files(const std::string& db_path) {
  return {db_path, db_path + "-wal", db_path + "-shm"};
}

// True if any of the store's files holds `needle`.
inline bool store_contains(const std::string& db_path, const std::vector<uint8_t>& needle) {
  const auto files = store_files(db_path);
  return std::any_of(files.begin(), files.end(),
                     [&](const std::string& f) { return file_contains(f, needle); });
}

}  // namespace p2b_test
