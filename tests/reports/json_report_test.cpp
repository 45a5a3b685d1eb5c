// The JSON renderer lays out the what-if model (docs/report-json.md).
#include <gtest/gtest.h>

#include "analysis/eval_metrics.hpp"
#include "analysis/what_if.hpp"
#include "reports/eval_render.hpp"
#include "reports/json_report.hpp"
#include "tests/support/loader_configs.hpp"
#include "trace/trace_json.hpp"

namespace accel::reports {
namespace {

using testing::map_case;

trace::MetricsCase accelerator_case(trace::Json config) {
  config["api"] = "accelerator";
  if (!config.contains("batch_size")) config["batch_size"] = 1;
  trace::MetricsCase m;
  m.loader = std::get<trace::LoaderCase>(trace::parse_config(config));
  return m;
}

TEST(JsonReport, CarriesTheModel) {
  const analysis::WhatIfReport r = analysis::what_if(map_case(64, 1001, 1));
  const auto j = render_json(r);
  EXPECT_EQ(j["report_version"], 2);
  EXPECT_EQ(j["num_processes"], 64);
  EXPECT_EQ(j["scenarios"][0]["duplicated"], 23);
  EXPECT_EQ(j["scenarios"][0]["steps_per_rank"].size(), 64u);
  EXPECT_EQ(j["scenarios"][1]["short_ranks"].size(), 23u);
  EXPECT_EQ(j["warnings"].size(), r.warnings.size());
}

TEST(EvalRender, JsonCarriesTheCounts) {
  const analysis::EvalReport r = analysis::eval_report(accelerator_case(
      {{"num_processes", 2}, {"dataset_len", 10}, {"batch_size", 3}, {"dataset_kind", "iterable"},
       {"accelerator", {{"dispatch_batches", false}}}}));
  const trace::Json j = render_eval_json(r);
  EXPECT_EQ(j["metric_samples"], 12);
  EXPECT_EQ(j["metric_duplicates"]["count"], 2);
  EXPECT_EQ(j["metric_missing"]["count"], 0);
  EXPECT_EQ(j["exact"], false);
  EXPECT_FALSE(j["verified_fixes"].empty());
}

}  // namespace
}  // namespace accel::reports
