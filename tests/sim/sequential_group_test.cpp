// The sequential schedule of talking ranks against the threaded InProcessGroup: same payloads, and the
// same hang (index, op, waiting and missing ranks) where one rank stops making collectives early.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <thread>

#include "sim/in_process_group.hpp"
#include "sim/sequential_group.hpp"
#include "sim/simulator.hpp"
#include "tests/support/loader_configs.hpp"

namespace accel::sim {
namespace {

using accel::testing::map_case;

TEST(SequentialGroup, EveryRankGetsRankZerosPayloadsAndOneSharedBatch) {
  SequentialGroup group(3);
  std::vector<std::vector<std::int64_t>> objects(3);
  std::vector<const Batch*> buffers(3);
  std::vector<std::shared_ptr<const Batch>> keep(3);
  ASSERT_TRUE(group.run([&](std::int64_t r, Communicator& comm) {
    objects[static_cast<std::size_t>(r)] = comm.broadcast_object({r, 10 * r}, 0);
    auto b = comm.broadcast_shared(r == 0 ? std::make_shared<const Batch>(Batch{7, 8, 9}) : nullptr, 3, 0);
    keep[static_cast<std::size_t>(r)] = b;
    buffers[static_cast<std::size_t>(r)] = b.get();
    comm.barrier();
  }));
  for (std::size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(objects[r], (std::vector<std::int64_t>{0, 0}));
    EXPECT_EQ(*keep[r], (Batch{7, 8, 9}));
    EXPECT_EQ(buffers[r], buffers[0]) << "one buffer for every rank, not a copy each";
  }
}

TEST(SequentialGroup, AllGatherCannotBeScheduledAndSaysSo) {
  SequentialGroup group(2);
  EXPECT_FALSE(group.run([](std::int64_t r, Communicator& comm) { comm.all_gather({r}); }));
}

// Rank r makes `counts[r]` broadcasts; the ranks that go on wait in the first one a rank skips.
std::vector<std::string> hangs(bool sequential, const std::vector<int>& counts) {
  const auto world = static_cast<std::int64_t>(counts.size());
  std::vector<std::string> out(counts.size());
  const auto per_rank = [&](std::int64_t r, Communicator& comm) {
    try {
      for (int k = 0; k < counts[static_cast<std::size_t>(r)]; ++k) comm.broadcast_object({k}, 0);
      out[static_cast<std::size_t>(r)] = "done";
    } catch (const CollectiveError& e) {
      out[static_cast<std::size_t>(r)] = std::string(e.what()) + " #" + std::to_string(e.collective_index()) +
                                         " missing " + std::to_string(e.missing_ranks().size());
    }
  };
  if (sequential) {
    SequentialGroup group(world);
    EXPECT_TRUE(group.run(per_rank));
  } else {
    InProcessGroup group(world);
    std::vector<std::thread> threads;
    for (std::int64_t r = 0; r < world; ++r) {
      threads.emplace_back([&, r] {
        per_rank(r, group.endpoint(r));
        group.leave(r);
      });
    }
    for (auto& t : threads) t.join();
  }
  return out;
}

TEST(SequentialGroup, HangsWhereTheThreadedGroupHangs) {
  for (const auto& counts :
       std::vector<std::vector<int>>{{3, 3, 3}, {2, 3, 3}, {3, 2, 3, 1}, {3, 4, 4}, {0, 1, 1}, {4, 4, 2}}) {
    EXPECT_EQ(hangs(true, counts), hangs(false, counts));
  }
}

TEST(SequentialGroup, SeedOverflowOnRankZeroClosesTheOtherRanksConnectionsLikeTheThreadedRun) {
  // The seedable sampler's seed 2^64 - 1 + epoch leaves torch's range on the second pass: only rank 0
  // draws (it alone iterates the dispatcher's loader), raises before its broadcast, and its process ends; ranks 1
  // and 2, waiting in collective #5, get gloo's connection error in that pass.
  auto c = map_case(3, 10, 2);
  c.prepare.dispatch_batches = true;
  c.prepare.put_on_device = true;
  c.loader.shuffle = true;
  c.prepare.use_seedable_sampler = true;
  c.prepare.data_seed = PythonInt(std::numeric_limits<std::uint64_t>::max());
  c.epochs = 2;
  c.schedule.assign(2, trace::LoaderRole::Prepared);
  const auto sequential = std::get<std::vector<trace::RankRecord>>(simulate(c).body);
  const auto threaded = simulate_ranks_threaded(c);
  ASSERT_EQ(sequential.size(), 3u);
  for (std::size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(sequential[r].epochs.size(), threaded[r].epochs.size());
    ASSERT_EQ(sequential[r].error.has_value(), threaded[r].error.has_value()) << "rank " << r;
    if (sequential[r].error) {
      EXPECT_EQ(*sequential[r].error, *threaded[r].error);
    }
    for (std::size_t e = 0; e < sequential[r].epochs.size(); ++e) {
      EXPECT_EQ(sequential[r].epochs[e].batches, threaded[r].epochs[e].batches);
    }
  }
  for (std::size_t r = 1; r < 3; ++r) {
    EXPECT_FALSE(sequential[r].error.has_value()) << "rank " << r << " goes on after the failed pass";
    ASSERT_EQ(sequential[r].epochs.size(), 2u);
    ASSERT_TRUE(sequential[r].epochs[1].error.has_value());
    EXPECT_EQ(sequential[r].epochs[1].error->type, "RuntimeError");
    EXPECT_NE(sequential[r].epochs[1].error->message.find("Connection closed by peer"), std::string::npos);
  }
  ASSERT_TRUE(sequential[0].epochs.at(1).error.has_value());
  EXPECT_NE(sequential[0].epochs[1].error->type, "RuntimeError") << "rank 0 fails with the seed's own error";
}

// RankExit::ClosesConnection: rank r makes counts[r] broadcasts, each in its own try, and goes on after a failure.
// What every rank saw per broadcast: "ok", "closed" (gloo's RuntimeError) or a hang's message.
std::vector<std::vector<std::string>> closed_outcomes(bool sequential, const std::vector<int>& counts) {
  const auto world = static_cast<std::int64_t>(counts.size());
  std::vector<std::vector<std::string>> out(counts.size());
  const auto per_rank = [&](std::int64_t r, Communicator& comm) {
    auto& mine = out[static_cast<std::size_t>(r)];
    mine.clear();  // a rank stopped at a hang runs again
    for (int k = 0; k < counts[static_cast<std::size_t>(r)]; ++k) {
      try {
        comm.broadcast_object({k}, 0);
        mine.push_back("ok");
      } catch (const AccelerateError& e) {
        EXPECT_EQ(e.type(), PyErrorType::RuntimeError);
        EXPECT_NE(e.message().find("Connection closed by peer"), std::string::npos);
        mine.push_back("closed");
      } catch (const CollectiveError& e) {
        mine.push_back(std::string(e.what()));
        return;
      }
    }
  };
  if (sequential) {
    SequentialGroup group(world, RankExit::ClosesConnection);
    EXPECT_TRUE(group.run(per_rank));
  } else {
    run_ranks_in_threads(world, per_rank, RankExit::ClosesConnection);
  }
  return out;
}

TEST(SequentialGroup, RankZerosEndClosesTheConnectionLikeTheThreadedGroup) {
  // Rank 0 ends first: the others' later broadcasts fail at once and they go on.
  const auto got = closed_outcomes(true, {1, 3, 2});
  EXPECT_EQ(got, (std::vector<std::vector<std::string>>{{"ok"}, {"ok", "closed", "closed"}, {"ok", "closed"}}));
  for (const auto& counts : std::vector<std::vector<int>>{{1, 3, 2}, {0, 2}, {2, 2, 2}, {3, 1, 3}, {2, 4, 1, 3}}) {
    EXPECT_EQ(closed_outcomes(true, counts), closed_outcomes(false, counts));
  }
  // A rank other than 0 ending early still hangs rank 0 (its process lives on, waiting).
  EXPECT_NE(closed_outcomes(true, {3, 1, 3})[0].back().find("would hang"), std::string::npos);
}

}  // namespace
}  // namespace accel::sim
