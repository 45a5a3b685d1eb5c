#include "mesh_group_check.hpp"

#include <algorithm>
#include <tuple>

namespace accel::ranks {
namespace {

// FNV-1a over the batch's length and ids: equal batches, equal digests; a collision would hide a difference
// with probability 2^-64 per batch.
std::int64_t digest(const Batch& batch) {
  std::uint64_t h = 1469598103934665603ULL;
  const auto mix = [&h](std::uint64_t v) {
    for (int byte = 0; byte < 8; ++byte) {
      h ^= (v >> (8 * byte)) & 0xffU;
      h *= 1099511628211ULL;
    }
  };
  mix(batch.size());
  for (const std::int64_t id : batch) mix(static_cast<std::uint64_t>(id));
  return static_cast<std::int64_t>(h);
}

}  // namespace

MeshGroupCheck check_mesh_group(Communicator& comm, const DeviceMesh& mesh, const trace::RankRecord* record) {
  const std::int64_t me = comm.rank();
  MeshGroupCheck out;
  for (const auto& group : model_parallel_groups(mesh)) {
    if (std::find(group.begin(), group.end(), me) != group.end()) out.group = group;
  }
  Batch digests;
  std::vector<std::pair<std::int64_t, std::int64_t>> where;  // (epoch, step) of each digest
  if (record) {
    for (const auto& pass : record->epochs) {
      for (std::size_t s = 0; s < pass.batches.size(); ++s) {
        digests.push_back(digest(pass.batches[s]));
        where.emplace_back(pass.epoch, static_cast<std::int64_t>(s));
      }
    }
  }
  out.batches = static_cast<std::int64_t>(digests.size());
  const auto all = comm.all_gather(digests);
  std::size_t first = digests.size() + 1;  // past every batch: no difference
  for (const std::int64_t peer : out.group) {
    if (peer == me) continue;
    const Batch& theirs = all.at(static_cast<std::size_t>(peer));
    const auto [mine_end, theirs_end] = std::mismatch(digests.begin(), digests.end(), theirs.begin(), theirs.end());
    if (mine_end == digests.end() && theirs_end == theirs.end()) continue;
    const auto at = static_cast<std::size_t>(mine_end - digests.begin());
    if (at < first) {
      first = at;
      out.differs_from = peer;
    }
  }
  if (out.differs_from && first < where.size()) std::tie(out.epoch, out.step) = where[first];
  if (out.differs_from && first >= where.size() && !where.empty()) {
    // The peer has more batches than this rank: the difference is the step after this rank's last.
    out.epoch = where.back().first;
    out.step = where.back().second + 1;
  }
  return out;
}

}  // namespace accel::ranks
