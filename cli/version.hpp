// `accel-sim --version` / `accel-sim version`: which accel-sim this is and which upstream behaviour it models,
// so a report can be tied to the Accelerate release and torch shuffle it reproduces.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace accel::cli {

// Several lines: accel-sim's version (CMake's project version), the modelled Accelerate release, and the torch
// versions whose randperm it reproduces bit for bit.
std::string version_text();

// accel-sim's own version (CMake's project version), for reports that say what produced them.
std::string accel_sim_version();

// Adds `--version` and the `version` subcommand to the root command: both print version_text() and exit 0 as
// soon as the command line has been read, before any other work.
void add_version(CLI::App& app);

}  // namespace accel::cli
