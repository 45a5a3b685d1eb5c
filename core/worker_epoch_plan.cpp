#include "worker_epoch_plan.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <utility>

#include "iterable_dataset_shard.hpp"
#include "mutation.hpp"

namespace accel {

bool WorkerEpochPlan::applies(const DataLoaderArgs& loader, const PrepareOptions& options) noexcept {
  return loader.dataset_kind == DatasetKind::Iterable && loader.workers.active() && loader.workers.in_order &&
         !loader.hf_dataset && !options.torch_device_mesh && !options.use_stateful_dataloader &&
         !options.synchronize_cuda_rng;
}

WorkerEpochPlan::WorkerEpochPlan(const DataLoaderArgs& loader, const PrepareOptions& options)
    : loader_(loader), options_(options) {
  if (!applies(loader_, options_)) throw std::invalid_argument("WorkerEpochPlan: this config is replayed, not planned");
  PrepareOptions rank0 = options_;
  rank0.process_index = 0;
  (void)prepare_data_loader(loader_, rank0);  // the same validation and errors as Accelerate
  for (std::int64_t w = 0; w < loader_.workers.num_workers; ++w)
    streams_.push_back(worker_stream(loader_.dataset_len, loader_.workers, w));
  plan();
}

WorkerEpochPlan::WorkerEpochPlan(const std::vector<std::int64_t>& stream_lengths, const DataLoaderArgs& loader,
                                 const PrepareOptions& options)
    : loader_(loader), options_(options) {
  std::int64_t begin = 0;
  for (std::int64_t length : stream_lengths) {
    streams_.push_back(WorkerStream{begin, 1, length});
    begin += length;
  }
  plan();
}

void WorkerEpochPlan::plan() {
  if (!resolve_dispatch_batches(loader_, options_)) {
    const IterableShardOptions shard{loader_.batch_size, loader_.drop_last, options_.num_processes, 0,
                                     options_.split_batches};
    for (const WorkerStream& s : streams_)
      batches_ += IterableDatasetShard(s.length, shard, options_.num_processes != 1).num_batches();
    return;
  }

  // Rank 0's DataLoader: each worker batches its part unsharded; the main process takes the batches in turn.
  const std::int64_t b = loader_.batch_size;
  const IterableShardOptions unsharded{b, loader_.drop_last, 1, 0, false};
  std::vector<std::int64_t> counts;
  for (const WorkerStream& s : streams_) {
    const IterableDatasetShard part(s.length, unsharded, false);
    counts.push_back(part.num_batches());
    yielded_per_worker_.push_back(counts.back() > 0 ? part.batch(counts.back() - 1).end : 0);
  }
  round_robin_.emplace(counts);
  // Only a worker's last batch can be short: the yielded elements before batch k are k * b less what those lack.
  std::vector<std::pair<std::int64_t, std::int64_t>> shorts;
  for (std::size_t w = 0; w < counts.size(); ++w) {
    const std::int64_t lacks = counts[w] * b - yielded_per_worker_[w];
    if (counts[w] > 0 && lacks > 0)
      shorts.emplace_back(round_robin_->yield_index(static_cast<std::int64_t>(w), counts[w] - 1), lacks);
  }
  std::sort(shorts.begin(), shorts.end());
  deficit_before_.push_back(0);
  for (const auto& [index, lacks] : shorts) {
    short_batches_.push_back(index);
    deficit_before_.push_back(deficit_before_.back() + lacks);
  }
  DispatchPlanOptions d;
  d.batch_size = b;
  d.drop_last = loader_.drop_last;
  d.split_batches = options_.split_batches;
  d.num_processes = options_.num_processes;
  dispatches_ = true;
  const std::int64_t total = round_robin_->size();
  const auto offset = [this](std::int64_t k) { return yielded_before(k); };
  batches_ = dispatched_count(d, total);
  if (batches_ == 0) return;
  // Only a dispatched batch holding a worker's short batch, or the last one, can cover its elements other than once:
  // every other is num_processes full batches (or one of a multiple of num_processes with split_batches), one slice
  // each. Those are visited one by one, and each stretch between them is one run: O(workers), not O(batches).
  const std::int64_t group = d.split_batches ? 1 : d.num_processes;
  std::vector<std::int64_t> irregular{batches_ - 1};
  for (std::int64_t k : short_batches_) {
    if (k / group < batches_ && !mutant(Mutation::WorkerPlanShortGroupsFull)) irregular.push_back(k / group);
  }
  std::sort(irregular.begin(), irregular.end());
  irregular.erase(std::unique(irregular.begin(), irregular.end()), irregular.end());
  std::int64_t next = 0;  // the first dispatched batch not yet covered
  for (std::int64_t i : irregular) {
    if (next < i) {
      const std::int64_t begin = offset(next * group), end = offset(i * group);
      add_dispatched_runs(yielded_runs_,
                          DispatchedBatch{.begin = begin, .end = end, .per_rank = (end - begin) / d.num_processes},
                          d.num_processes);
    }
    add_dispatched_runs(yielded_runs_, dispatched_batch(d, total, offset, i), d.num_processes);
    next = i + 1;
  }
}

std::int64_t WorkerEpochPlan::yielded_before(std::int64_t k) const {
  if (mutant(Mutation::WorkerPlanShortBatchesFull)) return k * loader_.batch_size;
  const auto shorter = std::lower_bound(short_batches_.begin(), short_batches_.end(), k) - short_batches_.begin();
  return k * loader_.batch_size - deficit_before_[static_cast<std::size_t>(shorter)];
}

std::int64_t WorkerEpochPlan::taken_from(std::int64_t worker, std::int64_t e) const {
  const auto w = static_cast<std::size_t>(worker);
  const std::int64_t total = round_robin_->size();
  if (yielded_before(total) <= e) return yielded_per_worker_[w];
  // The underlying batch holding element e: the last k with yielded_before(k) <= e.
  std::int64_t lo = 0, hi = total - 1;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (yielded_before(mid) <= e)
      lo = mid;
    else
      hi = mid - 1;
  }
  // Every batch a worker yields before its last is full.
  std::int64_t taken = std::min(round_robin_->taken_from(worker, lo) * loader_.batch_size, yielded_per_worker_[w]);
  if (round_robin_->at(lo).worker == worker) taken += e - yielded_before(lo);
  return taken;
}

