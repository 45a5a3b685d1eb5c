// The tp / cp group comparison of real ranks, over the in-process transport: which group, which rank and which
// step it names when one rank of a group holds other batches.
#include "ranks/mesh_group_check.hpp"

#include <gtest/gtest.h>

#include "sim/in_process_group.hpp"

namespace accel::ranks {
namespace {

trace::RankRecord record_of(std::int64_t rank, std::vector<std::vector<Batch>> passes) {
  trace::RankRecord r;
  r.rank = rank;
  for (std::size_t e = 0; e < passes.size(); ++e) {
    trace::PassRecord pass;
    pass.epoch = static_cast<std::int64_t>(e);
    pass.batches = std::move(passes[e]);
    r.epochs.push_back(std::move(pass));
  }
  return r;
}

// tp outermost: the ranks that agree on dp_shard are {0, 2} and {1, 3}.
const DeviceMesh kTpOuter{{{"tp", 2}, {"dp_shard", 2}}};

std::vector<MeshGroupCheck> run(const DeviceMesh& mesh, const std::vector<trace::RankRecord>& records) {
  std::vector<MeshGroupCheck> out(records.size());
  sim::run_ranks_in_threads(static_cast<std::int64_t>(records.size()), [&](std::int64_t r, Communicator& comm) {
    out[static_cast<std::size_t>(r)] = check_mesh_group(comm, mesh, &records[static_cast<std::size_t>(r)]);
  });
  return out;
}

TEST(MeshGroupCheck, GroupsOnTheSameBatchesAgree) {
  const auto checks = run(kTpOuter, {record_of(0, {{{0, 1}, {4, 5}}}), record_of(1, {{{2, 3}, {6, 7}}}),
                                     record_of(2, {{{0, 1}, {4, 5}}}), record_of(3, {{{2, 3}, {6, 7}}})});
  EXPECT_EQ(checks[0].group, (std::vector<std::int64_t>{0, 2}));
  EXPECT_EQ(checks[3].group, (std::vector<std::int64_t>{1, 3}));
  for (const auto& c : checks) {
    EXPECT_FALSE(c.differs_from.has_value());
    EXPECT_EQ(c.batches, 2);
  }
}

TEST(MeshGroupCheck, NamesThePeerAndTheFirstStepThatDiffers) {
  // Rank 2 agrees with rank 0 on epoch 0 and differs at epoch 1's second batch.
  const auto checks = run(kTpOuter, {record_of(0, {{{0, 1}}, {{4, 5}, {8, 9}}}), record_of(1, {{{2, 3}}, {{6, 7}}}),
                                     record_of(2, {{{0, 1}}, {{4, 5}, {9, 8}}}), record_of(3, {{{2, 3}}, {{6, 7}}})});
  ASSERT_TRUE(checks[0].differs_from.has_value());
  EXPECT_EQ(*checks[0].differs_from, 2);
  EXPECT_EQ(checks[0].epoch, 1);
  EXPECT_EQ(checks[0].step, 1);
  ASSERT_TRUE(checks[2].differs_from.has_value());
  EXPECT_EQ(*checks[2].differs_from, 0);
  EXPECT_FALSE(checks[1].differs_from.has_value());
  EXPECT_FALSE(checks[3].differs_from.has_value());
}

TEST(MeshGroupCheck, AMissingBatchIsADifference) {
  // Rank 3 has one batch less than rank 1: the step after its last differs.
  const auto checks =
      run(kTpOuter, {record_of(0, {{{0}}}), record_of(1, {{{1}, {3}}}), record_of(2, {{{0}}}), record_of(3, {{{1}}})});
  ASSERT_TRUE(checks[1].differs_from.has_value());
  EXPECT_EQ(*checks[1].differs_from, 3);
  EXPECT_EQ(checks[1].step, 1);
  ASSERT_TRUE(checks[3].differs_from.has_value());
  EXPECT_EQ(checks[3].epoch, 0);
  EXPECT_EQ(checks[3].step, 1);
  EXPECT_FALSE(checks[0].differs_from.has_value());
}

}  // namespace
}  // namespace accel::ranks
