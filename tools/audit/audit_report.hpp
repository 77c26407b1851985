// The audit's table, as text for people and as JSON for scripts (the
// plot, the Python module, CI).
#pragma once

#include <string>
#include <vector>

#include "audit/audit_run.hpp"

namespace p2b::audit {

std::string report_text(const std::vector<AuditRow>& rows, const AuditSettings& settings);
std::string report_json(const std::vector<AuditRow>& rows, const AuditSettings& settings);

}  // namespace p2b::audit
