// `accel-sim launch`: N local ranks of one job, torchrun-standalone style, without LibTorch.
//
// Picks a free port on the master address, starts every rank with torchrun's environment (RANK,
// WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT), forwards each rank's stdout and
// stderr line by line with a "[rank k] " prefix, and, once a rank fails, gives the others `grace` to
// notice and report (they name the failed rank themselves) before terminating them. The job's exit
// code is rank 0's verdict.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace accel::cli {

// The most local ranks `launch --nproc` starts (README: Input limits).
constexpr std::int64_t kMaxLaunchRanks = 1024;

struct LaunchPlan {
  std::int64_t nproc = 1;
  std::string program;            // the rank executable
  std::vector<std::string> args;  // its arguments, the same for every rank
  std::string master_addr = "127.0.0.1";
  std::chrono::milliseconds grace{10000};
};

// Runs the job to its end. Returns rank 0's exit code; when rank 0 succeeded but another rank did not,
// or rank 0 was killed, 4 (the rank driver's "job failed").
int launch(const LaunchPlan& plan);

// A TCP port that is free on `address` now (bound, read and released: a race is possible, as in torchrun).
std::uint16_t free_port(const std::string& address);

}  // namespace accel::cli
