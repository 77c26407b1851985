// What one p2b-analyzer process does (docs/analyzer.md, "Roles"): `all` is
// the single process (the only role on SQLite); on PostgreSQL, `worker`s
// apply batches and one `publisher` signs models.
#pragma once

#include <string>

namespace p2b::analyzer {

enum class Role { all, worker, publisher };

inline const char* role_name(Role r) {
  switch (r) {
    case Role::worker:
      return "worker";
    case Role::publisher:
      return "publisher";
    case Role::all:
      break;
  }
  return "all";
}

inline bool parse_role(const std::string& s, Role* out) {
  for (const Role r : {Role::all, Role::worker, Role::publisher}) {
    if (s == role_name(r)) {
      *out = r;
      return true;
    }
  }
  return false;
}

}  // namespace p2b::analyzer
