#include "data_loader_dispatcher.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "mutation.hpp"
#include "randperm.hpp"
#include "stateful_loader_state.hpp"

namespace accel {
namespace {

// What broadcast_object_list carries: the batch structure (here its length) and the stop flag.
struct BatchInfo {
  bool has_batch = false;
  std::int64_t size = 0;
  bool stop = false;
};

std::vector<std::int64_t> encode(const BatchInfo& info) { return {info.has_batch ? 1 : 0, info.size, info.stop ? 1 : 0}; }
BatchInfo decode(const std::vector<std::int64_t>& v) { return {v.at(0) != 0, v.at(1), v.at(2) != 0}; }

// Elements [begin, end) of `b` followed by the first `pad_from_first` elements of `first` (the completed
// final batch), clipped to that length: one rank's slice, read out of the broadcast batch every rank shares
// rather than out of a padded copy of it.
Batch slice(const Batch& b, std::int64_t pad_from_first, const Batch& first, std::int64_t begin, std::int64_t end) {
  const auto n = static_cast<std::int64_t>(b.size());
  const std::int64_t total = n + pad_from_first;
  begin = std::clamp<std::int64_t>(begin, 0, total);
  end = std::clamp<std::int64_t>(end, begin, total);
  Batch out;
  out.reserve(static_cast<std::size_t>(end - begin));
  for (std::int64_t i = begin; i < end; ++i) {
    out.push_back(i < n ? b[static_cast<std::size_t>(i)] : first[static_cast<std::size_t>(i - n)]);
  }
  return out;
}

}  // namespace

// The user's DataLoader as rank 0 iterates it: batches of batch_size over the epoch's order. The
// order is drawn on the first next(), as torch's lazy sampler iterator does.
class DataLoaderDispatcher::BaseIterator {
 public:
  // `reuses_iterator`: the base loader hands out the iterator it built with the loader (no _base_seed draw).
  BaseIterator(DataLoaderDispatcher& owner, bool reuses_iterator) : owner_(owner), reuses_(reuses_iterator) {}

  std::optional<Batch> next() {
    if (!order_) {
      std::vector<std::int64_t> hf_lengths;
      order_ = owner_.options_.hf_dataset ? hf_order(hf_lengths)
               : owner_.options_.iterable ? iterable_order()
               : reuses_                  ? owner_.shared_->sampler.iterate()
                                          : owner_.shared_->sampler.iterate_in_loader();
      if (owner_.options_.index_map) order_ = order_->through(*owner_.options_.index_map);
      index_ = owner_.skip_underlying_;
      const std::int64_t m = order_->size(), b = owner_.options_.batch_size;
      count_ = owner_.options_.drop_last ? m / b : (m + b - 1) / b;
      if (owner_.options_.iterable && owner_.options_.workers.active()) {
        // Rank 0's workers each batch their own stream; the main process takes their batches in turn.
        const IterableShardOptions unsharded{b, owner_.options_.drop_last, 1, 0, false};
        if (owner_.options_.hf_dataset) {
          workers_.emplace(hf_lengths, unsharded, false, owner_.options_.workers);
        } else {
          workers_.emplace(m, unsharded, false, owner_.options_.workers);
        }
        count_ = workers_->num_batches();
      }
    }
    if (index_ >= count_) return std::nullopt;
    if (workers_) return workers_->batch_ids(index_++, *order_);
    const std::int64_t b = owner_.options_.batch_size;
    const std::int64_t begin = index_ * b, end = std::min((index_ + 1) * b, order_->size());
    Batch batch(static_cast<std::size_t>(end - begin));
    order_->copy(begin, end, batch.data());
    ++index_;
    return batch;
  }

 private:
  // The datasets.IterableDataset's pass (set_epoch has reached it): the workers' streams one after another.
  SampleOrder hf_order(std::vector<std::int64_t>& lengths) {
    HfIterableDataset ds = *owner_.options_.hf_dataset;
    ds.set_epoch(owner_.iteration_);
    HfIterableDataset::LoaderPass pass = ds.loader_pass(owner_.options_.workers.num_workers);
    lengths = std::move(pass.lengths);
    return SampleOrder::of(std::move(pass.ids));
  }

