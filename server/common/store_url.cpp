#include "common/store_url.hpp"

#include <cctype>
#include <cstddef>

namespace p2b::common {

namespace {

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// "scheme:" at the start, RFC 3986 style: a letter, then letters, digits,
// '+', '-' or '.'. A Windows drive letter ("C:") is one character long and
// so is not taken for a scheme.
std::size_t scheme_length(const std::string& s) {
  if (s.empty() || std::isalpha(static_cast<unsigned char>(s[0])) == 0) return 0;
  std::size_t i = 1;
  while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) != 0 || s[i] == '+' ||
                          s[i] == '-' || s[i] == '.')) {
    ++i;
  }
  return i < s.size() && s[i] == ':' && i > 1 ? i : 0;
}

// Replaces the value after each "password=" up to the next '&' or space.
void redact_parameters(std::string* s) {
  static const std::string key = "password=";
  for (std::size_t at = s->find(key); at != std::string::npos; at = s->find(key, at)) {
    const std::size_t from = at + key.size();
    std::size_t to = from;
    while (to < s->size() && (*s)[to] != '&' && (*s)[to] != ' ') ++to;
    s->replace(from, to - from, "***");
    at = from + 3;
  }
}

}  // namespace

std::string redact_password(const std::string& url) {
  std::string out = url;
  const std::size_t scheme_end = out.find("://");
  if (scheme_end != std::string::npos) {
    const std::size_t user_from = scheme_end + 3;
    const std::size_t authority_end = out.find_first_of("/?#", user_from);
    const std::size_t at =
        out.rfind('@', authority_end == std::string::npos ? out.size() : authority_end);
    if (at != std::string::npos && at >= user_from) {
      const std::size_t colon = out.find(':', user_from);
      if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
    }
  }
  redact_parameters(&out);
  return out;
}

StoreUrl parse_store_url(const std::string& value) {
  if (value.empty()) throw std::invalid_argument("--store is empty");
  StoreUrl url;
  if (starts_with(value, "postgresql://") || starts_with(value, "postgres://")) {
    url.backend = StoreBackend::postgresql;
    url.target = value;
    return url;
  }
  if (starts_with(value, "sqlite:")) {
    url.target = value.substr(7);
    if (url.target.empty()) throw std::invalid_argument("--store sqlite: names no file");
    return url;
  }
  if (scheme_length(value) > 0) {
    throw std::invalid_argument("--store " + redact_password(value) +
                                ": unknown scheme (use sqlite:PATH, a path, or postgresql://...)");
  }
  url.target = value;
  return url;
}

std::string StoreUrl::describe() const {
  return backend == StoreBackend::postgresql ? redact_password(target) : "sqlite:" + target;
}

}  // namespace p2b::common