std::int64_t WorkerEpochPlan::batches(std::int64_t) const { return batches_; }

Attribute<std::int64_t> WorkerEpochPlan::len(std::int64_t rank) const {
  PrepareOptions o = options_;
  o.process_index = rank;
  // len() ignores the workers (torch's len of the dataset; property 15): asked of a loader without them, so no
  // rank builds its W workers' shards to answer it.
  DataLoaderArgs main_process = loader_;
  main_process.workers = DataLoaderWorkers{};
  return std::visit([](const auto& l) -> Attribute<std::int64_t> { return l.len(); },
                    prepare_data_loader(main_process, o));
}

std::vector<WorkerRun> WorkerEpochPlan::runs() const {
  std::vector<WorkerRun> out;
  const auto W = static_cast<std::int64_t>(streams_.size());
  if (dispatches_) {
    for (const PositionRun& r : yielded_runs_) {
      for (std::int64_t w = 0; w < W; ++w) {
        const std::int64_t begin = taken_from(w, r.begin), end = taken_from(w, r.end);
        if (begin < end) out.push_back({w, begin, end, r.times});
      }
    }
    return out;
  }
  // The last rank's last batch ends the real batches every rank's slices tile.
  const std::int64_t R = options_.num_processes;
  const IterableShardOptions last_rank{loader_.batch_size, loader_.drop_last, R, R - 1, options_.split_batches};
  for (std::int64_t w = 0; w < W; ++w) {
    const std::int64_t length = streams_[static_cast<std::size_t>(w)].length;
    const IterableDatasetShard shard(length, last_rank, R != 1);
    const std::int64_t n = shard.num_batches();
    if (n == 0) continue;
    std::vector<PositionRun> part;
    add_virtual_runs(part, 0, shard.batch(n - 1).end, length, shard.pad_period());
    for (const PositionRun& p : part) out.push_back({w, p.begin, p.end, p.times});
  }
  return out;
}