  SampleOrder iterable_order() {
    const std::int64_t n = owner_.options_.sampler.dataset_len;
    if (!owner_.options_.dataset_generator_seed) return SampleOrder::sequential(n);
    const TorchVersion version = owner_.options_.sampler.torch_version;
    const DataLoaderWorkers& workers = owner_.options_.workers;
    if (!workers.active()) return randperm_order(n, owner_.shared_->dataset_generator, version);
    // Workers draw from their copies of the dataset: non-persistent ones copy the main process's generator,
    // which never advances; persistent ones keep advancing the copy they started with.
    if (!workers.persistent_workers) {
      TorchGenerator copy = owner_.shared_->dataset_generator;
      return randperm_order(n, copy, version);
    }
    if (!owner_.persistent_generator_) owner_.persistent_generator_ = owner_.shared_->dataset_generator;
    return randperm_order(n, *owner_.persistent_generator_, version);
  }

  DataLoaderDispatcher& owner_;
  bool reuses_ = false;
  std::optional<SampleOrder> order_;
  std::optional<WorkerBatches> workers_;
  std::int64_t index_ = 0;
  std::int64_t count_ = 0;
};

struct DataLoaderDispatcher::Fetched {
  Batch batch;
  BatchInfo info;
};

DataLoaderDispatcher::DataLoaderDispatcher(DispatcherOptions options)
    : options_(options),
      shared_(std::make_shared<Shared>(Shared{
          Sampler(options.sampler), TorchGenerator(options.dataset_generator_seed.value_or(kTorchDefaultSeed))})) {
  if (options_.stateful && !options_.iterable && !mutant(Mutation::StatefulInitialIteratorIgnored)) {
    shared_->sampler.build_loader_iterator();
    initial_iterator_ = true;
  }
}

DataLoaderDispatcher DataLoaderDispatcher::skip_first_batches(std::int64_t num_batches) const {
  DataLoaderDispatcher skipped = *this;
  // skip_first_batches builds its dispatcher over a plain DataLoader (no use_stateful_dataloader).
  skipped.options_.stateful = skipped.options_.snapshot_raises = false;
  // ...and before 1.16.0 without the torch_device_mesh (data_loader.py's skip_first_batches passes split_batches, the
  // batch sampler and the iteration, never the mesh; recorded): a resumed tp job's dispatcher slices every batch over
  // all ranks. 1.16.0 passes the mesh (skip_keeps_loader_options; recorded).
  if (!skip_keeps_loader_options(options_.release) && !mutant(Mutation::SkippedDispatcherKeepsMesh)) {
    skipped.options_.mesh = DispatcherMesh::Plain;
  }
  skipped.initial_iterator_ = false;
  skipped.persistent_generator_.reset();  // its DataLoader starts workers of its own
  skipped.persistent_iterator_ = false;
  // Before 1.15.0 the new loader starts its own iteration counter at 0 (skip_keeps_iteration, #4071).
  if (!skip_keeps_iteration(options_.release)) skipped.iteration_ = 0;
  if (options_.iterable) {
    skipped.skip_dispatched_ = num_batches;
  } else {
    skipped.skip_underlying_ = num_batches;
    skipped.sampler_behind_skip_ = true;
  }
  return skipped;
}

std::int64_t DataLoaderDispatcher::underlying_len() const {
  const std::int64_t m = options_.iterable ? options_.sampler.dataset_len : shared_->sampler.size();
  const std::int64_t b = options_.batch_size;
  return (options_.drop_last ? m / b : (m + b - 1) / b) - skip_underlying_;
}

Attribute<std::int64_t> DataLoaderDispatcher::len() const {
  if (options_.hf_dataset)
    return AttributeFailure{PyErrorType::TypeError, "object of type 'IterableDataset' has no len()"};
  const std::int64_t whole = underlying_len();
  if (whole < 0) return AttributeFailure{PyErrorType::ValueError, "__len__() should return >= 0"};
  const std::int64_t r = options_.num_processes;
  if (options_.split_batches) return whole;
  if (options_.drop_last) return whole / r;
  return (whole + r - 1) / r;
}

Attribute<std::int64_t> DataLoaderDispatcher::total_batch_size() const {
  // The property reads dataset.batch_size, which a plain dataset lacks; DataLoaderAdapter's
  // attribute fallback then reports it as missing on the DataLoader (0.34.0 on; before, the dataset's own error).
  if (!loaders_are_adapters(options_.release)) {
    return AttributeFailure{PyErrorType::AttributeError,
                            std::string("'") + (options_.iterable ? kRecorderIterableDatasetClass : kRecorderMapDatasetClass) +
                                "' object has no attribute 'batch_size'"};
  }
  return AttributeFailure{PyErrorType::AttributeError, std::string("'") +
                                                           (options_.stateful ? "StatefulDataLoader" : "DataLoader") +
                                                           "' object has no attribute 'total_batch_size'"};
}

Attribute<std::int64_t> DataLoaderDispatcher::total_dataset_length() const {
  if (options_.hf_dataset)
    return AttributeFailure{PyErrorType::TypeError, "object of type 'IterableDataset' has no len()"};
  return options_.sampler.dataset_len;
}

std::optional<std::int64_t> DataLoaderDispatcher::sampler_epoch() const {
  if (options_.iterable || !shared_->sampler.has_set_epoch()) return std::nullopt;
  return shared_->sampler.epoch();
}

void DataLoaderDispatcher::set_epoch(std::int64_t epoch) {
  if (!has_iteration()) {
    // Before 0.24.0 the loaders have no set_epoch (has_loader_set_epoch).
    throw AccelerateError(PyErrorType::AttributeError, "iterate",
                          "'DataLoaderDispatcher' object has no attribute 'set_epoch'");
  }
  iteration_ = epoch;
  if (!options_.iterable && !sampler_behind_skip_ && shared_->sampler.has_set_epoch())
    shared_->sampler.set_epoch(epoch);
}

DataLoaderDispatcher::Fetched DataLoaderDispatcher::fetch(BaseIterator& it, Communicator& comm) {
  const bool main = options_.process_index == 0;
  Fetched out;
  std::vector<Batch> batches;
  if (main) {
    // _fetch_batches snapshots the state before each fetch: the first raises, before anything is broadcast.
    if (options_.snapshot_raises) throw missing_sampler_iter_yielded();
    bool exhausted = false;
    if (options_.split_batches) {
      if (auto b = it.next()) out.batch = std::move(*b); else exhausted = true;
    } else if (options_.mesh == DispatcherMesh::ReplicateOneBatch) {
      // One batch, concatenated num_processes times: rank r's slice is the r-th copy. `batches` stays empty, so
      // nothing is left over to dispatch when the loader runs out.
      if (auto b = it.next()) {
        for (std::int64_t i = 0; i < options_.num_processes; ++i)
          out.batch.insert(out.batch.end(), b->begin(), b->end());
      } else {
        exhausted = true;
      }
    } else {
      for (std::int64_t i = 0; i < options_.num_processes && !exhausted; ++i) {
        if (auto b = it.next()) batches.push_back(std::move(*b)); else exhausted = true;
      }
      if (!exhausted) for (const Batch& b : batches) out.batch.insert(out.batch.end(), b.begin(), b.end());
    }
    out.info = exhausted ? BatchInfo{false, 0, true} : BatchInfo{true, static_cast<std::int64_t>(out.batch.size()), false};
  } else {
    out.info = BatchInfo{false, 0, stop_iteration_};
  }
  out.info = decode(comm.broadcast_object(encode(out.info), 0));
  stop_iteration_ = out.info.stop;
  if (stop_iteration_ && !options_.split_batches && !options_.drop_last) {
    // A short group of batches at the end is still dispatched.
    if (main && !batches.empty()) {
      out.batch.clear();
      for (const Batch& b : batches) out.batch.insert(out.batch.end(), b.begin(), b.end());
      out.info = BatchInfo{true, static_cast<std::int64_t>(out.batch.size()), false};
    } else {
      out.info = BatchInfo{false, 0, true};
    }
    out.info = decode(comm.broadcast_object(encode(out.info), 0));
  }
  return out;
}

DispatchPass DataLoaderDispatcher::iterate(Communicator& comm) {
  DispatchPass pass;
  const std::int64_t R = options_.num_processes;
  const std::int64_t r = options_.process_index;
  std::int64_t remainder = -1;  // begin(): total_batch_size raises, so it stays -1 until the end
  if (has_iteration()) set_epoch(iteration_);  // __iter__'s set_epoch(iteration): 0.24.0 on
  // Persistent workers keep one iterator, reset (no _base_seed draw) for every pass after the first.
  const bool persistent =
      options_.workers.active() && options_.workers.persistent_workers && std::exchange(persistent_iterator_, true);
  BaseIterator it(*this, std::exchange(initial_iterator_, false) || persistent);
  stop_iteration_ = false;
  // The epoch's first dispatched batch, whose first num_processes samples complete a short final one.
  std::shared_ptr<const Batch> first_batch;
  try {
    Fetched next = fetch(it, comm);
    std::int64_t batch_index = 0;
    bool stop = false;
    while (!stop) {
      Fetched current = std::move(next);
      if (!current.info.has_batch) {
        if (!options_.process_group) {
          // broadcast() returns the None as it is, and the dispatcher's own check refuses it.
          throw AccelerateError(PyErrorType::ValueError, "iterate",
                                "Batch does not contain any data (`None`). At the end of all iterable data available "
                                "before expected stop iteration.");
        }
        // broadcast(None): Accelerate's type check raises before any communication, on every rank.
        throw AccelerateError(PyErrorType::TypeError, "iterate",
                              "Unsupported types (<class 'NoneType'>) passed to `_gpu_broadcast_one`. Only nested "
                              "list/tuple/dicts of objects that are valid for `is_torch_tensor` should be passed.");
      }
      std::shared_ptr<const Batch> sent;
      if (r == 0) sent = std::make_shared<const Batch>(std::move(current.batch));
      const std::shared_ptr<const Batch> received = comm.broadcast_shared(std::move(sent), current.info.size, 0);
      const Batch& batch = *received;
      if (!options_.drop_last && !first_batch) first_batch = received;
      const auto observed = static_cast<std::int64_t>(batch.size());
      std::int64_t per_rank = observed / R;
      stop = stop_iteration_;
      if (!stop) {
        next = fetch(it, comm);
        if (stop_iteration_ && !next.info.has_batch) stop = true;
      }
      std::int64_t pad = 0;
      if (!options_.drop_last && stop && observed % R != 0 && !mutant(Mutation::DispatcherTailPadMissing)) {
        pad = std::min<std::int64_t>(R, static_cast<std::int64_t>(first_batch->size()));
        per_rank += 1;
      }
      Batch mine = slice(batch, pad, pad ? *first_batch : batch, r * per_rank, (r + 1) * per_rank);
      if (stop) remainder = observed;
      if (batch_index >= skip_dispatched_) {
        pass.batches.push_back(std::move(mine));
        pass.end_of_dataloader.push_back(stop);
        pass.remainder.push_back(remainder);
      }
      ++batch_index;
    }
    ++iteration_;
  } catch (const AccelerateError& e) {
    pass.error = e;
  }
  pass.iteration_after = iteration_;
  pass.sampler_epoch_after = sampler_epoch();
  return pass;
}

}  // namespace accel
