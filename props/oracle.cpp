// Accelerate's rules as props/oracle.hpp states them, written from accelerate/data_loader.py.
#include "oracle.hpp"

#include <algorithm>
#include <numeric>

#include "core/randperm.hpp"
#include "core/torch_generator.hpp"

namespace accel::props {

std::int64_t step_samples(const LoaderConfig& c) { return c.split || !c.sharded() ? c.batch : c.batch * c.ranks; }

std::vector<SampleId> epoch_order(const LoaderConfig& c, std::int64_t pass) {
  std::vector<SampleId> order(static_cast<std::size_t>(c.len));
  if (!c.shuffle) {
    std::iota(order.begin(), order.end(), SampleId{0});
    return order;
  }
  if (!c.iterable()) {
    TorchGenerator gen(c.seed + static_cast<std::uint64_t>(pass));
    return randperm(c.len, gen);
  }
  if (c.sharded() && !c.dispatch) {
    TorchGenerator gen(c.seed);
    gen.manual_seed(static_cast<std::uint64_t>(pass));
    return randperm(c.len, gen);
  }
  TorchGenerator gen(c.seed);
  for (std::int64_t p = 0; p < pass; ++p) (void)randperm(c.len, gen);
  return randperm(c.len, gen);
}

std::int64_t shard_batches(const LoaderConfig& c, std::int64_t rank) {
  const std::int64_t N = c.len, b = c.batch, R = c.ranks;
  if (!c.sharded()) return c.drop ? N / b : ceil_div(N, b);
  if (c.iterable()) return c.drop ? N / step_samples(c) : ceil_div(N, step_samples(c));
  if (c.split) {
    if (c.drop) return N / b;
    if (c.even) return ceil_div(N, b);
    return N / b + (N % b > rank * (b / R) ? 1 : 0);
  }
  const std::int64_t L = c.drop ? N / b : ceil_div(N, b);
  if (c.drop) return L / R;
  if (c.even) return ceil_div(L, R);
  return L / R + (rank < L % R ? 1 : 0);
}

std::int64_t shard_len(const LoaderConfig& c, std::int64_t rank) {
  const std::int64_t N = c.len, b = c.batch, R = c.ranks;
  if (!c.sharded()) return c.drop ? N / b : ceil_div(N, b);
  if (c.iterable()) {
    const std::int64_t shard_samples = (c.drop ? N / (b * R) : ceil_div(N, b * R)) * b;  // IterableDatasetShard.__len__
    const std::int64_t loader_batch = c.split ? b / R : b;
    return c.drop ? shard_samples / loader_batch : ceil_div(shard_samples, loader_batch);
  }
  if (c.split) return c.drop ? N / b : ceil_div(N, b);
  return shard_batches(c, rank);
}

std::vector<Batch> replay_iterable_shard(const std::vector<SampleId>& stream, const LoaderConfig& c, std::int64_t rank) {
  std::vector<Batch> out;
  if (!c.sharded()) {
    // prepare_data_loader leaves the dataset alone: torch batches the stream.
    for (std::size_t s = 0; s < stream.size(); s += static_cast<std::size_t>(c.batch)) {
      Batch b(stream.begin() + static_cast<std::ptrdiff_t>(s),
              stream.begin() + static_cast<std::ptrdiff_t>(std::min(stream.size(), s + static_cast<std::size_t>(c.batch))));
      if (c.drop && static_cast<std::int64_t>(b.size()) < c.batch) break;
      out.push_back(std::move(b));
    }
    return out;
  }
  // IterableDatasetShard.__iter__, line by line.
  const std::int64_t real_batch_size = c.split ? c.batch : c.batch * c.ranks;
  const std::int64_t process_batch_size = c.split ? c.batch / c.ranks : c.batch;
  const std::int64_t slice_begin = rank * process_batch_size, slice_end = (rank + 1) * process_batch_size;
  std::vector<SampleId> yielded;
  std::vector<SampleId> first_batch;
  bool have_first = false;
  std::vector<SampleId> current_batch;
  for (SampleId element : stream) {
    current_batch.push_back(element);
    if (static_cast<std::int64_t>(current_batch.size()) == real_batch_size) {
      for (std::int64_t i = slice_begin; i < slice_end; ++i) yielded.push_back(current_batch[static_cast<std::size_t>(i)]);
      if (!have_first) {
        first_batch = current_batch;
        have_first = true;
      }
      current_batch.clear();
    }
  }
  if (!c.drop && !current_batch.empty()) {
    if (!have_first) first_batch = current_batch;
    while (static_cast<std::int64_t>(current_batch.size()) < real_batch_size) {
      current_batch.insert(current_batch.end(), first_batch.begin(), first_batch.end());
    }
    for (std::int64_t i = slice_begin; i < slice_end; ++i) yielded.push_back(current_batch[static_cast<std::size_t>(i)]);
  }
  // The DataLoader over the shard: batches of process_batch_size (yielded is a multiple of it).
  for (std::size_t s = 0; s < yielded.size(); s += static_cast<std::size_t>(process_batch_size)) {
    out.emplace_back(yielded.begin() + static_cast<std::ptrdiff_t>(s),
                     yielded.begin() + static_cast<std::ptrdiff_t>(s + static_cast<std::size_t>(process_batch_size)));
  }
  return out;
}

std::vector<std::int64_t> multiplicity(const std::vector<const std::vector<Batch>*>& batches, std::int64_t n) {
  std::vector<std::int64_t> seen(static_cast<std::size_t>(n), 0);
  for (const auto* list : batches) {
    for (const Batch& b : *list) {
      for (SampleId id : b) ++seen.at(static_cast<std::size_t>(id));
    }
  }
  return seen;
}

std::vector<SampleId> flatten_steps(const std::vector<trace::RankRecord>& ranks, std::size_t pass) {
  std::vector<SampleId> out;
  std::size_t steps = 0;
  for (const auto& r : ranks) steps = std::max(steps, r.epochs.at(pass).batches.size());
  for (std::size_t j = 0; j < steps; ++j) {
    for (const auto& r : ranks) {
      const auto& batches = r.epochs[pass].batches;
      if (j < batches.size()) out.insert(out.end(), batches[j].begin(), batches[j].end());
    }
  }
  return out;
}

}  // namespace accel::props
