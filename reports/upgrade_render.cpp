#include "upgrade_render.hpp"

namespace accel::reports {

void render_upgrade(std::ostream& os, const analysis::UpgradeReport& r, const std::string& job) {
  os << "accel-sim upgrade: Accelerate " << r.from << " -> " << r.to << ", " << job << "\n";
  if (!r.rules.empty()) {
    os << "\n  release rules this configuration meets that differ:\n";
    for (const std::string& rule : r.rules) os << "    " << rule << "\n";
  }
  bool unchanged = false;
  for (const auto& o : r.outcomes) {
    if (o.before != o.after) continue;  // listed with the changes
    if (!unchanged) os << "\n  also simulated under both releases, the same:\n";
    unchanged = true;
    os << "    " << o.label << ": " << o.before << "\n";
  }
  if (!r.not_compared.empty()) {
    os << "\n  not compared:\n";
    for (const std::string& why : r.not_compared) os << "    " << why << "\n";
  }
  if (r.nothing_changes() && !r.replayed) {
    os << "\nno change in what was compared (the first pass's steps and counts from the loaders' structure); the "
          "rest was not compared (above)\n";
    return;
  }
  if (r.nothing_changes()) {
    os << "\nnothing changes: every rank gets the same batches, steps, errors and counters under both releases";
    os << (r.outcomes.empty() ? "\n" : ", and the resume and the metric come out the same\n");
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
