// A self-check of a transport (`accel-sim-rank --check-collectives`): every collective the Communicator
// offers, including those a trace run never makes (all_gather of batches of different sizes, objects
// longer than one message, barrier), with values each rank can predict. The GPU smoke test runs it
// over NCCL, where no unit test can run.
#pragma once

#include <string>
#include <vector>

#include "core/communicator.hpp"

namespace accel::ranks {

// What went wrong, one line per mismatch; empty when every collective carried the expected values.
std::vector<std::string> check_collectives(Communicator& comm);

}  // namespace accel::ranks
