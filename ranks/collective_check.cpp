#include "collective_check.hpp"

#include <sstream>

namespace accel::ranks {
namespace {

std::string text(const std::vector<std::int64_t>& v) {
  std::ostringstream os;
  os << "[";
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
  os << "]";
  return os.str();
}

}  // namespace

std::vector<std::string> check_collectives(Communicator& comm) {
  const std::int64_t rank = comm.rank(), world = comm.world_size();
  const std::int64_t last = world - 1;
  std::vector<std::string> problems;
  auto expect = [&](const std::string& what, const std::vector<std::int64_t>& got, const std::vector<std::int64_t>& want) {
    if (got != want) problems.push_back(what + ": got " + text(got) + ", expected " + text(want));
  };

  expect("broadcast_object (short, from the last rank)",
         comm.broadcast_object(rank == last ? std::vector<std::int64_t>{5, -6, 7} : std::vector<std::int64_t>{0}, last),
         {5, -6, 7});
  std::vector<std::int64_t> longer;
  for (std::int64_t i = 0; i < 40; ++i) longer.push_back(i * i - 3);
  expect("broadcast_object (longer than one message)",
         comm.broadcast_object(rank == 0 ? longer : std::vector<std::int64_t>{}, 0), longer);
  expect("broadcast (a batch)", comm.broadcast(rank == last ? Batch{9, 8, 7, 6} : Batch(4, 0), last), {9, 8, 7, 6});
  expect("broadcast (an empty batch)", comm.broadcast(Batch{}, 0), {});

  Batch mine;
  for (std::int64_t i = 0; i < rank * 2; ++i) mine.push_back(100 * rank + i);
  const auto gathered = comm.all_gather(mine);
  if (static_cast<std::int64_t>(gathered.size()) != world) {
    problems.push_back("all_gather: " + std::to_string(gathered.size()) + " batches for " + std::to_string(world) + " ranks");
  } else {
    for (std::int64_t r = 0; r < world; ++r) {
      Batch want;
      for (std::int64_t i = 0; i < r * 2; ++i) want.push_back(100 * r + i);
      expect("all_gather (rank " + std::to_string(r) + "'s batch)", gathered[static_cast<std::size_t>(r)], want);
    }
  }
  comm.barrier();
  return problems;
}

}  // namespace accel::ranks
