#include "reports/warning_render.hpp"

#include <type_traits>

namespace accel::reports {

std::string warning_line(const analysis::Warning& w) {
  return std::string(analysis::severity_name(w.severity)) + "[" + w.code + "]: " + w.message;
}

std::string warning_lines(const std::vector<analysis::Warning>& warnings, const std::string& indent) {
  std::string out;
  for (const auto& w : warnings) out += indent + warning_line(w) + "\n";
  return out;
}

nlohmann::ordered_json warning_json(const analysis::Warning& w) {
  nlohmann::ordered_json j;
  j["code"] = w.code;
  j["severity"] = analysis::severity_name(w.severity);
  j["message"] = w.message;
  for (const auto& [key, value] : w.evidence) {
    // The evidence never overwrites the three fixed keys.
    if (key == "code" || key == "severity" || key == "message") continue;
    std::visit([&j, &key](const auto& v) { j[key] = v; }, value);
  }
  return j;
}

nlohmann::ordered_json warnings_json(const std::vector<analysis::Warning>& warnings) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const auto& w : warnings) a.push_back(warning_json(w));
  return a;
}

}  // namespace accel::reports
