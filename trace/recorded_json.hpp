// Reading a recording directory (DIR/rank-<r>.json, written by accelerate_sim.record) into a RecordedRun. Every file
// must be a "recorded" trace of the same run and world size, one per rank; a missing rank, a broken file or a field
// of the wrong type is a ConfigError naming the file and the field.
#pragma once

#include <string>

#include "recorded_run.hpp"

namespace accel::trace {

RecordedRun read_recorded_run(const std::string& dir);

// The accelerator-family config the recording describes, for the simulator (nullopt when the recorder found
// something it does not model, or when nothing says how torch was seeded for a shuffle).
std::optional<Json> recorded_simulation_config(const RecordedRun& run, std::string* why_not);

}  // namespace accel::trace
