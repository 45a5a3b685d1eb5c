#include "analysis/mesh_layout.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/prepare_data_loader.hpp"

namespace accel::analysis {
namespace {

// Streamed, not concatenated: GCC 12's -Wrestrict misfires on the temporaries of `a + to_string(b) + ...`.
std::string ranks_text(const std::vector<std::int64_t>& ranks) {
  std::ostringstream os;
  std::size_t i = 0;
  while (i < ranks.size()) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    os << (i ? ", " : "") << ranks[i];
    if (j > i) os << "-" << ranks[j];
    i = j + 1;
  }
  return os.str();
}

std::string arithmetic_of(const DeviceMesh& mesh, bool deepspeed) {
  const std::int64_t tp = mesh.dim_size("tp").value_or(1);
  const std::int64_t cp = mesh.dim_size("cp").value_or(1);
  const LoaderProcess p = mesh_loader_process(mesh, mesh.size(), 0, deepspeed);
  std::ostringstream os;
  if (deepspeed) {
    os << "DeepSpeed: process_index = rank // tp = rank // " << tp << "; num_processes = " << mesh.size()
       << " // tp = " << p.num_processes;
  } else {
    os << "process_index = rank // (tp * cp) = rank // " << tp * cp
       << "; num_processes = dp_replicate * dp_shard = " << p.num_processes;
    if (!mesh.dim_size("dp_replicate") && !mesh.dim_size("dp_shard")) os << " (the mesh has neither name)";
  }
  return os.str();
}

// skip_first_batches builds its dispatcher without the mesh (core/data_loader_dispatcher.cpp): a skipped pass of a
// dispatcher that replicates under "tp" slices every batch over all ranks instead.
bool skips_a_replicating_dispatcher(const trace::LoaderCase& c, const MeshDataRanks& m, bool dispatch) {
  // From 1.16.0 the skipped dispatcher keeps the mesh (skip_keeps_loader_options): nothing is lost.
  return dispatch && m.dispatcher_replicates && !skip_keeps_loader_options(c.prepare.release) &&
         std::find(c.schedule.begin(), c.schedule.end(), trace::LoaderRole::Skipped) != c.schedule.end();
}

}  // namespace

std::string mesh_dims_text(const DeviceMesh& mesh, const char* separator) {
  std::string out;
  for (const MeshDim& d : mesh.dims) out += (out.empty() ? "" : separator) + d.name + "=" + std::to_string(d.size);
  return out;
}

trace::LoaderCase data_rank_case(const trace::LoaderCase& c) {
  if (!c.prepare.torch_device_mesh) return c;
  const bool dispatch = resolve_dispatch_batches(c.loader, c.prepare);
  MeshDataRanks m;
  try {
    m = mesh_data_ranks(*c.prepare.torch_device_mesh, c.prepare.deepspeed, dispatch, c.prepare.split_batches);
  } catch (const AccelerateError&) {
    return c;  // prepare_data_loader raises it for the case itself
  }
  // The core's dispatcher reads the mesh itself, and forgets it in a skipped pass as Accelerate does.
  if (dispatch && (!m.dispatcher_replicates || skips_a_replicating_dispatcher(c, m, dispatch))) return c;
  trace::LoaderCase out = c;
  out.prepare.torch_device_mesh.reset();
  out.prepare.deepspeed = false;
  out.prepare.num_processes = m.data_ranks;
  return out;
}

