// The in-process communicator: collectives complete like real ones, and a collective that some rank
// will never enter is reported (naming the ranks), not waited on.
#include <gtest/gtest.h>

#include <thread>

#include "sim/in_process_group.hpp"

namespace accel::sim {
namespace {

TEST(InProcessGroup, BroadcastAndAllGather) {
  InProcessGroup group(3);
  std::vector<Batch> got(3);
  std::vector<std::vector<Batch>> gathered(3);
  std::vector<std::thread> threads;
  for (std::int64_t r = 0; r < 3; ++r) {
    threads.emplace_back([&, r] {
      Communicator& c = group.endpoint(r);
      got[static_cast<std::size_t>(r)] = c.broadcast(r == 0 ? Batch{7, 8, 9} : Batch{0, 0, 0}, 0);
      gathered[static_cast<std::size_t>(r)] = c.all_gather(Batch{r * 10});
      c.barrier();
      group.leave(r);
    });
  }
  for (auto& t : threads) t.join();
  for (std::int64_t r = 0; r < 3; ++r) {
    EXPECT_EQ(got[static_cast<std::size_t>(r)], (Batch{7, 8, 9}));
    EXPECT_EQ(gathered[static_cast<std::size_t>(r)], (std::vector<Batch>{{0}, {10}, {20}}));
  }
}

TEST(InProcessGroup, RankThatLeavesIsNamedInsteadOfAHang) {
  InProcessGroup group(3, std::chrono::milliseconds(60000));
  std::vector<std::string> errors(3);
  std::vector<std::vector<std::int64_t>> missing(3);
  std::vector<std::thread> threads;
  for (std::int64_t r = 0; r < 3; ++r) {
    threads.emplace_back([&, r] {
      Communicator& c = group.endpoint(r);
      try {
        c.all_gather({r});
        if (r != 2) c.all_gather({r});  // rank 2 leaves after one step
      } catch (const CollectiveError& e) {
        errors[static_cast<std::size_t>(r)] = e.what();
        missing[static_cast<std::size_t>(r)] = e.missing_ranks();
      }
      group.leave(r);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(missing[0], (std::vector<std::int64_t>{2}));
  EXPECT_EQ(missing[1], (std::vector<std::int64_t>{2}));
  EXPECT_NE(errors[0].find("collective #1"), std::string::npos);
  EXPECT_NE(errors[0].find("ranks 2 finished"), std::string::npos);
  EXPECT_TRUE(errors[2].empty());
}

TEST(InProcessGroup, TimeoutWhenAPeerIsGoneWithoutLeaving) {
  InProcessGroup group(2, std::chrono::milliseconds(200));
  std::string error;
  std::thread t([&] {
    try {
      group.endpoint(0).barrier();
    } catch (const CollectiveError& e) {
      error = e.what();
    }
  });
  t.join();
  EXPECT_NE(error.find("timed out"), std::string::npos);
  EXPECT_NE(error.find("ranks 1"), std::string::npos);
}

}  // namespace
}  // namespace accel::sim
