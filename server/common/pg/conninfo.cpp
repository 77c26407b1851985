#include "common/pg/conninfo.hpp"

#include <cstring>

#include <libpq-fe.h>

namespace p2b::pg {

namespace {

bool is_secret(const char* keyword) {
  return std::strcmp(keyword, "password") == 0 || std::strcmp(keyword, "sslpassword") == 0;
}

// A value in libpq's key='value' quoting.
std::string quoted(const char* value) {
  std::string out = "'";
  for (const char* c = value; *c != '\0'; ++c) {
    if (*c == '\'' || *c == '\\') out.push_back('\\');
    out.push_back(*c);
  }
  return out + "'";
}

}  // namespace

std::string redact_conninfo(const std::string& conninfo) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &error);
  if (error != nullptr) PQfreemem(error);
  if (options == nullptr) return "(an unparseable connection string)";
  std::string out;
  for (const PQconninfoOption* option = options; option->keyword != nullptr; ++option) {
    if (option->val == nullptr || is_secret(option->keyword)) continue;
    if (!out.empty()) out.push_back(' ');
    out += std::string(option->keyword) + "=" + quoted(option->val);
  }
  PQconninfoFree(options);
  return out;
}

}  // namespace p2b::pg
