#include "sequential_group.hpp"

#include <algorithm>
#include <exception>
#include <new>
#include <optional>
#include <sstream>

#include "rank_ranges.hpp"

namespace accel::sim {
// Rank 0 (recording) or another rank (replaying rank 0's log). `limit` is where this rank cannot go on:
// the end of rank 0's log on a first run (rank 0 never makes that collective, so the rank would wait:
// `blocked`), or the hang found after every rank ran, raised as `hang`.
class SequentialGroup::Endpoint final : public Communicator {
 public:
  // `hang`: null, or the hang found after every rank ran (a pointer, not an optional temporary: GCC 12 at -O1
  // with the sanitizers warns that destroying an empty one reads it uninitialised).
  Endpoint(SequentialGroup& group, std::int64_t rank, bool record, std::int64_t limit, const CollectiveError* hang)
      : group_(group), rank_(rank), record_(record), limit_(limit) {
    if (hang) hang_.emplace(*hang);
  }

  std::int64_t rank() const override { return rank_; }
  std::int64_t world_size() const override { return group_.world_; }
  // Collectives entered, not counting those that failed because rank 0 had ended (none of them waits).
  std::int64_t entered() const noexcept { return closed_ ? limit_ : next_; }
  bool blocked() const noexcept { return blocked_op_.has_value(); }
  const std::string& blocked_op() const { return *blocked_op_; }

  std::vector<std::int64_t> broadcast_object(std::vector<std::int64_t> object, std::int64_t root) override {
    if (root != 0) throw Unschedulable{};
    if (record_) {
      enter("broadcast_object_list");
      group_.log_.push_back({"broadcast_object_list", object, nullptr});
      return object;
    }
    return enter("broadcast_object_list").object;
  }
  Batch broadcast(Batch batch, std::int64_t root) override {
    return *broadcast_shared(std::make_shared<const Batch>(std::move(batch)), 0, root);
  }
  std::shared_ptr<const Batch> broadcast_shared(std::shared_ptr<const Batch> batch, std::int64_t,
                                                std::int64_t root) override {
    if (root != 0) throw Unschedulable{};
    if (record_) {
      enter("broadcast");
      group_.log_.push_back({"broadcast", {}, batch});
      return batch;
    }
    return enter("broadcast").batch;
  }
  std::vector<Batch> all_gather(const Batch&) override { throw Unschedulable{}; }  // needs every rank's data
  void barrier() override {
    if (record_) {
      enter("barrier");
      group_.log_.push_back({"barrier", {}, nullptr});
      return;
    }
    enter("barrier");
  }

 private:
  // Counts collective #next_ as entered and returns rank 0's entry for it (recording: nothing yet).
  const Entry& enter(const std::string& op) {
    static const Entry kNone;
    const std::int64_t index = next_++;
    if (index >= limit_ && !record_) {
      if (hang_) throw *hang_;
      if (group_.exit_ == RankExit::ClosesConnection) {
        // On a first run rank 0 has ended without entering #index: its connection is closed.
        closed_ = true;
        throw connection_closed_by_peer();
      }
      blocked_op_ = op;
      // Placeholder: a rank that waits here is run again, stopped by the real error.
      throw CollectiveError("blocked", {}, index);
    }
    if (record_) return kNone;
    const Entry& e = group_.log_[static_cast<std::size_t>(index)];
    if (e.op != op) throw Unschedulable{};
    return e;
  }

  SequentialGroup& group_;
  std::int64_t rank_;
  bool record_;
  std::int64_t limit_;
  std::optional<CollectiveError> hang_;
  std::int64_t next_ = 0;
  std::optional<std::string> blocked_op_;
  bool closed_ = false;
};

SequentialGroup::SequentialGroup(std::int64_t world_size, RankExit exit) : world_(world_size), exit_(exit) {}

bool SequentialGroup::run(const std::function<void(std::int64_t, Communicator&)>& per_rank) {
  const auto R = static_cast<std::size_t>(world_);
  std::vector<std::exception_ptr> failures(R);
  std::vector<std::int64_t> entered(R, 0);
  std::vector<std::optional<std::string>> blocked_op(R);
  log_.clear();
  const auto run_one = [&](std::int64_t r, Endpoint& endpoint) {
    failures[static_cast<std::size_t>(r)] = nullptr;
    try {
      per_rank(r, endpoint);
    } catch (const Unschedulable&) {
      throw;
    } catch (const std::bad_alloc&) {
      // Out of memory is the run's, not the rank's: going on to the other ranks would keep one exception alive
      // per rank until the runtime cannot even allocate the next one (std::terminate, a signal).
      throw;
    } catch (...) {
      failures[static_cast<std::size_t>(r)] = std::current_exception();
    }
  };
  try {
    Endpoint root(*this, 0, /*record=*/true, 0, nullptr);
    run_one(0, root);
    const auto logged = static_cast<std::int64_t>(log_.size());
    entered[0] = logged;
    for (std::int64_t r = 1; r < world_; ++r) {
      Endpoint e(*this, r, /*record=*/false, logged, nullptr);
      run_one(r, e);
      entered[static_cast<std::size_t>(r)] = e.entered();
      if (e.blocked()) blocked_op[static_cast<std::size_t>(r)] = e.blocked_op();
    }
    const std::int64_t m = *std::min_element(entered.begin(), entered.end());
    const bool hang = std::any_of(entered.begin(), entered.end(), [&](std::int64_t n) { return n != m; });
    if (hang) {
      // Collective #m: entered by every rank that got past m collectives, never by the others.
      std::vector<std::int64_t> waiting, missing;
      for (std::int64_t r = 0; r < world_; ++r)
        (entered[static_cast<std::size_t>(r)] > m ? waiting : missing).push_back(r);
      const std::string op = waiting.front() == 0 || m < logged
                                 ? log_[static_cast<std::size_t>(m)].op
                                 : *blocked_op[static_cast<std::size_t>(waiting.front())];
      const CollectiveError error("collective #" + std::to_string(m) + " (" + op + ") would hang: ranks " +
                                      rank_list(waiting) + " entered it, ranks " + rank_list(missing) +
                                      " finished without entering it",
                                  missing, m);
      for (std::int64_t r : waiting) {
        // Rank 0 replays its own log: every payload up to #m is its own.
        Endpoint e(*this, r, /*record=*/false, m, &error);
        run_one(r, e);
      }
    }
  } catch (const Unschedulable&) {
    return false;
  }
  for (auto& f : failures)
    if (f) std::rethrow_exception(f);
  return true;
}

}  // namespace accel::sim
