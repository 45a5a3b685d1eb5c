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
}  // namespace accel::trace
