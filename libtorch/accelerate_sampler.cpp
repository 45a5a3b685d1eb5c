#include "accelerate_sampler.hpp"

#include <torch/serialize/archive.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace accel::libtorch {

struct AccelerateSampler::State {
  State(DataLoaderShard prepared, Communicator* c, std::int64_t len, bool can_resume)
      : loader(std::move(prepared)), comm(c), dataset_len(len), resumable(can_resume) {}

  DataLoaderShard loader;
  Communicator* comm = nullptr;
  std::int64_t dataset_len = 0;
  bool resumable = true;
  // skip_first_batches(loader, k) made for the next pass; set_epoch() reaches it rather than the prepared loader.
  std::optional<DataLoaderShard> skipped;
  std::optional<LoaderPass> pass;
  std::int64_t pass_epoch = 0;  // the iteration counter the current pass started from
  std::int64_t next_batch = 0;  // index into the current pass, skipped batches excluded
};

namespace {

DataLoaderShard shard_of(const DataLoaderArgs& loader, const PrepareOptions& options) {
  if (loader.dataset_kind != DatasetKind::Map) {
    throw std::invalid_argument("AccelerateSampler: iterable datasets have no indices to sample");
  }
  PreparedLoader prepared = prepare_data_loader(loader, options);
  if (!std::holds_alternative<DataLoaderShard>(prepared)) {
    throw std::invalid_argument(
        "AccelerateSampler: dispatch_batches=True makes rank 0 read every batch and send each rank its slice; "
        "there is no per-rank index stream to sample");
  }
  return std::get<DataLoaderShard>(std::move(prepared));
}

}  // namespace

AccelerateSampler::AccelerateSampler(const DataLoaderArgs& loader, const PrepareOptions& options, Communicator* comm)
    : state_(std::make_shared<State>(shard_of(loader, options), comm, loader.dataset_len,
                                     // A RandomSampler's generator runs on across passes: no epoch recreates it.
                                     !loader.shuffle || options.use_seedable_sampler)) {
  if (state_->loader.has_synchronized_generator() && options.synchronize_generator && comm == nullptr) {
    throw std::invalid_argument(
        "AccelerateSampler: the sampler's generator is synchronised from rank 0 every pass (rng_types generator): "
        "give a Communicator");
  }
}

void AccelerateSampler::reset(torch::optional<std::size_t> new_size) {
  State& s = *state_;
  if (new_size && static_cast<std::int64_t>(*new_size) != s.dataset_len) {
    throw std::invalid_argument("AccelerateSampler: the dataset has " + std::to_string(s.dataset_len) +
                                " samples; reset() cannot change that to " + std::to_string(*new_size));
  }
  s.pass_epoch = s.loader.iteration();
  if (s.skipped) {
    // The skipped loader shares the sampler but has its own iteration counter: iterating it leaves the prepared
    // loader's counter alone (core/data_loader_shard.hpp), as in Accelerate.
    s.pass_epoch = s.skipped->iteration();
    s.pass = s.skipped->iterate(s.comm);
    s.skipped.reset();
  } else {
    s.pass = s.loader.iterate(s.comm);
  }
  s.next_batch = 0;
}

torch::optional<std::vector<std::size_t>> AccelerateSampler::next(std::size_t /*batch_size*/) {
  State& s = *state_;
  if (!s.pass) reset();
  if (s.next_batch >= s.pass->num_batches()) return torch::nullopt;
  const Batch ids = s.pass->batch(s.next_batch++);
  return std::vector<std::size_t>(ids.begin(), ids.end());
}

void AccelerateSampler::save(torch::serialize::OutputArchive& archive) const {
  const State& s = *state_;
  if (!s.resumable) {
    throw std::logic_error("AccelerateSampler::save: a RandomSampler's running generator cannot be saved; use the "
                           "seedable sampler (use_seedable_sampler) to resume");
  }
  std::int64_t epoch = s.loader.iteration();
  std::int64_t consumed = 0;
  if (s.pass && s.next_batch < s.pass->num_batches()) {  // mid-pass: resume inside it
    epoch = s.pass_epoch;
    consumed = s.pass->skip + s.next_batch;
  }
  archive.write("epoch", torch::tensor(epoch, torch::kLong));
  archive.write("batches_consumed", torch::tensor(consumed, torch::kLong));
}

void AccelerateSampler::load(torch::serialize::InputArchive& archive) {
  torch::Tensor epoch;
  torch::Tensor consumed;
  archive.read("epoch", epoch);
  archive.read("batches_consumed", consumed);
  set_epoch(epoch.item<std::int64_t>());
  state_->pass.reset();
  const std::int64_t k = consumed.item<std::int64_t>();
  if (k > 0) skip_first_batches(k);
}

void AccelerateSampler::set_epoch(std::int64_t epoch) {
  State& s = *state_;
  if (s.skipped) {
    s.skipped->set_epoch(epoch);
  } else {
    s.loader.set_epoch(epoch);
  }
}

void AccelerateSampler::skip_first_batches(std::int64_t num_batches) {
  if (num_batches < 0) throw std::invalid_argument("AccelerateSampler::skip_first_batches: a negative count");
  state_->skipped = state_->loader.skip_first_batches(num_batches);
}

std::int64_t AccelerateSampler::size() const {
  // len() of a map-style DataLoaderShard is always available; Attribute carries Python's failures elsewhere.
  return state_->loader.len().value();
}

std::int64_t AccelerateSampler::batches_in_pass() const { return state_->pass ? state_->pass->num_batches() : 0; }

std::int64_t AccelerateSampler::iteration() const { return state_->loader.iteration(); }

}  // namespace accel::libtorch
