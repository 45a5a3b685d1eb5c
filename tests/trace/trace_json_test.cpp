// Config parsing: every bad field is named with its rule.
#include <gtest/gtest.h>

#include "trace/trace_json.hpp"

namespace accel::trace {
namespace {

std::string error_for(const std::string& text) {
  try {
    parse_config(Json::parse(text));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(TraceJson, BadFieldsAreNamed) {
  EXPECT_NE(error_for(R"({"num_processes":2})").find("config.dataset_len: is required"), std::string::npos);
  EXPECT_NE(error_for(R"({"dataset_len":"10","num_processes":2})").find("config.dataset_len: must be an integer"),
            std::string::npos);
  EXPECT_NE(error_for(R"({"dataset_len":10,"num_processes":0})").find("config.num_processes: must be >= 1"),
            std::string::npos);
  EXPECT_NE(error_for(R"({"dataset_len":10,"num_processes":2,"even_batches":1})").find("config.even_batches"),
            std::string::npos);
  EXPECT_NE(error_for(R"({"dataset_len":10,"num_processes":2,"schedule":["x"]})").find("config.schedule"),
            std::string::npos);
  EXPECT_EQ(error_for(R"({"dataset_len":10,"num_processes":2})"), "");
}

// Issue 31: a key no parser reads is refused with the nearest known key, in every family, so the case the
// user meant is never silently replaced by another.
TEST(TraceJson, UnknownKeysAreRefusedWithTheNearestKnownOne) {
  EXPECT_NE(error_for(R"({"dataset_len":10,"num_processes":2,"shufle":true})")
                .find("config.shufle: is not a field of this config (did you mean `shuffle`?)"),
            std::string::npos)
      << error_for(R"({"dataset_len":10,"num_processes":2,"shufle":true})");
  EXPECT_NE(error_for(R"({"dataset_len":10,"num_processes":2,"use_stateful_dataloader":true})")
                .find("config.use_stateful_dataloader: is an Accelerator / DataLoaderConfiguration option"),
            std::string::npos);
  EXPECT_NE(
      error_for(R"({"api":"SeedableRandomSampler","n":5,"epochs":1,"data_sed":3})").find("did you mean `data_seed`?"),
      std::string::npos);
  EXPECT_NE(error_for(R"({"api":"BatchSamplerShard","batch_sampler":[[0]],"num_processes":1,"even_batch":true})")
                .find("config.even_batch: is not a field"),
            std::string::npos);
  const std::string scheduler =
      R"j({"api":"AcceleratedScheduler.step(direct)","num_processes":2,"sync_pattern":[true],"scheduler":{"kind":"step","base_lr":1,"step_size":1,"gama":0.5}})j";
  EXPECT_NE(error_for(scheduler).find("config.scheduler.gama: is not a field of this config (did you mean `gamma`?)"),
            std::string::npos)
      << error_for(scheduler);
  const std::string metrics =
      R"({"api":"accelerator+gather_for_metrics","dataset_len":4,"num_processes":2,"accelerator":{},"brake_after":1})";
  EXPECT_NE(error_for(metrics).find("did you mean `break_after`?"), std::string::npos) << error_for(metrics);
  // Nothing near: the message lists what is read instead.
  EXPECT_NE(error_for(R"({"dataset_len":10,"num_processes":2,"zzzzzzzzzz":1})")
                .find("the fields read here are accelerate_version, api, batch_size"),
            std::string::npos);
}

TEST(TraceJson, UnknownApiIsNamed) {
  EXPECT_NE(error_for(R"j({"api":"Accelerator.gather_for_metrics","dataset_len":4,"num_processes":2})j")
                .find("config.api: unknown \"Accelerator.gather_for_metrics\""),
            std::string::npos);
  EXPECT_NE(error_for(R"j({"api":7,"dataset_len":4,"num_processes":2})j").find("config.api: must be a string"),
            std::string::npos);
  const auto c = parse_config(Json::parse(R"j({"dataset_kind":"iterable","dataset_len":4,"num_processes":2})j"));
  EXPECT_TRUE(std::holds_alternative<LoaderCase>(c));
}

TEST(TraceJson, BrokenJsonIsAConfigError) {
  EXPECT_THROW(parse_text("{\"a\": ", "f.json"), ConfigError);
}

}  // namespace
// A recording is simulated on the release it names: the default is the newest release, while the golden sets without
// config.accelerate_version were recorded on 1.15.0 (and some on "1.15.0.dev0").
TEST(TraceJson, ConfigAsRecordedNamesTheRecordingsRelease) {
  const Json unversioned = Json::parse(R"({"config": {"dataset_len": 10, "num_processes": 2},
                                           "reference": {"accelerate_version": "1.15.0.dev0", "torch": "1.13.0a0"}})");
  const Json c = config_as_recorded(unversioned);
  EXPECT_EQ(c["accelerate_version"], "1.15.0");
  EXPECT_FALSE(c.contains("torch_version")) << "an unversioned set keeps its own torch_version";
  EXPECT_EQ(parse_loader_config(c, {}).prepare.release, (AccelerateRelease{1, 15, 0}));
  EXPECT_EQ(parse_loader_config(unversioned["config"], {}).prepare.release, kNewestRelease) << "no reference: newest";
  // A config naming its release keeps it, and gets the recording's torch.
  Json versioned = unversioned;
  versioned["config"]["accelerate_version"] = "0.28.0";
  EXPECT_EQ(config_as_recorded(versioned)["accelerate_version"], "0.28.0");
  EXPECT_EQ(config_as_recorded(versioned)["torch_version"], "1.13");
  // Families whose configs take no release are left alone.
  const Json bss = Json::parse(R"({"config": {"api": "BatchSamplerShard", "num_processes": 2},
                                   "reference": {"accelerate_version": "1.15.0"}})");
  EXPECT_FALSE(config_as_recorded(bss).contains("accelerate_version"));
  const Json trainer = Json::parse(R"({"config": {"api": "trainer", "dataset_len": 4},
                                       "reference": {"accelerate_version": "1.15.0"}})");
  EXPECT_FALSE(config_as_recorded(trainer).contains("accelerate_version"));
  // torch 1.13 without a release: the newest that runs on it (1.16.0 requires torch >= 2.6).
  const Json old_torch = Json::parse(R"({"dataset_len": 10, "num_processes": 2, "torch_version": "1.13"})");
  EXPECT_EQ(parse_loader_config(old_torch, {}).prepare.release, (AccelerateRelease{1, 15, 0}));
}

}  // namespace accel::trace
