// The HuggingFace datasets model against what the real library yielded (golden/hf-streams/, recorded by
// golden/reference/hf_streams.py with datasets, numpy and torch from PyPI and real DataLoader workers), and numpy's
// default generator against numpy's own draws recorded there.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/hf_iterable_dataset.hpp"
#include "core/numpy_generator.hpp"
#include "core/sample_order.hpp"

namespace accel {
namespace {

using Json = nlohmann::json;

// Every recorded release: golden/hf-streams/datasets-<version>.json.
const std::vector<Json>& recordings() {
  static const std::vector<Json> docs = [] {
    std::vector<Json> out;
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(ACCEL_HF_STREAMS_DIR)) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::ifstream in(f);
      out.push_back(Json::parse(in));
    }
    return out;
  }();
  return docs;
}

DatasetsRelease release_of(const Json& doc) {
  const std::optional<DatasetsRelease> r = datasets_release(doc.at("reference").at("datasets").get<std::string>());
  EXPECT_TRUE(r.has_value()) << doc["reference"].dump();
  return r.value_or(DatasetsRelease::v5_2);
}

std::vector<std::int64_t> ints(const Json& a) { return a.get<std::vector<std::int64_t>>(); }

HfIterableDataset build(const Json& c, DatasetsRelease release) {
  HfIterableDataset ds = HfIterableDataset::from_shards(ints(c.at("shard_sizes")), release);
  if (c.contains("shuffle")) {
    const Json& sh = c["shuffle"];
    HfShuffle options{sh.at("seed").get<std::uint64_t>(), sh.at("buffer_size").get<std::int64_t>(), std::nullopt};
    if (sh.contains("max_buffer_input_shards"))
      options.max_buffer_input_shards = sh["max_buffer_input_shards"].get<std::int64_t>();
    ds = ds.shuffle(options);
  }
  for (const Json& node : c.value("split_by_node", Json::array())) {
    ds = ds.split_dataset_by_node(node.at("rank").get<std::int64_t>(), node.at("world_size").get<std::int64_t>());
  }
  if (c.contains("shard")) {
    const Json& sd = c["shard"];
    ds = ds.shard(sd.at("num_shards").get<std::int64_t>(), sd.at("index").get<std::int64_t>(),
                  sd.value("contiguous", true));
  }
  ds.set_epoch(c.value("epoch", std::int64_t{0}));
  return ds;
}

TEST(HfIterableDataset, EveryRecordedStreamIsYieldedExactly) {
  ASSERT_GE(recordings().size(), 3u) << "golden/hf-streams holds one recording per modelled datasets release";
  for (const Json& doc : recordings()) {
    const DatasetsRelease release = release_of(doc);
    const Json& streams = doc.at("streams");
    ASSERT_GT(streams.size(), 1000u);
    std::size_t compared = 0, errors = 0;
    for (const Json& r : streams) {
      const Json& c = r.at("case");
      SCOPED_TRACE(std::string("datasets ") + datasets_version(release) + ": " + c.dump());
      if (r.contains("error")) {
        try {
          build(c, release);
          ADD_FAILURE() << "the library raised " << r["error"].dump() << "; the model did not";
        } catch (const AccelerateError& e) {
          EXPECT_EQ(python_name(e.type()), r["error"].at("type").get<std::string>());
          EXPECT_EQ(e.message(), r["error"].at("message").get<std::string>());
        }
        ++errors;
        continue;
      }
      const HfIterableDataset ds = build(c, release);
      EXPECT_EQ(ds.n_shards(), r.at("n_shards").get<std::int64_t>());
      const std::int64_t workers = c.value("num_workers", std::int64_t{0});
      const Json& recorded = r.at("streams");
      if (workers == 0) {
        ASSERT_EQ(recorded.size(), 1u);
        EXPECT_EQ(ds.stream(), ints(recorded[0]));
      } else {
        ASSERT_EQ(static_cast<std::int64_t>(recorded.size()), workers);
        for (std::int64_t w = 0; w < workers; ++w) {
          EXPECT_EQ(ds.stream(HfWorker{w, workers}), ints(recorded[static_cast<std::size_t>(w)])) << "worker " << w;
        }
      }
      ++compared;
    }
    EXPECT_GT(errors, 0u);
    std::cout << "hf-streams (datasets " << doc["reference"]["datasets"].get<std::string>() << "): " << compared
              << " streams compared, " << errors << " errors compared\n";
  }
}

