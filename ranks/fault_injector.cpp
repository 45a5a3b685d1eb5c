#include "fault_injector.hpp"

#include <unistd.h>

#include <cstdio>
#include <string>

namespace accel::ranks {

void FaultInjector::die_now() const {
  const std::string line = "accel-sim-rank: rank " + std::to_string(inner_.rank()) + ": --die-at-step " +
                           std::to_string(die_at_) + ": exiting abruptly (exit " + std::to_string(kDiedExitCode) + ")\n";
  std::fflush(stdout);
  (void)!::write(2, line.data(), line.size());
  ::_exit(kDiedExitCode);  // no destructors, no leave(): peers must find out on their own
}

void FaultInjector::step() {
  if (steps_++ == die_at_) die_now();
}

Batch FaultInjector::broadcast(Batch batch, std::int64_t root) {
  step();
  return inner_.broadcast(std::move(batch), root);
}

std::vector<Batch> FaultInjector::all_gather(const Batch& batch) {
  step();
  return inner_.all_gather(batch);
}

std::vector<std::int64_t> FaultInjector::all_reduce(const std::vector<std::int64_t>& values) {
  step();
  return inner_.all_reduce(values);
}

}  // namespace accel::ranks
