// One style for every finding (analysis/warning.hpp): `severity[code]: message` in the terminal, and
// `{code, severity, message, ...evidence}` in JSON (docs/report-json.md).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/warning.hpp"

namespace accel::reports {

// "warning[duplicated-samples]: 23 samples are seen twice ..." (no trailing newline).
std::string warning_line(const analysis::Warning& w);

// Each warning on its own line, `indent` before it.
std::string warning_lines(const std::vector<analysis::Warning>& warnings, const std::string& indent = "");

nlohmann::ordered_json warning_json(const analysis::Warning& w);
nlohmann::ordered_json warnings_json(const std::vector<analysis::Warning>& warnings);

}  // namespace accel::reports
