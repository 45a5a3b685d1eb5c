// GlooCommunicator for real, three ranks as threads of this process over a TCPStore and Gloo on
// 127.0.0.1: every collective (check_collectives, which includes those a trace run never makes), and
// a finished rank reported as the simulator reports it.
#include "ranks/gloo_communicator.hpp"
#include "ranks/collective_check.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <functional>
#include <thread>

namespace accel::ranks {
namespace {

using namespace std::chrono_literals;

std::uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// Runs `body(rank, comm, monitor)` on `world` ranks, one thread each; returns their failures.
std::vector<std::string> run_ranks(std::int64_t world,
                                   const std::function<void(std::int64_t, Communicator&, PeerMonitor&)>& body) {
  const std::uint16_t port = free_port();
  std::vector<std::string> failures(static_cast<std::size_t>(world));
  std::vector<std::thread> threads;
  for (std::int64_t r = 0; r < world; ++r) {
    threads.emplace_back([&, r] {
      try {
        RankEnv env{r, world, r, "127.0.0.1", port, ""};
        Rendezvous rendezvous(env, 10s);
        MonitorTiming timing = MonitorTiming::for_timeout(10s);
        PeerMonitor monitor(rendezvous.connect(timing.stale_after), r, world, timing);
        monitor.await_everyone();
        GlooCommunicator comm(rendezvous, monitor);
        body(r, comm, monitor);
        monitor.leave();
        rendezvous.store().set("test/done/" + std::to_string(r), "1");
        // Rank 0 hosts the store: it stays until the others are done with it.
        if (r == 0) {
          monitor.await_ranks("the others", [&] {
            std::vector<std::int64_t> pending;
            for (std::int64_t p = 1; p < world; ++p) {
              if (!rendezvous.store().try_get("test/done/" + std::to_string(p))) pending.push_back(p);
            }
            return pending;
          });
        }
      } catch (const std::exception& e) {
        failures[static_cast<std::size_t>(r)] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  return failures;
}

TEST(GlooCommunicator, CollectivesCarryTheValues) {
  const auto failures = run_ranks(3, [](std::int64_t r, Communicator& comm, PeerMonitor&) {
    EXPECT_EQ(comm.rank(), r);
    EXPECT_EQ(comm.world_size(), 3);
    EXPECT_EQ(check_collectives(comm), std::vector<std::string>{});
  });
  for (std::size_t r = 0; r < failures.size(); ++r) EXPECT_EQ(failures[r], "") << "rank " << r;
}

TEST(GlooCommunicator, ARankThatFinishedIsAHangInTheSimulatorsWords) {
  const auto failures = run_ranks(2, [](std::int64_t r, Communicator& comm, PeerMonitor& monitor) {
    comm.barrier();
    if (r == 1) return;  // finishes without the next collective
    try {
      comm.all_gather({1});
      ADD_FAILURE() << "all_gather completed without rank 1";
    } catch (const CollectiveError& e) {
      EXPECT_STREQ(e.what(), "collective #1 (all_gather) would hang: ranks 0 entered it, ranks 1 finished without entering it");
      EXPECT_FALSE(monitor.fatal().has_value());
    }
  });
  for (std::size_t r = 0; r < failures.size(); ++r) EXPECT_EQ(failures[r], "") << "rank " << r;
}

}  // namespace
}  // namespace accel::ranks