std::optional<MeshReport> analyze_mesh(const trace::LoaderCase& c) {
  if (!c.prepare.torch_device_mesh) return std::nullopt;
  MeshReport r;
  r.mesh = *c.prepare.torch_device_mesh;
  r.deepspeed = c.prepare.deepspeed;
  r.dispatch = resolve_dispatch_batches(c.loader, c.prepare);
  r.world = r.mesh.size();
  r.arithmetic = r.dispatch ? "DataLoaderDispatcher: rank 0 fetches for all " + std::to_string(r.world) + " processes"
                            : arithmetic_of(r.mesh, r.deepspeed);
  MeshDataRanks m;
  try {
    m = mesh_data_ranks(r.mesh, r.deepspeed, r.dispatch, c.prepare.split_batches);
  } catch (const AccelerateError& e) {
    r.rejected = std::string(python_name(e.type())) + ": " + e.message();
    return r;
  }
  if (m.dispatcher_replicates)
    r.arithmetic += "; with \"tp\" in the mesh it fetches one batch per step and every rank receives all of it";
  r.data_ranks = m.data_ranks;
  r.receivers.assign(static_cast<std::size_t>(m.data_ranks), {});
  for (std::int64_t g = 0; g < r.world; ++g)
    r.receivers[static_cast<std::size_t>(m.data_rank_of[static_cast<std::size_t>(g)])].push_back(g);

  const auto groups = model_parallel_groups(r.mesh);
  std::vector<std::string> model_dims, data_dims;
  for (const MeshDim& d : r.mesh.dims) (is_data_parallel_dim(d.name) ? data_dims : model_dims).push_back(d.name);
  // Ranks of one model-parallel group must compute on one batch.
  std::int64_t split = 0;
  for (const auto& group : groups) {
    std::set<std::int64_t> got;
    for (std::int64_t g : group) got.insert(m.data_rank_of[static_cast<std::size_t>(g)]);
    if (got.size() < 2) continue;
    if (split++ > 0) continue;
    std::int64_t other = group.front();
    for (std::int64_t g : group) {
      if (m.data_rank_of[static_cast<std::size_t>(g)] != m.data_rank_of[static_cast<std::size_t>(group.front())]) {
        other = g;
        break;
      }
    }
    std::string along;
    for (const auto& d : model_dims) along += (along.empty() ? "" : "/") + d;
    r.findings.push_back(
        Warning(code::kMeshGroupSplit, Severity::Error,
                "ranks " + std::to_string(group.front()) + " and " + std::to_string(other) + " of one " + along +
                    " group (ranks " + ranks_text(group) +
                    ", which must compute on one batch) get different batches: " +
                    (r.dispatch ? std::string("the dispatcher slices every batch over all ranks")
                                : "Accelerate divides the rank by tp * cp, right only when tp and cp are the mesh's "
                                  "innermost dimensions; this mesh is " +
                                      mesh_dims_text(r.mesh, " x ")) +
                    ", so the model trains on mismatched inputs, silently")
            .with("ranks", std::vector<std::int64_t>{group.front(), other})
            .with("data_ranks", std::vector<std::int64_t>{m.data_rank_of[static_cast<std::size_t>(group.front())],
                                                          m.data_rank_of[static_cast<std::size_t>(other)]})
            .with("groups_split", std::int64_t{0}));
  }
  if (split > 0) r.findings.back().evidence.back().second = split;
  // Different data-parallel groups should see different data.
  std::vector<std::set<std::size_t>> groups_of(static_cast<std::size_t>(m.data_ranks));
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    for (std::int64_t g : groups[gi])
      groups_of[static_cast<std::size_t>(m.data_rank_of[static_cast<std::size_t>(g)])].insert(gi);
  }
  for (std::size_t d = 0; d < groups_of.size(); ++d) {
    if (groups_of[d].size() < 2 || data_dims.empty()) continue;
    const auto a = groups[*groups_of[d].begin()];
    const auto b = groups[*std::next(groups_of[d].begin())];
    std::string why;
    if (m.dispatcher_replicates) {
      why =
          "the dispatcher sends every rank the same batch whenever the mesh has \"tp\" (it refuses only the old names "
          "dp / fsdp), so the data-parallel dimension trains on copies";
    } else {
      why = "Accelerate counts only dimensions named dp_replicate and dp_shard as data ranks; this mesh's " +
            std::string(data_dims.size() == 1 ? "dimension " : "dimensions ");
      for (std::size_t i = 0; i < data_dims.size(); ++i) why += (i ? ", " : "") + data_dims[i];
      why += " " + std::string(data_dims.size() == 1 ? "is" : "are") +
             " not sharded, so every data-parallel group sees the same samples";
    }
    r.findings.push_back(Warning(code::kMeshDataReplicated, Severity::Warning,
                                 "data-parallel groups of ranks " + ranks_text(a) + " and " + ranks_text(b) +
                                     " receive identical batches: " + why)
                             .with("ranks", std::vector<std::int64_t>{a.front(), b.front()})
                             .with("data_ranks", r.data_ranks)
                             .with("data_parallel_groups", static_cast<std::int64_t>(groups.size())));
    break;
  }
  if (skips_a_replicating_dispatcher(c, m, r.dispatch)) {
    r.lost_on_skip = true;
    // Every rank of a tp group then gets its own slice of the dispatched batch.
    const auto& group = groups.front();
    if (group.size() > 1) {
      r.findings.push_back(
          Warning(code::kMeshLostOnSkip, Severity::Error,
                  "skip_first_batches (a resume) builds its DataLoaderDispatcher without the torch_device_mesh: "
                  "the resumed pass slices each batch over all " +
                      std::to_string(r.world) + " ranks, so ranks " + std::to_string(group[0]) + " and " +
                      std::to_string(group[1]) + " of one tp group (ranks " + ranks_text(group) +
                      ") get different slices after the resume, where the pass before it gave them one batch")
              .with("ranks", std::vector<std::int64_t>{group[0], group[1]})
              .with("world", r.world));
    }
  }
  if (m.dispatcher_replicates) {
    // __len__ still divides the underlying loader's length by num_processes, though one batch goes out per step.
    try {
      const auto real = std::get<DataLoaderDispatcher>(prepare_data_loader(c.loader, c.prepare)).len();
      const auto yielded =
          std::get<DataLoaderDispatcher>(prepare_data_loader(c.loader, data_rank_case(c).prepare)).len();
      if (real.ok() && yielded.ok() && real.value() != yielded.value()) {
        r.findings.push_back(
            Warning(code::kMeshLenMismatch, Severity::Warning,
                    "len(dataloader) is " + std::to_string(real.value()) + " on every rank but each rank yields " +
                        std::to_string(yielded.value()) +
                        " batches: under \"tp\" the dispatcher sends one batch per step while its __len__ "
                        "still divides by num_processes (" +
                        std::to_string(r.world) + "); a schedule sized from len() ends early")
                .with("len", real.value())
                .with("batches", yielded.value()));
      }
    } catch (const AccelerateError&) {
      // The plain analysis meets and reports it.
    }
  }
  return r;
}

}  // namespace accel::analysis