std::vector<PositionRun> WorkerEpochPlan::layout_runs() const {
  const bool blocks =
      std::all_of(streams_.begin(), streams_.end(), [](const WorkerStream& s) { return s.stride == 1; });
  std::vector<std::int64_t> offset;
  std::int64_t at = 0;
  for (const WorkerStream& s : streams_) {
    offset.push_back(blocks ? s.begin : at);
    at += s.length;
  }
  std::vector<PositionRun> out;
  for (const WorkerRun& r : runs()) {
    const std::int64_t o = offset[static_cast<std::size_t>(r.worker)];
    out.push_back({o + r.begin, o + r.end, r.times});
  }
  return out;
}

std::optional<std::vector<PositionRun>> WorkerEpochPlan::position_runs(std::size_t max_runs) const {
  const bool blocks =
      std::all_of(streams_.begin(), streams_.end(), [](const WorkerStream& s) { return s.stride == 1; });
  if (blocks) return layout_runs();
  // A strided split: position p is worker p % W's index p / W. Between two consecutive indices where any worker's
  // multiplicity changes (a band of rows), every row repeats one pattern over the W workers.
  const auto W = static_cast<std::int64_t>(streams_.size());
  std::vector<std::map<std::int64_t, std::int64_t>> delta(streams_.size());
  std::map<std::int64_t, bool> cuts;
  for (const WorkerRun& r : runs()) {
    delta[static_cast<std::size_t>(r.worker)][r.begin] += r.times;
    delta[static_cast<std::size_t>(r.worker)][r.end] -= r.times;
    cuts[r.begin] = cuts[r.end] = true;
  }
  std::int64_t rows = 0;
  for (const WorkerStream& s : streams_) {
    rows = std::max(rows, s.length);
    cuts[s.length] = true;
  }
  cuts[0] = cuts[rows] = true;
  std::vector<std::int64_t> level(streams_.size(), 0);
  std::vector<std::map<std::int64_t, std::int64_t>::const_iterator> next;
  for (const auto& d : delta) next.push_back(d.begin());
  std::vector<PositionRun> out;
  const auto add = [&](std::int64_t begin, std::int64_t end, std::int64_t times) {
    if (times == 0 || begin >= end) return;
    if (!out.empty() && out.back().end == begin && out.back().times == times) {
      out.back().end = end;
    } else {
      out.push_back({begin, end, times});
    }
  };
  for (auto cut = cuts.begin(); std::next(cut) != cuts.end(); ++cut) {
    const std::int64_t lo = cut->first, hi = std::next(cut)->first;
    bool uniform = true;
    for (std::size_t w = 0; w < streams_.size(); ++w) {
      for (; next[w] != delta[w].end() && next[w]->first <= lo; ++next[w]) level[w] += next[w]->second;
      uniform = uniform && level[w] == level[0] && streams_[w].length >= hi;
    }
    if (uniform) {
      add(lo * W, hi * W, level[0]);
    } else {
      for (std::int64_t i = lo; i < hi; ++i) {
        for (std::int64_t w = 0; w < W; ++w) {
          if (i < streams_[static_cast<std::size_t>(w)].length)
            add(i * W + w, i * W + w + 1, level[static_cast<std::size_t>(w)]);
        }
        if (out.size() > max_runs) return std::nullopt;
      }
    }
    if (out.size() > max_runs) return std::nullopt;
  }
  return out;
}

}  // namespace accel
