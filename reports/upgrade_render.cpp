#include "upgrade_render.hpp"

namespace accel::reports {

void render_upgrade(std::ostream& os, const analysis::UpgradeReport& r, const std::string& job) {
  os << "accel-sim upgrade: Accelerate " << r.from << " -> " << r.to << ", " << job << "\n";
  if (!r.rules.empty()) {
    os << "\n  release rules this configuration meets that differ:\n";
    for (const std::string& rule : r.rules) os << "    " << rule << "\n";
  }
  if (r.nothing_changes()) {
    os << "\nnothing changes: every rank gets the same batches, steps, errors and counters under both releases\n";
    return;
  }
  os << "\n  what changes (before -> after):\n";
  for (const auto& c : r.changes) os << "    " << c.where << ": " << c.what << "\n";
  if (!r.examples.empty()) {
    os << "\n  for example (first ids, before -> after):\n";
    for (const std::string& e : r.examples) os << "    " << e << "\n";
  }
  os << "\n" << r.changes.size() << (r.changes.size() == 1 ? " change\n" : " changes\n");
}

}  // namespace accel::reports