TEST(NumpyGenerator, MatchesNumpysOwnDraws) {
  const Json& vectors = recordings().back().at("numpy");
  ASSERT_GE(vectors.size(), 5u);
  for (const Json& v : vectors) {
    const auto seed = v.at("seed").get<std::uint64_t>();
    SCOPED_TRACE("seed " + std::to_string(seed));
    EXPECT_EQ(seed_sequence_state(seed_entropy_words(seed), 8),
              v.at("seed_sequence_state").get<std::vector<std::uint32_t>>());
    NumpyGenerator raw = NumpyGenerator::default_rng(seed);
    for (const Json& word : v.at("random_raw")) EXPECT_EQ(raw.next_uint64(), word.get<std::uint64_t>());

    NumpyGenerator g = NumpyGenerator::default_rng(seed);
    const Json& ints_v = v.at("integers");
    const std::uint64_t highs[] = {1, 2, 3, 10, 1000, 1ull << 31, 1ull << 32, (1ull << 32) + 1, 1ull << 40, 1ull << 63};
    ASSERT_EQ(ints_v.size(), std::size(highs));
    for (std::size_t i = 0; i < std::size(highs); ++i) {
      EXPECT_EQ(g.bounded_uint64(highs[i] - 1), ints_v[i].get<std::uint64_t>()) << "integers(0, " << highs[i] << ")";
    }

    NumpyGenerator b = NumpyGenerator::default_rng(seed);
    const Json& batch = v.at("integers_size9_below7_then_two_below_2p63");
    for (std::size_t i = 0; i < 9; ++i) EXPECT_EQ(b.integers(0, 7), batch[i].get<std::int64_t>());
    for (std::size_t i = 9; i < 11; ++i) EXPECT_EQ(b.bounded_uint64((1ull << 63) - 1), batch[i].get<std::uint64_t>());

    const std::int64_t sizes[] = {0, 1, 2, 5, 17};
    for (std::size_t i = 0; i < std::size(sizes); ++i) {
      EXPECT_EQ(NumpyGenerator::default_rng(seed).permutation(sizes[i]), ints(v.at("permutations")[i]));
    }
    NumpyGenerator s = NumpyGenerator::default_rng(seed);
    std::vector<std::int64_t> list{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    s.shuffle(list);
    EXPECT_EQ(list, ints(v.at("shuffled_list_11")));
    EXPECT_EQ(s.integers(0, 1000), v.at("integers_after_shuffle").get<std::int64_t>());
  }
}

TEST(NumpyGenerator, ThirtyTwoBitDrawsUseBothHalvesOfOneWord) {
  NumpyGenerator a = NumpyGenerator::default_rng(42);
  NumpyGenerator b = NumpyGenerator::default_rng(42);
  const std::uint64_t word = a.next_uint64();
  EXPECT_EQ(b.next_uint32(), static_cast<std::uint32_t>(word));
  EXPECT_EQ(b.next_uint32(), static_cast<std::uint32_t>(word >> 32));
  EXPECT_EQ(b.next_uint64(), a.next_uint64());
}

TEST(HfIterableDataset, EveryExampleOnceWhateverTheShuffleAndEpoch) {
  const std::vector<std::int64_t> sizes{5, 3, 7, 2, 4, 6, 1, 3, 8, 2};
  for (DatasetsRelease release : {DatasetsRelease::v3_6, DatasetsRelease::v4_8, DatasetsRelease::v5_2}) {
    for (std::int64_t epoch : {0, 1, 5}) {
      for (std::int64_t buffer : {1, 3, 4, 1000}) {
        HfIterableDataset ds =
            HfIterableDataset::from_shards(sizes, release).shuffle(HfShuffle{9, buffer, std::nullopt});
        ds.set_epoch(epoch);
        std::vector<std::int64_t> s = ds.stream();
        std::sort(s.begin(), s.end());
        ASSERT_EQ(static_cast<std::int64_t>(s.size()), ds.dataset_len());
        for (std::int64_t i = 0; i < ds.dataset_len(); ++i) EXPECT_EQ(s[static_cast<std::size_t>(i)], i);
      }
    }
  }
}

TEST(HfDatasetShuffle, IndexIReadsRowPermutationIThroughTheSamplersOrder) {
  const std::vector<std::int64_t> rows = hf_dataset_shuffle_indices(23, 42);
  EXPECT_EQ(rows, NumpyGenerator::default_rng(42).permutation(23));
  const SampleOrder read = SampleOrder::of(std::vector<std::int64_t>{2, 0, 1}).through(rows);
  EXPECT_EQ(read[0], rows[2]);
  EXPECT_EQ(read[1], rows[0]);
  EXPECT_EQ(read[2], rows[1]);
  EXPECT_EQ(SampleOrder::sequential(23).through(rows)[22], rows[22]);
}

TEST(HfIterableDataset, ShardPastTheShardsRaisesIndexError) {
  const HfIterableDataset ds = HfIterableDataset::from_shards({3, 4});
  try {
    ds.shard(3, 2);
    FAIL() << "expected IndexError";
  } catch (const AccelerateError& e) {
    EXPECT_EQ(e.type(), PyErrorType::IndexError);
  }
  EXPECT_THROW(HfIterableDataset::from_shards({}), AccelerateError);
  EXPECT_THROW(ds.split_dataset_by_node(2, 2), AccelerateError);
  EXPECT_THROW(ds.shuffle(HfShuffle{1, 4, 10}).shuffle(HfShuffle{1, 4, 10}), AccelerateError);
  EXPECT_THROW(HfIterableDataset::from_shards({3, 4}, DatasetsRelease::v4_8).shuffle(HfShuffle{1, 4, 2}),
               AccelerateError);
}

TEST(HfIterableDataset, NodeSplitIsByShardsOnlyWhenTheyDivide) {
  const HfIterableDataset four = HfIterableDataset::from_shards({2, 2, 2, 2});
  EXPECT_EQ(four.split_dataset_by_node(1, 2).n_shards(), 2);
  EXPECT_EQ(four.split_dataset_by_node(1, 2).stream(), (std::vector<std::int64_t>{2, 3, 6, 7}));
  const HfIterableDataset three = HfIterableDataset::from_shards({2, 2, 2});
  EXPECT_EQ(three.split_dataset_by_node(1, 2).n_shards(), 3);
  EXPECT_EQ(three.split_dataset_by_node(1, 2).stream(), (std::vector<std::int64_t>{1, 3, 5}));
}

}  // namespace
}  // namespace accel
