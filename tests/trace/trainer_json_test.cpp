// The trainer family's group_by_length keys (golden/SCHEMA.md `## trainer`): parsed into the job's
// LengthGrouping (batch_size = per-device batch x accumulation, per job), and every bad value named with its rule.
#include <gtest/gtest.h>

#include <string>

#include "trace/trainer_json.hpp"

namespace accel::trace {
namespace {

Json gbl_config() {
  return Json::parse(R"({"api": "trainer", "transformers_version": "5.25", "dataset_len": 4, "num_processes": 2,
                         "per_device_train_batch_size": 3, "gradient_accumulation_steps": 2, "num_train_epochs": 1,
                         "train_sampling_strategy": "group_by_length", "lengths": [5, 0, 7, 7],
                         "resume": {"global_step": 1, "num_processes": 1, "per_device_train_batch_size": 2,
                                    "gradient_accumulation_steps": 5}})");
}

std::string error_for(const Json& config) {
  try {
    parse_trainer_config(config);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(TrainerJson, GroupByLengthBuildsTheLengthGroupedSamplerOfEachJob) {
  const TrainerCase c = parse_trainer_config(gbl_config());
  ASSERT_TRUE(c.job.loader.length_grouping.has_value());
  EXPECT_FALSE(c.job.loader.shuffle);
  EXPECT_EQ(c.job.loader.length_grouping->batch_size, 6);  // 3 x 2
  EXPECT_EQ(*c.job.loader.length_grouping->lengths, (std::vector<std::int64_t>{5, 0, 7, 7}));
  // The resumed job's Trainer builds its own: 2 x 5.
  const LoaderCase resumed = trainer_job(c, 1, 2, 5);
  EXPECT_EQ(resumed.loader.length_grouping->batch_size, 10);
  Json plain = gbl_config();
  plain["train_sampling_strategy"] = "random";
  plain.erase("lengths");
  EXPECT_FALSE(parse_trainer_config(plain).job.loader.length_grouping.has_value());
}

TEST(TrainerJson, GroupByLengthBadValuesAreNamed) {
  const auto with = [](auto change) {
    Json j = gbl_config();
    change(j);
    return error_for(j);
  };
  EXPECT_EQ(with([](Json&) {}), "");
  EXPECT_NE(with([](Json& j) { j.erase("lengths"); }).find("config.lengths: is required with train_sampling_strategy"),
            std::string::npos);
  EXPECT_NE(with([](Json& j) {
              j["lengths"] = {1, 2};
            }).find("config.lengths: must hold one length per sample: 2 given"),
            std::string::npos);
  EXPECT_NE(with([](Json& j) { j["lengths"][2] = -3; }).find("config.lengths[2]: must be >= 0"), std::string::npos);
  EXPECT_NE(with([](Json& j) { j["lengths"][0] = "5"; }).find("config.lengths[0]: must be an integer"),
            std::string::npos);
  EXPECT_NE(with([](Json& j) { j["lengths"] = 4; }).find("config.lengths: must be an array"), std::string::npos);
  EXPECT_NE(with([](Json& j) {
              j["train_sampling_strategy"] = "sequential";
            }).find("config.lengths: is read only with train_sampling_strategy \"group_by_length\""),
            std::string::npos);
  EXPECT_NE(with([](Json& j) {
              j["dataset_len"] = 0;
              j["lengths"] = Json::array();
            }).find("config.dataset_len: must be >= 1 with train_sampling_strategy \"group_by_length\""),
            std::string::npos);
  EXPECT_NE(
      with([](Json& j) { j["train_sampling_strategy"] = "batch_rebalance"; }).find("batch_rebalance is not modelled"),
      std::string::npos);
  // 4.57 spells it group_by_length=True: accepted there too.
  EXPECT_EQ(with([](Json& j) { j["transformers_version"] = "4.57"; }), "");
}

}  // namespace
}  // namespace accel::trace
