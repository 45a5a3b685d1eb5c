// The what-if's training section as terminal text (analysis/training_summary.hpp computes it).
#pragma once

#include <string>

#include "analysis/training_summary.hpp"

namespace accel::reports {

// Readable terminal text, warnings included.
std::string render_training_terminal(const analysis::TrainingSummary& summary);

}  // namespace accel::reports
