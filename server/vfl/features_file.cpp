#include "vfl/features_file.hpp"

#include <sodium.h>

#include <cmath>
#include <cstdlib>
#include <fstream>

#include "common/option_values.hpp"
#include "p2b/shared_model.hpp"

namespace p2b::vfl {

namespace {

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    out.push_back(line.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

std::string trim(const std::string& s) {
  const std::size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return {};
  const std::size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

}  // namespace

bool parse_user_token(const std::string& hex, UserToken* out) {
  if (hex.size() != 2 * kUserTokenBytes) return false;
  for (const char c : hex) {
    const bool digit = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (!digit) return false;
  }
  std::size_t len = 0;
  return sodium_hex2bin(out->data(), out->size(), hex.data(), hex.size(), nullptr, &len, nullptr) ==
             0 &&
         len == kUserTokenBytes;
}

std::string user_token_hex(const UserToken& t) {
  char buf[2 * kUserTokenBytes + 1];
  sodium_bin2hex(buf, sizeof buf, t.data(), t.size());
  return buf;
}

bool FeatureTable::load(const std::string& path, uint32_t width, std::size_t max_rows,
                        std::string* err) {
  rows_.clear();
  users_.clear();
  width_ = width;
  std::ifstream in(path);
  if (!in) {
    *err = path + ": cannot open";
    return false;
  }
  std::string line;
  std::size_t line_no = 0;
  bool any_item = false, any_user = false;
  while (std::getline(in, line)) {
    ++line_no;
    const std::string where = path + ":" + std::to_string(line_no) + ": ";
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    const std::vector<std::string> f = split_commas(t);
    if (f.size() != 2 + static_cast<std::size_t>(width)) {
      *err = where + "expected " + std::to_string(2 + width) + " fields, got " +
             std::to_string(f.size());
      return false;
    }
    UserToken user{};
    if (!parse_user_token(trim(f[0]), &user)) {
      *err = where + "user_token_hex must be 32 hex digits";
      return false;
    }
    uint64_t item = kUserRow;
    const std::string item_text = trim(f[1]);
    if (item_text == "*") {
      any_user = true;
    } else if (common::parse_count(item_text, 0, UINT32_MAX, &item)) {
      any_item = true;
    } else {
      *err = where + "item_id must be a decimal u32 or *";
      return false;
    }
    if (any_item && any_user) {
      *err = where + "a file holds item rows or user rows (item_id *), not both";
      return false;
    }
    std::vector<double> x(width);
    for (uint32_t i = 0; i < width; ++i) {
      if (!common::parse_real(trim(f[2 + i]), -kMaxRawEntry, kMaxRawEntry, &x[i])) {
        *err =
            where + "feature " + std::to_string(i + 1) + " is not a finite number in [-1e6, 1e6]";
        return false;
      }
    }
    if (!rows_.emplace(std::make_pair(user, item), std::move(x)).second) {
      *err = where + "a second row for the same user and item";
      return false;
    }
    if (rows_.size() > max_rows) {
      *err = path + ": more than " + std::to_string(max_rows) + " rows";
      return false;
    }
    ++users_[user];
  }
  if (rows_.empty()) {
    *err = path + ": no rows";
    return false;
  }
  user_only_ = any_user;
  return true;
}

LookupStatus FeatureTable::lookup(const UserToken& user, const uint32_t* items, std::size_t n_items,
                                  std::vector<double>* out) const {
  if (users_.find(user) == users_.end()) return LookupStatus::unknown_user;
  out->clear();
  if (user_only_) {
    const auto it = rows_.find(std::make_pair(user, kUserRow));
    if (it == rows_.end()) return LookupStatus::unknown_user;
    *out = it->second;
    return LookupStatus::ok;
  }
  out->reserve(n_items * width_);
  for (std::size_t i = 0; i < n_items; ++i) {
    const auto it = rows_.find(std::make_pair(user, static_cast<uint64_t>(items[i])));
    if (it == rows_.end()) return LookupStatus::unknown_item;
    out->insert(out->end(), it->second.begin(), it->second.end());
  }
  return LookupStatus::ok;
}

}  // namespace p2b::vfl
