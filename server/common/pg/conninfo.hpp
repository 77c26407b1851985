// Connection strings in logs and errors: the secrets taken out.
#pragma once

#include <string>

namespace p2b::pg {

// `conninfo` (a postgresql:// URL or key=value string) rewritten as
// key=value pairs without password or sslpassword, parsed as libpq parses
// it. A string libpq cannot parse comes back as a fixed placeholder, since
// it may hold a password in a form only the server would see as one.
std::string redact_conninfo(const std::string& conninfo);

}  // namespace p2b::pg
