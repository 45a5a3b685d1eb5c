// A job prepared with a device mesh (Accelerator(parallelism_config=...) or prepare_data_loader(torch_device_mesh=
// ...)): which global ranks receive which data rank's batches, the arithmetic Accelerate used, and whether that
// arithmetic matches what the mesh means (every tp / cp group on one batch, the data-parallel ranks on different
// ones). The what-if's tables then count data ranks: data_rank_case() is the plain job they run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/warning.hpp"
#include "core/device_mesh.hpp"
#include "trace/trace.hpp"

namespace accel::analysis {

struct MeshReport {
  DeviceMesh mesh;
  bool deepspeed = false;
  bool dispatch = false;
  std::int64_t world = 0;
  std::int64_t data_ranks = 0;
  std::string
      arithmetic;  // "process_index = rank // (tp * cp) = rank // 4; num_processes = dp_replicate * dp_shard = 2"
  // For each data rank, the global ranks that receive its batches.
  std::vector<std::vector<std::int64_t>> receivers;
  // What prepare_data_loader raises for this mesh (the dispatcher's ValueError), if it does.
  std::optional<std::string> rejected;
  // skip_first_batches rebuilt a replicating dispatcher without the mesh: the tables count every rank.
  bool lost_on_skip = false;
  std::vector<Warning> findings;  // mesh-group-split, mesh-data-replicated, mesh-len-mismatch, mesh-lost-on-skip
};

// "dp_shard=2 x tp=4" with separator " x ", "dp_shard=2,tp=4" (the --parallelism / --device-mesh value) with ",".
std::string mesh_dims_text(const DeviceMesh& mesh, const char* separator);

// nullopt without a mesh. Throws UnmodelledMesh (with the ranks and indices) for a mesh whose loaders get a process
// index outside their count.
std::optional<MeshReport> analyze_mesh(const trace::LoaderCase& config);

// The plain job (no mesh) whose ranks are the mesh's data ranks; `config` itself without a mesh, when the mesh is
// rejected (the analysis then meets the same error), and for dispatchers the core runs with the mesh directly.
trace::LoaderCase data_rank_case(const trace::LoaderCase& config);

namespace code {
inline constexpr const char* kMeshGroupSplit = "mesh-group-split";
inline constexpr const char* kMeshDataReplicated = "mesh-data-replicated";
inline constexpr const char* kMeshLenMismatch = "mesh-len-mismatch";
inline constexpr const char* kMeshLostOnSkip = "mesh-lost-on-skip";
}  // namespace code

}  // namespace accel::analysis
