// The terminal text of `accel-sim upgrade` (analysis/release_upgrade.hpp).
#pragma once

#include <ostream>
#include <string>

#include "analysis/release_upgrade.hpp"

namespace accel::reports {

// `job`: the configuration's one-line description ("2 ranks, 1001 samples, 2 epochs").
void render_upgrade(std::ostream& os, const analysis::UpgradeReport& report, const std::string& job);

}  // namespace accel::reports
