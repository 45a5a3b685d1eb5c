#include "reports/check_render.hpp"
#include "reports/markup_escape.hpp"

#include <cstdio>
#include <sstream>

namespace accel::reports {

std::string render_check_text(const analysis::CheckReport& r) {
  std::ostringstream os;
  for (const auto& o : r.outcomes) {
    os << (o.skipped ? "skip " : o.holds ? "ok   " : "FAIL ") << o.requirement << " (" << o.pass << ")";
    if (!o.holds || o.skipped) os << ": " << o.evidence;
    os << "\n";
  }
  return os.str();
}

nlohmann::ordered_json render_check_json(const analysis::CheckReport& r, const std::string& command_line) {
  nlohmann::ordered_json j;
  j["check_version"] = 1;
  j["command_line"] = command_line;
  j["passed"] = r.all_hold();
  std::int64_t failures = 0;
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const auto& o : r.outcomes) {
    failures += o.holds ? 0 : 1;
    results.push_back(
        {{"requirement", o.requirement},
         {"pass", o.pass},
         {"holds", o.holds},
         {"skipped", o.skipped},
         {"evidence", o.holds && !o.skipped ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(o.evidence)}});
  }
  j["tests"] = static_cast<std::int64_t>(r.outcomes.size());
  j["failures"] = failures;
  j["results"] = std::move(results);
  return j;
}

std::string render_check_junit(const analysis::CheckReport& r, const std::string& command_line) {
  std::int64_t failures = 0, skipped = 0;
  for (const auto& o : r.outcomes) {
    failures += o.holds ? 0 : 1;
    skipped += o.skipped ? 1 : 0;
  }
  std::ostringstream os;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  os << "<testsuites name=\"accel-sim check\" tests=\"" << r.outcomes.size() << "\" failures=\"" << failures
     << "\" errors=\"0\">\n";
  os << "  <testsuite name=\"accel-sim check\" tests=\"" << r.outcomes.size() << "\" failures=\"" << failures
     << "\" errors=\"0\" skipped=\"" << skipped << "\">\n";
  os << "    <properties><property name=\"command_line\" value=\"" << escape_markup(command_line)
     << "\"/></properties>\n";
  for (const auto& o : r.outcomes) {
    os << "    <testcase classname=\"" << escape_markup(o.pass) << "\" name=\"" << escape_markup(o.requirement) << "\"";
    if (o.skipped) {
      os << ">\n      <skipped message=\"" << escape_markup(o.evidence) << "\"/>\n    </testcase>\n";
      continue;
    }
    if (o.holds) {
      os << "/>\n";
      continue;
    }
    os << ">\n      <failure message=\"" << escape_markup(o.requirement + " does not hold on the " + o.pass)
       << "\" type=\"" << escape_markup(o.requirement) << "\">" << escape_markup(o.evidence)
       << "</failure>\n    </testcase>\n";
  }
  os << "  </testsuite>\n</testsuites>\n";
  return os.str();
}

}  // namespace accel::reports
