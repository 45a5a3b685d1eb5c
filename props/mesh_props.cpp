// Property 14: a job prepared with the mesh ParallelismConfig builds (dp_shard = the data ranks, then cp, then tp).
// Every tp x cp group (the ranks whose dp_shard coordinate agrees) iterates identical batches, and the g-th group
// iterates what rank g of a plain job over dp_shard ranks iterates: the mesh changes who receives a batch, never
// which batches the data ranks see. Golden: golden/cases-torch2/mesh-* (the real prepare_data_loader with a real
// DeviceMesh over gloo) pins the same arithmetic on recorded ranks.
#include <rapidcheck.h>

#include "core/device_mesh.hpp"
#include "loader_config.hpp"
#include "properties.hpp"

namespace accel::props {

void mesh_groups_share_batches_and_data_ranks_run_the_plain_job() {
  auto [plain, choices] =
      *gen_drawn({.dispatch = false, .max_ranks = 4, .max_rare_ranks = 4, .max_len = 200, .max_batch = 8}, 1, 2);
  ParallelismConfig pc;
  pc.dp_shard = plain.ranks;
  pc.tp = *int_in(1, 3);
  pc.cp = *int_in(1, 2);
  if (pc.total_size() == 1) pc.tp = 2;  // some mesh: a config of all ones builds none
  const auto mesh = build_device_mesh(pc);
  RC_TAG(pc.cp > 1 ? "cp" : "no cp");
  const trace::LoaderCase plain_case = loader_case(plain, choices.count);
  trace::LoaderCase mesh_case = plain_case;
  mesh_case.prepare.num_processes = pc.total_size();
  mesh_case.prepare.torch_device_mesh = mesh;
  const auto expected = simulate_ranks(plain_case);
  const auto got = simulate_ranks(mesh_case);
  const auto groups = model_parallel_groups(*mesh);
  RC_ASSERT(static_cast<std::int64_t>(groups.size()) == plain.ranks);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (std::int64_t r : groups[g]) {
      const auto& mine = got.at(static_cast<std::size_t>(r));
      const auto& theirs = expected.at(g);
      RC_ASSERT(mine.attributes.len == theirs.attributes.len);
      RC_ASSERT(mine.epochs.size() == theirs.epochs.size());
      for (std::size_t e = 0; e < mine.epochs.size(); ++e) {
        RC_ASSERT(mine.epochs[e].batches == theirs.epochs[e].batches);
        RC_ASSERT(mine.epochs[e].end_of_dataloader == theirs.epochs[e].end_of_dataloader);
      }
    }
  }
}

// Dispatching under "tp" alone: rank 0 fetches one batch per step and every rank receives all of it, so every rank
// iterates what a one-process dispatcher yields (without split_batches).
void mesh_tp_dispatch_replicates_one_batch_to_every_rank() {
  auto [one, choices] = *gen_drawn({.dispatch = true,
                                    .only_dispatch = true,
                                    .max_ranks = 1,
                                    .max_rare_ranks = 1,
                                    .max_dispatch_ranks = 1,
                                    .max_len = 200,
                                    .max_batch = 8},
                                   1, 2);
  const std::int64_t tp = *int_in(2, 4);
  // With split_batches the one batch is split over every rank, as without a mesh (mesh-fsdp2-tp2-iter-dispatch-split).
  one.split = false;
  const trace::LoaderCase one_case = loader_case(one, choices.count);
  trace::LoaderCase mesh_case = one_case;
  mesh_case.prepare.num_processes = tp;
  mesh_case.prepare.torch_device_mesh = DeviceMesh{{{"tp", tp}}};
  const auto expected = simulate_ranks(one_case);
  const auto got = simulate_ranks(mesh_case);
  RC_ASSERT(static_cast<std::int64_t>(got.size()) == tp);
  for (const auto& rank : got) {
    RC_ASSERT(rank.epochs.size() == expected.at(0).epochs.size());
    for (std::size_t e = 0; e < rank.epochs.size(); ++e) {
      RC_ASSERT(rank.epochs[e].batches == expected.at(0).epochs[e].batches);
    }
  }
}

// Resumed under "tp" in 1.15.0: skip_first_batches rebuilds the dispatcher without the mesh (recorded,
// mesh-accel-*-iter-skip2), so a pass over the skipped loader is, on every rank, what the same dispatcher over the
// same ranks without any mesh yields after the same skip; the pass before it stays the replicated one batch. (1.16.0
// passes the mesh on: property 11c's release and golden/cases-releases/1.16.0/rel-mesh-* cover it.)
void mesh_skipped_tp_dispatcher_is_the_plain_dispatcher() {
  auto [plain, choices] = *gen_drawn({.dispatch = true,
                                      .only_dispatch = true,
                                      .max_ranks = 4,
                                      .max_rare_ranks = 4,
                                      .max_dispatch_ranks = 4,
                                      .max_len = 200,
                                      .max_batch = 8},
                                     1, 3);
  if (plain.ranks < 2) plain.ranks = 2;  // a tp group of one is no group
  plain.split = false;  // with split_batches the one batch is split over the ranks (mesh-fsdp2-tp2-iter-dispatch-split)
  const std::int64_t k = choices.up_to(4);
  RC_TAG(k == 0 ? "skip 0" : "skip > 0");
  // Pass 0 prepared, the last pass skipped: the skipped pass follows a replicated one, as in a resumed job.
  std::vector<trace::LoaderRole> schedule(static_cast<std::size_t>(choices.count + 1), trace::LoaderRole::Prepared);
  schedule.back() = trace::LoaderRole::Skipped;
  trace::LoaderCase plain_case = loader_case(plain, choices.count + 1, k, schedule);
  plain_case.prepare.release = kBaselineRelease;
  trace::LoaderCase mesh_case = plain_case;
  mesh_case.prepare.torch_device_mesh = DeviceMesh{{{"tp", plain.ranks}}};
  const auto expected = simulate_ranks(plain_case);
  const auto got = simulate_ranks(mesh_case);
  RC_ASSERT(got.size() == expected.size());
  for (std::size_t r = 0; r < got.size(); ++r) {
    RC_ASSERT(!got[r].epochs.empty());
    RC_ASSERT(got[r].epochs.size() == expected[r].epochs.size());
    RC_ASSERT(got[r].epochs.back().batches == expected[r].epochs.back().batches);
    // Before the skip every rank holds rank 0's batches (the one batch, replicated).
    RC_ASSERT(got[r].epochs.front().batches == got[0].epochs.front().batches);
  }
}

}  // namespace accel::props
