// Structured logs: one JSON object per line on stderr. Callers pass counts,
// reasons and batch ids only; never key material, plaintext, crowd ids,
// envelope bytes or anything about a sender.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

namespace p2b::shuffler {

struct LogField {
  LogField(const char* k, uint64_t v) : key(k), json(std::to_string(v)) {}
  LogField(const char* k, int v) : key(k), json(std::to_string(v)) {}
  LogField(const char* k, double v);
  LogField(const char* k, const std::string& v);
  LogField(const char* k, const char* v) : LogField(k, std::string(v)) {}

  const char* key;
  std::string json;  // the value, already encoded
};

// Thread-safe; each call writes one whole line. A missing stderr is not an
// error worth dying for.
void log_event(const char* level, const char* event, std::initializer_list<LogField> fields = {});

}  // namespace p2b::shuffler
