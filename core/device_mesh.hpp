// The device mesh a job's loaders are prepared with (prepare_data_loader's torch_device_mesh, or the one an
// Accelerator builds from its ParallelismConfig), and what Accelerate 1.15 derives from it: which loader
// process index and how many loader processes each global rank gets (data_loader.py, prepare_data_loader), and
// how the dispatcher treats a mesh with a "tp" dimension (DataLoaderDispatcher.__init__ / _fetch_batches).
//
// A mesh is laid out as torch's init_device_mesh lays it: global rank r sits at the row-major coordinates of r in
// the mesh shape, the last dimension innermost. Accelerate never reads those coordinates: it divides the rank by
// the sizes of the dimensions it looks up by name, which is right only when those dimensions are innermost. What
// the mesh *means* (which ranks must share a batch) is told by the dimensions' names: data-parallel names
// (`dp_replicate`, `dp_shard`, and a user's `dp`, `fsdp`, `ddp`, `hsdp`) split the data, every other dimension
// (`tp`, `cp`, `sp`, `pp`, `ep`, ...) holds ranks that work on one batch together.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace accel {

struct MeshDim {
  std::string name;
  std::int64_t size = 1;
  friend bool operator==(const MeshDim&, const MeshDim&) = default;
};

// init_device_mesh(device, shape, mesh_dim_names): outermost dimension first.
struct DeviceMesh {
  std::vector<MeshDim> dims;
  std::int64_t size() const noexcept;  // the product of the sizes: the world it spans
  // The size of the dimension named `name`; nullopt when the mesh has none (Accelerate's `name in mesh_dim_names`).
  std::optional<std::int64_t> dim_size(const std::string& name) const;
  // Row-major coordinates of a global rank, one per dimension.
  std::vector<std::int64_t> coordinates(std::int64_t rank) const;
  friend bool operator==(const DeviceMesh&, const DeviceMesh&) = default;
};

// Whether ranks along this dimension are meant to see different data (a data-parallel dimension).
bool is_data_parallel_dim(const std::string& name);

// accelerate.ParallelismConfig's sizes (sp with its only backend, DeepSpeed's Ulysses).
struct ParallelismConfig {
  std::int64_t dp_replicate = 1;
  std::int64_t dp_shard = 1;
  std::int64_t tp = 1;
  std::int64_t cp = 1;
  std::int64_t sp = 1;
  std::int64_t total_size() const noexcept { return dp_replicate * dp_shard * tp * cp * sp; }
  friend bool operator==(const ParallelismConfig&, const ParallelismConfig&) = default;
};

// ParallelismConfig.__post_init__'s ValueErrors and _validate_accelerator's size check (world = the job's
// num_processes; a total of 1 becomes dp_replicate = world there, after the mesh was built). Raises
// AccelerateError (where "ParallelismConfig" / "Accelerator").
void validate(const ParallelismConfig& config, std::int64_t world);

// ParallelismConfig.build_device_mesh: the dimensions of size > 1 in the order dp_replicate, dp_shard, cp, sp, tp;
// nullopt when there are none, or when sp > 1 (DeepSpeed builds its own sequence-parallel groups and Accelerate
// builds no mesh, so the loaders see none).
std::optional<DeviceMesh> build_device_mesh(const ParallelismConfig& config);

// The loader's num_processes and process_index.
struct LoaderProcess {
  std::int64_t num_processes = 1;
  std::int64_t process_index = 0;
  friend bool operator==(const LoaderProcess&, const LoaderProcess&) = default;
};

// prepare_data_loader's rewrite of (num_processes, process_index) from the mesh. Outside DeepSpeed: the index is
// rank // (tp * cp), the count dp_replicate * dp_shard (1 when the mesh has neither name); under DeepSpeed both
// are divided by tp alone.
LoaderProcess mesh_loader_process(const DeviceMesh& mesh, std::int64_t num_processes, std::int64_t process_index,
                                  bool deepspeed);

// What DataLoaderDispatcher does with the mesh: nothing without "tp"; with "tp" (and without the old names "dp" or
// "fsdp", which raise) rank 0 fetches one batch per step and every rank receives it whole (with split_batches, one
// batch is split over every rank as without a mesh, after a warning).
enum class DispatcherMesh { Plain, ReplicateOneBatch };
// Raises ValueError "TP + (DP/FSDP) is not yet supported in dispatch mode" (where "prepare_data_loader").
DispatcherMesh dispatcher_mesh(const DeviceMesh& mesh);

// How the job's ranks are served by the loaders Accelerate prepares with this mesh: they behave as a plain job over
// `data_ranks` processes, and global rank r receives what data rank data_rank_of[r] of that job yields. Sharded
// loaders (dispatch false): the rewritten process index (every rank 0 when the rewritten count is 1, as nothing is
// sharded then). A dispatcher with "tp" and no split_batches: one data rank, received by every rank; any other
// dispatcher: every rank its own slice. Raises what prepare_data_loader raises for the mesh (the dispatcher's
// ValueError) and UnmodelledMesh for a rewritten index outside the rewritten count.
struct MeshDataRanks {
  std::int64_t data_ranks = 1;
  std::vector<std::int64_t> data_rank_of;
  bool dispatcher_replicates = false;
};
MeshDataRanks mesh_data_ranks(const DeviceMesh& mesh, bool deepspeed, bool dispatch, bool split_batches);

// The ranks meant to work on one batch together: those whose coordinates agree on every data-parallel dimension
// (each group ascending, groups by their first rank). A TP x CP block under ParallelismConfig's layout.
std::vector<std::vector<std::int64_t>> model_parallel_groups(const DeviceMesh& mesh);

// A mesh whose loaders this project does not simulate (not an error Accelerate raises): said as such, never
// answered with a guess.
class UnmodelledMesh : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace accel
