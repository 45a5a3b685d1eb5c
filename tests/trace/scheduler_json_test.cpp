// Scheduler configs: both api kinds parse, and every bad field is named with its rule.
#include <gtest/gtest.h>

#include "trace/trace_json.hpp"

namespace accel::trace {
namespace {

const char* kLoop = R"j({"api":"Accelerator.prepare+AcceleratedScheduler","num_processes":2,"gradient_accumulation_steps":4,
  "scheduler":{"kind":"linear_warmup","base_lr":0.1,"warmup_steps":3,"training_steps":30},"dataset_len":10,"batch_size":1,"epochs":2})j";

std::string error_for(Json config) {
  try {
    parse_config(config);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(SchedulerJson, BothApiKindsParse) {
  const auto loop = std::get<SchedulerCase>(parse_config(Json::parse(kLoop)));
  EXPECT_EQ(loop.api, SchedulerApi::TrainingLoop);
  EXPECT_EQ(loop.plugin.num_steps, 4);
  EXPECT_TRUE(loop.plugin.adjust_scheduler);  // the plugin's default, as the user would leave it
  EXPECT_EQ(loop.dataset_len, 10);
  const auto direct = std::get<SchedulerCase>(parse_config(Json::parse(
      R"j({"api":"AcceleratedScheduler.step(direct)","num_processes":3,"sync_pattern":[false,true],
          "scheduler":{"kind":"step","base_lr":0.1,"step_size":4,"gamma":0.5},"skipped_micro_steps":[1]})j")));
  EXPECT_EQ(direct.api, SchedulerApi::Direct);
  EXPECT_EQ(direct.sync_pattern, (std::vector<bool>{false, true}));
  EXPECT_FALSE(direct.adjust_scheduler);
  EXPECT_EQ(direct.skipped_micro_steps, (std::vector<std::int64_t>{1}));
}

TEST(SchedulerJson, BadFieldsAreNamed) {
  auto with = [](const char* key, Json value) {
    Json c = Json::parse(kLoop);
    c[key] = std::move(value);
    return c;
  };
  EXPECT_EQ(error_for(Json::parse(kLoop)), "");
  EXPECT_NE(error_for(with("num_processes", 0)).find("config.num_processes: must be >= 1"), std::string::npos);
  EXPECT_NE(error_for(with("gradient_accumulation_steps", 0)).find("config.gradient_accumulation_steps"), std::string::npos);
  EXPECT_NE(error_for(with("split_batches", "yes")).find("config.split_batches"), std::string::npos);
  EXPECT_NE(error_for(with("skipped_micro_steps", Json::array({-1}))).find("config.skipped_micro_steps"), std::string::npos);
  EXPECT_NE(error_for(with("dataset_len", nullptr)).find("config.micro_steps_per_epoch: is required"), std::string::npos);
  Json bad_kind = Json::parse(kLoop);
  bad_kind["scheduler"]["kind"] = "cyclic";
  EXPECT_NE(error_for(bad_kind).find("config.scheduler.kind"), std::string::npos);
  Json bad_lr = Json::parse(kLoop);
  bad_lr["scheduler"]["base_lr"] = "0.1";
  EXPECT_NE(error_for(bad_lr).find("config.scheduler.base_lr: must be a number"), std::string::npos);
  Json onecycle = Json::parse(kLoop);
  onecycle["scheduler"] = Json::parse(R"j({"kind":"onecycle_linear","max_lr":1.0,"total_steps":12,"pct_start":1.5})j");
  EXPECT_NE(error_for(onecycle).find("config.scheduler.pct_start"), std::string::npos);
  EXPECT_NE(error_for(Json::parse(R"j({"api":"AcceleratedScheduler.step(direct)","num_processes":1,
      "scheduler":{"kind":"step","base_lr":0.1,"step_size":1}})j")).find("config.sync_pattern: is required"),
            std::string::npos);
}

}  // namespace
}  // namespace accel::trace
