#include "device_mesh.hpp"

#include <array>
#include <utility>

#include "error.hpp"
#include "mutation.hpp"

namespace accel {
namespace {

[[noreturn]] void value_error(const std::string& where, const std::string& message) {
  throw AccelerateError(PyErrorType::ValueError, where, message);
}

}  // namespace

std::int64_t DeviceMesh::size() const noexcept {
  std::int64_t n = 1;
  for (const MeshDim& d : dims) n *= d.size;
  return n;
}

std::optional<std::int64_t> DeviceMesh::dim_size(const std::string& name) const {
  for (const MeshDim& d : dims) {
    if (d.name == name) return d.size;
  }
  return std::nullopt;
}

std::vector<std::int64_t> DeviceMesh::coordinates(std::int64_t rank) const {
  std::vector<std::int64_t> out(dims.size());
  for (std::size_t i = dims.size(); i-- > 0;) {
    out[i] = rank % dims[i].size;
    rank /= dims[i].size;
  }
  return out;
}

bool is_data_parallel_dim(const std::string& name) {
  static constexpr std::array<std::string_view, 6> kData = {"dp_replicate", "dp_shard", "dp", "fsdp", "ddp", "hsdp"};
  for (std::string_view d : kData) {
    if (name == d) return true;
  }
  return false;
}

void validate(const ParallelismConfig& c, std::int64_t world) {
  const std::pair<const char*, std::int64_t> sizes[] = {
      {"dp_replicate_size", c.dp_replicate}, {"dp_shard_size", c.dp_shard}, {"tp_size", c.tp}, {"cp_size", c.cp}};
  for (const auto& [name, size] : sizes) {
    if (size < 1)
      value_error("ParallelismConfig", std::string(name) + " must be at least 1, but got " + std::to_string(size));
  }
  if (c.sp < 1) value_error("ParallelismConfig", "sp_size must be at least 1, but got " + std::to_string(c.sp));
  if (c.cp > 1 && c.sp > 1) {
    value_error("ParallelismConfig",
                "Context Parallelism (CP) and Sequence Parallelism (SP) are mutually exclusive. Got cp_size=" +
                    std::to_string(c.cp) + " and sp_size=" + std::to_string(c.sp) +
                    ". Please set either cp_size=1 or sp_size=1.");
  }
  if ((c.tp > 1 || c.cp > 1) && c.dp_replicate > 1 && c.dp_shard == 1) {
    value_error(
        "ParallelismConfig",
        "Tensor/Context parallelism (tp/cp_size > 1) cannot be used with pure data parallelism (dp_replicate_size "
        "> 1 and dp_shard_size == 1). Please set dp_shard_size > 1 and dp_replicate_size == 1 to compose FSDP + "
        "TP/CP for 2D parallel, or set dp_replicate_size == 1 and dp_shard_size > 1 to compose HSDP + TP/CP for 3D "
        "parallel.");
  }
  // DeepSpeed's sequence parallelism manages its groups globally, so Accelerate skips the size check for it.
  if (c.sp > 1) return;
  if (c.total_size() != 1 && c.total_size() != world) {
    value_error("Accelerator", "ParallelismConfig total_size (" + std::to_string(c.total_size()) +
                                   ") does not match num_processes (" + std::to_string(world) +
                                   "). Please adjust dp_replicate_size/ dp_shard_size/tp_size/cp_size/sp_size.");
  }
}

std::optional<DeviceMesh> build_device_mesh(const ParallelismConfig& c) {
  if (c.sp > 1) return std::nullopt;
  DeviceMesh mesh;
  const std::pair<const char*, std::int64_t> ordered[] = {
      {"dp_replicate", c.dp_replicate}, {"dp_shard", c.dp_shard}, {"cp", c.cp}, {"sp", c.sp}, {"tp", c.tp}};
  for (const auto& [name, size] : ordered) {
    if (size > 1) mesh.dims.push_back({name, size});
  }
  if (mesh.dims.empty()) return std::nullopt;
  return mesh;
}

LoaderProcess mesh_loader_process(const DeviceMesh& mesh, std::int64_t num_processes, std::int64_t process_index,
                                  bool deepspeed) {
  const std::int64_t tp = mesh.dim_size("tp").value_or(1);
  if (deepspeed) return {num_processes / tp, process_index / tp};
  const std::int64_t cp = mutant(Mutation::MeshIgnoresCp) ? 1 : mesh.dim_size("cp").value_or(1);
  return {mesh.dim_size("dp_replicate").value_or(1) * mesh.dim_size("dp_shard").value_or(1), process_index / (tp * cp)};
}

DispatcherMesh dispatcher_mesh(const DeviceMesh& mesh) {
  if (!mesh.dim_size("tp")) return DispatcherMesh::Plain;
  if (mesh.dim_size("dp") || mesh.dim_size("fsdp")) {
    value_error("prepare_data_loader", "TP + (DP/FSDP) is not yet supported in dispatch mode");
  }
  return DispatcherMesh::ReplicateOneBatch;
}

MeshDataRanks mesh_data_ranks(const DeviceMesh& mesh, bool deepspeed, bool dispatch, bool split_batches) {
  const std::int64_t world = mesh.size();
  MeshDataRanks out;
  out.data_rank_of.resize(static_cast<std::size_t>(world));
  if (dispatch) {
    if (dispatcher_mesh(mesh) == DispatcherMesh::ReplicateOneBatch && !split_batches) {
      out.dispatcher_replicates = true;
      return out;  // every rank receives data rank 0's batches
    }
    out.data_ranks = world;
    for (std::int64_t r = 0; r < world; ++r) out.data_rank_of[static_cast<std::size_t>(r)] = r;
    return out;
  }
  for (std::int64_t r = 0; r < world; ++r) {
    const LoaderProcess p = mesh_loader_process(mesh, world, r, deepspeed);
    out.data_ranks = p.num_processes;
    if (p.num_processes == 1) continue;  // prepare_data_loader shards nothing: every rank iterates everything
    if (p.process_index >= p.num_processes) {
      throw UnmodelledMesh("rank " + std::to_string(r) + " gets process_index " + std::to_string(p.process_index) +
                           " of num_processes " + std::to_string(p.num_processes));
    }
    out.data_rank_of[static_cast<std::size_t>(r)] = p.process_index;
  }
  return out;
}

std::vector<std::vector<std::int64_t>> model_parallel_groups(const DeviceMesh& mesh) {
  std::vector<std::vector<std::int64_t>> groups;
  std::vector<std::vector<std::int64_t>> keys;
  for (std::int64_t r = 0; r < mesh.size(); ++r) {
    const std::vector<std::int64_t> at = mesh.coordinates(r);
    std::vector<std::int64_t> key;
    for (std::size_t i = 0; i < mesh.dims.size(); ++i) {
      if (is_data_parallel_dim(mesh.dims[i].name)) key.push_back(at[i]);
    }
    std::size_t g = 0;
    while (g < keys.size() && keys[g] != key) ++g;
    if (g == keys.size()) {
      keys.push_back(key);
      groups.emplace_back();
    }
    groups[g].push_back(r);
  }
  return groups;
}

}  // namespace accel
