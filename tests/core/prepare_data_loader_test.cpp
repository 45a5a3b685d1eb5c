// prepare_data_loader's errors: raised for the same configs as Accelerate, with the same meaning.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/prepare_data_loader.hpp"
#include "tests/support/loader_configs.hpp"

namespace accel {
namespace {

using testing::map_loader;

AccelerateError error_of(DataLoaderArgs dl, PrepareOptions po) {
  try {
    prepare_data_loader(dl, po);
  } catch (const AccelerateError& e) {
    return e;
  }
  ADD_FAILURE() << "no error raised";
  return AccelerateError(PyErrorType::RuntimeError, "", "");
}

TEST(PrepareDataLoader, SplitBatchesNeedsAMultipleOfTheRanks) {
  PrepareOptions po;
  po.num_processes = 4;
  po.split_batches = true;
  const auto e = error_of(map_loader(10, 6), po);
  EXPECT_EQ(e.type(), PyErrorType::ValueError);
  EXPECT_EQ(e.where(), "prepare_data_loader");
  EXPECT_NE(e.message().find("batch size (6)"), std::string::npos);
  EXPECT_NE(e.message().find("number of processes (4)"), std::string::npos);
}

TEST(PrepareDataLoader, BatchSizeOneSlipsPastTheFirstCheckButNotTheShard) {
  PrepareOptions po;
  po.num_processes = 3;
  po.split_batches = true;
  const auto e = error_of(map_loader(10, 1), po);
  EXPECT_NE(e.message().find("BatchSamplerShard"), std::string::npos);
  po.num_processes = 1;  // one process: no shard, nothing to reject
  EXPECT_NO_THROW(prepare_data_loader(map_loader(10, 1), po));
}

TEST(PrepareDataLoader, DispatchNeedsPutOnDevice) {
  PrepareOptions po;
  po.dispatch_batches = true;
  const auto e = error_of(map_loader(10, 2), po);
  EXPECT_NE(e.message().find("put_on_device=True"), std::string::npos);
}

TEST(PrepareDataLoader, RejectsNonPositiveBatchSize) {
  const auto e = error_of(map_loader(10, 0), PrepareOptions{});
  EXPECT_EQ(e.type(), PyErrorType::ValueError);
}

// permutation_pass_length (issue 25) stands in for pass_order where only a permutation's counts are needed: the
// same length, the same errors, and nothing for an order that is not a permutation.
std::optional<std::int64_t> drawn_permutation_length(const DataLoaderArgs& dl, const PrepareOptions& po,
                                                     std::int64_t pass) {
  const SampleOrder order = pass_order(dl, po, pass);
  std::vector<bool> seen(static_cast<std::size_t>(dl.dataset_len), false);
  for (std::int64_t p = 0; p < order.size(); ++p) {
    const std::int64_t id = order[p];
    if (id < 0 || id >= dl.dataset_len || seen[static_cast<std::size_t>(id)]) return std::nullopt;
    seen[static_cast<std::size_t>(id)] = true;
  }
  if (order.size() != dl.dataset_len) return std::nullopt;
  return order.size();
}

TEST(PermutationPassLength, AgreesWithTheDrawnOrder) {
  for (const bool seedable : {false, true}) {
    for (const bool replacement : {false, true}) {
      for (const std::optional<std::int64_t> num_samples :
           {std::optional<std::int64_t>{}, std::optional<std::int64_t>{37}, std::optional<std::int64_t>{50}}) {
        DataLoaderArgs dl = map_loader(50, 4, false, true);
        dl.replacement = replacement;
        dl.num_samples = num_samples;
        PrepareOptions po;
        po.num_processes = 3;
        po.use_seedable_sampler = seedable;
        po.data_seed = PythonInt{11};
        for (std::int64_t pass = 0; pass < 3; ++pass) {
          EXPECT_EQ(permutation_pass_length(dl, po, pass), drawn_permutation_length(dl, po, pass))
              << "seedable " << seedable << " replacement " << replacement << " num_samples "
              << num_samples.value_or(-1) << " pass " << pass;
        }
      }
    }
  }
  PrepareOptions po;
  po.num_processes = 2;
  EXPECT_EQ(permutation_pass_length(map_loader(9, 2), po, 0), 9);  // sequential
  DataLoaderArgs iterable = map_loader(9, 2);
  iterable.dataset_kind = DatasetKind::Iterable;
  iterable.dataset_generator_seed = 5;
  EXPECT_EQ(permutation_pass_length(iterable, po, 1), drawn_permutation_length(iterable, po, 1));
}

TEST(PermutationPassLength, RaisesWhatTheDrawRaises) {
  const auto raised = [](const auto& f) -> std::string {
    try {
      f();
    } catch (const AccelerateError& e) {
      return std::string(python_name(e.type())) + " in " + e.where() + ": " + e.message();
    }
    return "nothing";
  };
  // A seedable sampler seeds initial_seed + epoch: 2^64 - 1 holds on pass 0 and overflows on pass 1.
  DataLoaderArgs dl = map_loader(20, 4, false, true);
  PrepareOptions po;
  po.num_processes = 2;
  po.use_seedable_sampler = true;
  po.data_seed = kTorchSeedEnd - 1;
  for (const TorchVersion torch : {TorchVersion::v1_13, TorchVersion::v2_6}) {
    po.torch_version = torch;
    for (std::int64_t pass = 0; pass < 2; ++pass) {
      const std::string drawn = raised([&] { (void)pass_order(dl, po, pass); });
      EXPECT_EQ(raised([&] { (void)permutation_pass_length(dl, po, pass); }), drawn) << "pass " << pass;
      EXPECT_EQ(drawn == "nothing", pass == 0) << drawn;
    }
  }
  // A shuffled empty dataset: RandomSampler's constructor refuses num_samples=0.
  PrepareOptions random;
  random.num_processes = 2;
  const DataLoaderArgs empty = map_loader(0, 4, false, true);
  const std::string drawn = raised([&] { (void)pass_order(empty, random, 0); });
  EXPECT_NE(drawn, "nothing");
  EXPECT_EQ(raised([&] { (void)permutation_pass_length(empty, random, 0); }), drawn);
}

}  // namespace
}  // namespace accel

