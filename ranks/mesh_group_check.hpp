// The check a tensor- or context-parallel step needs on real ranks: every rank of one model-parallel group
// (core/device_mesh.hpp's model_parallel_groups, the ranks that agree on every data-parallel dimension) must hold
// the same batches, or the group computes one step from different data: silently wrong training. Each rank
// all_gathers one digest per batch over the job's transport and compares its group's.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/communicator.hpp"
#include "core/device_mesh.hpp"
#include "trace/trace.hpp"

namespace accel::ranks {

struct MeshGroupCheck {
  std::vector<std::int64_t> group;  // this rank's model-parallel group, ascending
  std::int64_t batches = 0;         // this rank's batches, over every pass
  // The lowest rank of the group whose batches differ from this rank's, and the first batch (this rank's pass and
  // step) where they do; a rank with fewer batches differs at the first one it lacks.
  std::optional<std::int64_t> differs_from;
  std::int64_t epoch = -1;
  std::int64_t step = -1;
};

// A collective: every rank of the job calls it once, with its own record (nullptr for a rank without one).
MeshGroupCheck check_mesh_group(Communicator& comm, const DeviceMesh& mesh, const trace::RankRecord* record);

}  // namespace accel::ranks
