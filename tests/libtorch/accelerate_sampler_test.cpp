// AccelerateSampler driven the way LibTorch's DataLoader drives it (reset() per pass, next() until empty) must
// yield, on every rank and pass, the batches the simulator records for the same job; its saved position must
// resume the same batches; and what it cannot express is refused rather than approximated.
#include <gtest/gtest.h>
#include <torch/serialize.h>

#include <stdexcept>
#include <vector>

#include "core/error.hpp"
#include "libtorch/accelerate_sampler.hpp"
#include "sim/simulator.hpp"

namespace {

using accel::libtorch::AccelerateSampler;
using accel::trace::LoaderCase;
using accel::trace::LoaderRole;

std::vector<accel::Batch> drain(AccelerateSampler& sampler) {
  std::vector<accel::Batch> out;
  while (auto batch = sampler.next(1)) out.emplace_back(batch->begin(), batch->end());
  return out;
}

LoaderCase job(std::int64_t ranks, std::int64_t len, std::int64_t batch_size, std::int64_t epochs) {
  LoaderCase c;
  c.loader.dataset_len = len;
  c.loader.batch_size = batch_size;
  c.prepare.num_processes = ranks;
  c.epochs = epochs;
  c.schedule.assign(static_cast<std::size_t>(epochs), LoaderRole::Prepared);
  return c;
}

// Every rank, every pass: the sampler (with the case's set_epoch / skip calls) against simulate_rank.
void expect_matches_simulator(const LoaderCase& c) {
  for (std::int64_t rank = 0; rank < c.prepare.num_processes; ++rank) {
    const accel::trace::RankRecord expected = accel::sim::simulate_rank(c, rank);
    accel::PrepareOptions options = c.prepare;
    options.process_index = rank;
    options.process_seed = accel::sim::process_seed(c, rank);
    AccelerateSampler sampler(c.loader, options);
    ASSERT_EQ(sampler.size(), expected.attributes.len.value()) << "rank " << rank;
    for (std::int64_t e = 0; e < c.epochs; ++e) {
      const bool skipped = c.schedule[static_cast<std::size_t>(e)] == LoaderRole::Skipped;
      if (skipped) sampler.skip_first_batches(*c.skip_first_batches);
      if (c.set_epoch) sampler.set_epoch((*c.set_epoch)[static_cast<std::size_t>(e)]);
      const std::int64_t before = sampler.iteration();
      sampler.reset();
      EXPECT_EQ(drain(sampler), expected.epochs[static_cast<std::size_t>(e)].batches) << "rank " << rank << " pass " << e;
      // iteration() is the prepared loader's counter, which a pass of the skipped loader leaves alone.
      EXPECT_EQ(sampler.iteration(), skipped ? before : expected.epochs[static_cast<std::size_t>(e)].iteration_after)
          << "rank " << rank << " pass " << e;
    }
  }
}

TEST(AccelerateSampler, EvenBatchesPadTheLastBatches) { expect_matches_simulator(job(3, 23, 4, 1)); }

TEST(AccelerateSampler, UnevenDropLast) {
  LoaderCase c = job(4, 37, 3, 2);
  c.prepare.even_batches = false;
  c.loader.drop_last = true;
  expect_matches_simulator(c);
}

TEST(AccelerateSampler, SplitBatchesSeedableShuffleOverEpochs) {
  LoaderCase c = job(2, 41, 6, 3);
  c.prepare.split_batches = true;
  c.loader.shuffle = true;
  c.prepare.use_seedable_sampler = true;
  c.prepare.data_seed = 42;
  expect_matches_simulator(c);
}

TEST(AccelerateSampler, ResumeWithSkipThenPreparedLoader) {
  LoaderCase c = job(2, 30, 4, 3);
  c.loader.shuffle = true;
  c.prepare.use_seedable_sampler = true;
  c.prepare.data_seed = 7;
  c.skip_first_batches = 2;
  c.schedule = {LoaderRole::Skipped, LoaderRole::Prepared, LoaderRole::Prepared};
  expect_matches_simulator(c);
}

TEST(AccelerateSampler, ExplicitSetEpoch) {
  LoaderCase c = job(3, 20, 2, 2);
  c.loader.shuffle = true;
  c.prepare.use_seedable_sampler = true;
  c.prepare.data_seed = 3;
  c.set_epoch = std::vector<std::int64_t>{5, 9};
  expect_matches_simulator(c);
}

TEST(AccelerateSampler, RandomSamplerSeededProcesses) {
  LoaderCase c = job(2, 19, 3, 2);
  c.loader.shuffle = true;
  c.torch_manual_seed = 11;
  expect_matches_simulator(c);
}

TEST(AccelerateSampler, SavedPositionResumesTheSameBatches) {
  accel::DataLoaderArgs loader;
  loader.dataset_len = 50;
  loader.batch_size = 4;
  loader.shuffle = true;
  accel::PrepareOptions options;
  options.num_processes = 2;
  options.process_index = 1;
  options.use_seedable_sampler = true;
  options.data_seed = 5;

  AccelerateSampler original(loader, options);
  original.set_epoch(1);
  original.reset();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(original.next(4));
  torch::serialize::OutputArchive out;
  original.save(out);
  std::stringstream bytes;
  out.save_to(bytes);
  const std::vector<accel::Batch> rest = drain(original);
  ASSERT_FALSE(rest.empty());

  AccelerateSampler resumed(loader, options);
  torch::serialize::InputArchive in;
  in.load_from(bytes);
  resumed.load(in);
  resumed.reset();
  EXPECT_EQ(drain(resumed), rest);
}

TEST(AccelerateSampler, RefusesWhatItCannotExpress) {
  accel::DataLoaderArgs loader;
  loader.dataset_len = 10;
  loader.batch_size = 2;
  accel::PrepareOptions options;
  options.num_processes = 2;

  accel::PrepareOptions dispatched = options;
  dispatched.dispatch_batches = true;
  dispatched.put_on_device = true;
  EXPECT_THROW(AccelerateSampler(loader, dispatched), std::invalid_argument);

  accel::DataLoaderArgs iterable = loader;
  iterable.dataset_kind = accel::DatasetKind::Iterable;
  EXPECT_THROW(AccelerateSampler(iterable, options), std::invalid_argument);

  accel::DataLoaderArgs split = loader;
  split.batch_size = 3;
  accel::PrepareOptions split_options = options;
  split_options.split_batches = true;
  EXPECT_THROW(AccelerateSampler(split, split_options), accel::AccelerateError);

  AccelerateSampler sampler(loader, options);
  EXPECT_THROW(sampler.reset(11), std::invalid_argument);

  accel::DataLoaderArgs shuffled = loader;
  shuffled.shuffle = true;
  AccelerateSampler unseeded(shuffled, options);
  torch::serialize::OutputArchive out;
  EXPECT_THROW(unseeded.save(out), std::logic_error);
}

}  // namespace
