// A party's feature block as a CSV file (docs/vertical-services.md):
//   user_token_hex,item_id,f_1,...,f_dj
// one row per (user, item), or one row per user with item_id "*" when the
// party's features are the user's only (it then answers K' = 1). A file is
// all item rows or all user rows. user_token_hex is the 16-byte PSI
// pseudonym in 32 hex digits; item_id a decimal u32; every f a finite number
// with |f| <= 1e6. Blank lines and lines starting with '#' are skipped.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "vfl/masked_message.hpp"

namespace p2b::vfl {

using UserToken = std::array<uint8_t, kUserTokenBytes>;

// False unless `hex` is exactly 32 hex digits.
bool parse_user_token(const std::string& hex, UserToken* out);
std::string user_token_hex(const UserToken& t);

enum class LookupStatus { ok, unknown_user, unknown_item };

class FeatureTable {
 public:
  // Loads `path`, whose rows must have `width` features; false with a reason
  // (file, line) on any malformed row, a duplicate key, or a mix of item
  // and user rows. At most `max_rows` rows.
  bool load(const std::string& path, uint32_t width, std::size_t max_rows, std::string* err);

  uint32_t width() const { return width_; }
  bool user_only() const { return user_only_; }
  std::size_t rows() const { return rows_.size(); }

  // The features of the requested items, row-major: K' = n_items rows for
  // item features, 1 row for user-only features.
  LookupStatus lookup(const UserToken& user, const uint32_t* items, std::size_t n_items,
                      std::vector<double>* out) const;

 private:
  static constexpr uint64_t kUserRow = uint64_t{1} << 32;  // item_id "*"
  uint32_t width_ = 0;
  bool user_only_ = false;
  std::map<std::pair<UserToken, uint64_t>, std::vector<double>> rows_;
  std::map<UserToken, uint32_t> users_;  // rows per user
};

}  // namespace p2b::vfl
