// `accel-sim check`'s result (analysis::CheckReport) as text lines, as JSON, and as JUnit XML (one testcase
// per requirement per pass, a <failure> carrying the evidence) for CI systems that show test results natively.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "analysis/requirements.hpp"

namespace accel::reports {

// "ok   no-duplicates (first pass)" / "FAIL lockstep (first pass): evidence", one line each.
std::string render_check_text(const analysis::CheckReport& report);

nlohmann::ordered_json render_check_json(const analysis::CheckReport& report, const std::string& command_line);

// A JUnit XML document: <testsuites><testsuite name="accel-sim check" ...><testcase classname="PASS" name="REQ">.
std::string render_check_junit(const analysis::CheckReport& report, const std::string& command_line);

}  // namespace accel::reports