namespace accel {
namespace {

// A datasets.IterableDataset of `sizes` shards, as prepare_data_loader's caller hands it over.
DataLoaderArgs hf_loader(std::vector<std::int64_t> sizes, std::int64_t batch_size) {
  DataLoaderArgs dl;
  dl.dataset_kind = DatasetKind::Iterable;
  dl.hf_dataset = HfIterableDataset::from_shards(std::move(sizes));
  dl.dataset_len = dl.hf_dataset->dataset_len();
  dl.batch_size = batch_size;
  return dl;
}

PrepareOptions ranks(std::int64_t n, std::int64_t rank = 0) {
  PrepareOptions po;
  po.num_processes = n;
  po.process_index = rank;
  po.dispatch_batches = false;
  return po;
}

TEST(HfDatasetPath, ShardsWhenThereAreEnoughShardsAndBatchesAreNeitherSplitNorDispatched) {
  const DataLoaderArgs ten = hf_loader({5, 3, 7, 2, 4, 6, 1, 3, 8, 2}, 2);
  EXPECT_EQ(hf_dataset_path(ten, ranks(4)), HfDatasetPath::Shard);
  EXPECT_EQ(hf_dataset_path(ten, ranks(10)), HfDatasetPath::Shard);
  EXPECT_EQ(hf_dataset_path(ten, ranks(11)), HfDatasetPath::IterableDatasetShard);
  EXPECT_EQ(hf_dataset_path(ten, ranks(1)), HfDatasetPath::Unsharded);
  PrepareOptions split = ranks(2);
  split.split_batches = true;
  EXPECT_EQ(hf_dataset_path(ten, split), HfDatasetPath::IterableDatasetShard);
  PrepareOptions dispatch = ranks(2);
  dispatch.dispatch_batches = true;
  dispatch.put_on_device = true;
  EXPECT_EQ(hf_dataset_path(ten, dispatch), HfDatasetPath::Dispatched);
}

TEST(HfDatasetPath, ASplitByNodeCountsTheShardsEachNodeKeeps) {
  // 8 shards split over 4 nodes by shards: 2 each, fewer than the 4 processes, so IterableDatasetShard slices them
  // again; 6 shards do not divide by 4, so every node keeps all 6 (split by examples) and Accelerate shards them.
  DataLoaderArgs eight = hf_loader({1, 1, 1, 1, 1, 1, 1, 1}, 1);
  eight.hf_split_by_node = true;
  EXPECT_EQ(hf_dataset_path(eight, ranks(4)), HfDatasetPath::IterableDatasetShard);
  DataLoaderArgs six = hf_loader({1, 1, 1, 1, 1, 1}, 1);
  six.hf_split_by_node = true;
  EXPECT_EQ(hf_dataset_path(six, ranks(4)), HfDatasetPath::Shard);
}

TEST(HfDatasetPath, TheShardPathGivesEachRankWholeShardsAndLenRaises) {
  const DataLoaderArgs ten = hf_loader({5, 3, 7, 2, 4, 6, 1, 3, 8, 2}, 2);
  const std::vector<std::int64_t> steps{8, 6, 2, 5};  // 15, 12, 4 and 10 examples in batches of 2
  for (std::int64_t r = 0; r < 4; ++r) {
    auto loader = std::get<DataLoaderShard>(prepare_data_loader(ten, ranks(4, r)));
    EXPECT_FALSE(loader.len().ok());
    EXPECT_FALSE(loader.total_dataset_length().ok());
    EXPECT_EQ(loader.total_batch_size().value(), 2);
    const LoaderPass pass = loader.iterate();
    EXPECT_EQ(pass.num_batches(), steps[static_cast<std::size_t>(r)]) << "rank " << r;
    EXPECT_EQ(pass.remainder, -1);
  }
  auto rank2 = std::get<DataLoaderShard>(prepare_data_loader(ten, ranks(4, 2)));
  const LoaderPass pass = rank2.iterate();
  EXPECT_EQ(pass.batch(0), (Batch{27, 28}));  // shards 6 and 7 hold ids 27-30
  EXPECT_EQ(pass.batch(1), (Batch{29, 30}));
}

}  // namespace
}  // namespace accel
