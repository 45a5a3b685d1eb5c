// PeerMonitor over an in-memory store: a dead rank, a finished rank, a silent rank, a rank that gave
// up and a vanished store are each named, in bounded time; a finished rank is a hang in the
// simulator's own words.
#include "ranks/peer_monitor.hpp"

#include <gtest/gtest.h>

#include "memory_store.hpp"

namespace accel::ranks {
namespace {

using namespace std::chrono_literals;
using testing::MemoryStore;
using testing::MemoryStoreState;
using Clock = std::chrono::steady_clock;

MonitorTiming fast(std::chrono::milliseconds timeout = 3000ms) {
  MonitorTiming t;
  t.timeout = timeout;
  t.heartbeat = 20ms;
  t.stale_after = 300ms;
  t.poll = 20ms;
  t.arrival = timeout;
  return t;
}

struct Rank {
  PeerMonitor monitor;
  Rank(const std::shared_ptr<MemoryStoreState>& state, std::int64_t rank, std::int64_t world, MonitorTiming t)
      : monitor(std::make_unique<MemoryStore>(state), rank, world, t) {}
};

const auto never_done = [](std::chrono::milliseconds slice) {
  std::this_thread::sleep_for(slice);
  return false;
};

CollectiveError await_failure(PeerMonitor& m, std::int64_t index) {
  try {
    m.await(index, "broadcast", never_done);
  } catch (const CollectiveError& e) {
    return e;
  }
  ADD_FAILURE() << "await returned";
  return CollectiveError("", {}, -1);
}

TEST(PeerMonitor, EveryoneArrives) {
  auto state = std::make_shared<MemoryStoreState>();
  Rank r0(state, 0, 2, fast()), r1(state, 1, 2, fast());
  r0.monitor.await_everyone();
  r1.monitor.await_everyone();
}

TEST(PeerMonitor, ARankThatNeverArrivesIsNamed) {
  auto state = std::make_shared<MemoryStoreState>();
  Rank r0(state, 0, 3, fast(300ms)), r2(state, 2, 3, fast(300ms));
  try {
    r0.monitor.await_everyone();
    FAIL() << "no error";
  } catch (const PeerFailure& e) {
    EXPECT_EQ(e.ranks(), std::vector<std::int64_t>{1});
    EXPECT_NE(std::string(e.what()).find("rank 1 has not arrived"), std::string::npos) << e.what();
  }
}

TEST(PeerMonitor, ADeadRankIsNamedLongBeforeTheTimeout) {
  auto state = std::make_shared<MemoryStoreState>();
  Rank r0(state, 0, 2, fast(10000ms));
  { Rank r1(state, 1, 2, fast(10000ms)); }  // beats, then stops without leaving: a crash
  r0.monitor.enter();
  const auto start = Clock::now();
  const auto e = await_failure(r0.monitor, 0);
  EXPECT_LT(Clock::now() - start, 2s);
  EXPECT_EQ(e.missing_ranks(), std::vector<std::int64_t>{1});
  EXPECT_NE(std::string(e.what()).find("collective #0 (broadcast) cannot complete: rank 1 died or stopped (no heartbeat for"),
            std::string::npos) << e.what();
  ASSERT_TRUE(r0.monitor.fatal().has_value());
}

// Issue 31: the silence is measured from the peer's last heartbeat, not from when this rank began to wait. A
// peer that stopped while this rank was busy elsewhere is named at once, with the real gap (it used to be
// named stale_after later, saying "no heartbeat for 0.3 s" after a second of silence).
TEST(PeerMonitor, ARankSilentSinceBeforeTheWaitIsNamedAtOnceWithTheRealGap) {
  auto state = std::make_shared<MemoryStoreState>();
  MonitorTiming t = fast(10000ms);
  t.stale_after = 1000ms;  // the old monitor named it only this long after the wait began
  Rank r0(state, 0, 2, t);
  {
    Rank r1(state, 1, 2, t);
    r0.monitor.await_everyone();
  }  // r1 stops beating; r0 is busy for a while
  std::this_thread::sleep_for(2500ms);
  r0.monitor.enter();
  const auto start = Clock::now();
  const auto e = await_failure(r0.monitor, 0);
  EXPECT_LT(Clock::now() - start, 700ms) << "named at once";
  const std::string what = e.what();
  const auto at = what.find("no heartbeat for ");
  ASSERT_NE(at, std::string::npos) << what;
  const double gap = std::stod(what.substr(at + 17));
  EXPECT_GE(gap, 2.3) << what;
  EXPECT_LT(gap, 10.0) << what;
}

// A stopped rank 0 leaves its sockets open and its store silent: that is named within the monitor's time too.
TEST(PeerMonitor, AStoreThatStopsAnsweringBlamesRankZero) {
  auto state = std::make_shared<MemoryStoreState>();
  Rank r0(state, 0, 2, fast()), r1(state, 1, 2, fast());
  r1.monitor.await_everyone();
  r1.monitor.enter();
  state->hang_for = 400ms;  // every request now takes longer than stale_after (300 ms), then fails
  const auto e = await_failure(r1.monitor, 0);
  EXPECT_NE(std::string(e.what()).find("rank 0 is gone or stopped (the TCPStore it hosts has not answered for"),
            std::string::npos) << e.what();
  EXPECT_EQ(e.missing_ranks(), std::vector<std::int64_t>{0});
}

TEST(PeerMonitor, ManyAbsentRanksAreNamedAsARange) {
  auto state = std::make_shared<MemoryStoreState>();
  Rank r0(state, 0, 1025, fast(100ms));
  try {
    r0.monitor.await_everyone();
    FAIL() << "no error";
  } catch (const PeerFailure& e) {
    EXPECT_NE(std::string(e.what()).find("ranks 1-1024 have not arrived after"), std::string::npos) << e.what();
    EXPECT_EQ(e.ranks().size(), 1024u);
  }
  EXPECT_EQ(ranks_named({3}), "rank 3");
  EXPECT_EQ(ranks_named({0, 1, 2, 3, 7}), "ranks 0-3, 7");
  EXPECT_EQ(ranks_text({0, 1, 2, 3}), "0, 1, 2, 3") << "the simulator's hang messages list every rank";
}

TEST(PeerMonitor, ARankThatFinishedMakesAHangInTheSimulatorsWords) {
  auto state = std::make_shared<MemoryStoreState>();
  Rank r0(state, 0, 3, fast()), r1(state, 1, 3, fast()), r2(state, 2, 3, fast());
  r1.monitor.enter();  // r1 entered collective #0 (and waits elsewhere), r2 finished without it
  r2.monitor.leave();
  r0.monitor.enter();
  const auto e = await_failure(r0.monitor, 0);
  EXPECT_STREQ(e.what(), "collective #0 (broadcast) would hang: ranks 0, 1 entered it, ranks 2 finished without entering it");
  EXPECT_EQ(e.missing_ranks(), std::vector<std::int64_t>{2});
  EXPECT_FALSE(r0.monitor.fatal().has_value()) << "a hang is part of the trace, not a failure of the job";
}

TEST(PeerMonitor, ASilentRankTimesOutNamed) {
  auto state = std::make_shared<MemoryStoreState>();
  Rank r0(state, 0, 2, fast(500ms)), r1(state, 1, 2, fast(500ms));
  r0.monitor.enter();
  const auto e = await_failure(r0.monitor, 0);
  EXPECT_NE(std::string(e.what()).find("timed out after 0.5 s waiting for rank 1"), std::string::npos) << e.what();
  EXPECT_EQ(e.missing_ranks(), std::vector<std::int64_t>{1});
}

TEST(PeerMonitor, ARankThatGaveUpIsNamedWithItsReason) {
  auto state = std::make_shared<MemoryStoreState>();
  Rank r0(state, 0, 2, fast()), r1(state, 1, 2, fast());
  r1.monitor.give_up("rank 7 died");
  r0.monitor.enter();
  const auto e = await_failure(r0.monitor, 0);
  EXPECT_NE(std::string(e.what()).find("rank 1 gave up: rank 7 died"), std::string::npos) << e.what();
}

TEST(PeerMonitor, AVanishedStoreBlamesRankZero) {
  auto state = std::make_shared<MemoryStoreState>();
  Rank r0(state, 0, 2, fast()), r1(state, 1, 2, fast());
  r1.monitor.enter();
  state->unreachable = true;
  const auto e = await_failure(r1.monitor, 0);
  EXPECT_NE(std::string(e.what()).find("rank 0 is gone"), std::string::npos) << e.what();
  EXPECT_EQ(e.missing_ranks(), std::vector<std::int64_t>{0});
}

TEST(PeerMonitor, ATransportErrorWaitsToFindTheDeadRank) {
  auto state = std::make_shared<MemoryStoreState>();
  Rank r0(state, 0, 2, fast());
  { Rank r1(state, 1, 2, fast()); }
  r0.monitor.enter();
  try {
    r0.monitor.transport_failed(0, "broadcast", "gloo: Connection closed by peer");
    ADD_FAILURE() << "transport_failed returned";
  } catch (const CollectiveError& e) {
    EXPECT_NE(std::string(e.what()).find("rank 1 died"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[gloo: Connection closed by peer]"), std::string::npos) << e.what();
  }
}

TEST(PeerMonitor, AwaitRanksFailsWhenTheAwaitedRankDies) {
  auto state = std::make_shared<MemoryStoreState>();
  Rank r0(state, 0, 2, fast());
  { Rank r1(state, 1, 2, fast()); }
  EXPECT_THROW(r0.monitor.await_ranks("the record", [] { return std::vector<std::int64_t>{1}; }), PeerFailure);
}

}  // namespace
}  // namespace accel::ranks
