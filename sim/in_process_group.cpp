#include "in_process_group.hpp"

#include <sstream>

#include "rank_ranges.hpp"

namespace accel::sim {
class InProcessGroup::Endpoint final : public Communicator {
 public:
  Endpoint(InProcessGroup& group, std::int64_t rank) : group_(group), rank_(rank) {}
  std::int64_t rank() const override { return rank_; }
  std::int64_t world_size() const override { return group_.world_; }

  std::vector<std::int64_t> broadcast_object(std::vector<std::int64_t> object, std::int64_t root) override {
    return group_.collective(rank_, "broadcast_object_list", std::move(object)).at(static_cast<std::size_t>(root));
  }
  Batch broadcast(Batch batch, std::int64_t root) override {
    return group_.collective(rank_, "broadcast", std::move(batch)).at(static_cast<std::size_t>(root));
  }
  std::vector<Batch> all_gather(const Batch& batch) override { return group_.collective(rank_, "all_gather", batch); }
  void barrier() override { group_.collective(rank_, "barrier", {}); }

 private:
  InProcessGroup& group_;
  std::int64_t rank_;
};

InProcessGroup::InProcessGroup(std::int64_t world_size, std::chrono::milliseconds timeout, RankExit exit)
    : world_(world_size),
      timeout_(timeout),
      exit_(exit),
      next_index_(static_cast<std::size_t>(world_size), 0),
      left_(static_cast<std::size_t>(world_size), false) {
  for (std::int64_t r = 0; r < world_size; ++r) endpoints_.push_back(std::make_unique<Endpoint>(*this, r));
}

InProcessGroup::~InProcessGroup() = default;

Communicator& InProcessGroup::endpoint(std::int64_t rank) { return *endpoints_.at(static_cast<std::size_t>(rank)); }

void InProcessGroup::leave(std::int64_t rank) {
  std::lock_guard<std::mutex> lock(mu_);
  left_[static_cast<std::size_t>(rank)] = true;
  check_stuck_locked();
  cv_.notify_all();
}

void InProcessGroup::check_stuck_locked() {
  // A collective is stuck when every rank that has not entered it has left the group.
  for (auto& [index, p] : pending_) {
    if (p.done) continue;
    if (exit_ == RankExit::ClosesConnection && left_[0] && !p.arrived[0]) {
      p.done = true;
      p.closed = true;
      continue;
    }
    std::vector<std::int64_t> missing;
    bool someone_may_come = false;
    for (std::int64_t r = 0; r < world_; ++r) {
      if (p.arrived[static_cast<std::size_t>(r)]) continue;
      missing.push_back(r);
      if (!left_[static_cast<std::size_t>(r)]) someone_may_come = true;
    }
    if (!missing.empty() && !someone_may_come) {
      p.done = true;
      p.missing = missing;
      std::vector<std::int64_t> waiting;
      for (std::int64_t r = 0; r < world_; ++r)
        if (p.arrived[static_cast<std::size_t>(r)]) waiting.push_back(r);
      p.failure = "collective #" + std::to_string(index) + " (" + p.op + ") would hang: ranks " + rank_list(waiting) +
                  " entered it, ranks " + rank_list(missing) + " finished without entering it";
    }
  }
}

std::vector<Batch> InProcessGroup::collective(std::int64_t rank, const std::string& op, Batch payload) {
  std::unique_lock<std::mutex> lock(mu_);
  const std::int64_t index = next_index_[static_cast<std::size_t>(rank)]++;
  Pending& p = pending_[index];
  if (p.arrived.empty()) {
    p.op = op;
    p.payloads.resize(static_cast<std::size_t>(world_));
    p.arrived.assign(static_cast<std::size_t>(world_), false);
  }
  if (p.op != op && p.failure.empty()) {
    p.done = true;
    p.failure = "collective #" + std::to_string(index) + " mismatch: rank " + std::to_string(rank) + " called " + op +
                " while others called " + p.op;
  }
  p.payloads[static_cast<std::size_t>(rank)] = std::move(payload);
  p.arrived[static_cast<std::size_t>(rank)] = true;
  ++p.count;
  if (p.count == world_) p.done = true;
  check_stuck_locked();
  cv_.notify_all();
  const bool finished = cv_.wait_for(lock, timeout_, [&] { return p.done; });
  if (!finished && !p.done) {
    std::vector<std::int64_t> missing;
    for (std::int64_t r = 0; r < world_; ++r)
      if (!p.arrived[static_cast<std::size_t>(r)]) missing.push_back(r);
    p.done = true;
    p.missing = missing;
    p.failure = "collective #" + std::to_string(index) + " (" + op + ") timed out after " +
                std::to_string(timeout_.count()) + " ms waiting for ranks " + rank_list(missing);
  }
  std::vector<Batch> result;
  const bool closed = p.closed;
  std::string failure = p.failure;
  std::vector<std::int64_t> missing = p.missing;
  if (failure.empty() && !closed) result = p.payloads;
  if (++p.released == p.count) pending_.erase(index);
  if (closed) throw connection_closed_by_peer();
  if (!failure.empty()) throw CollectiveError(failure, missing, index);
  return result;
}

}  // namespace accel::sim
