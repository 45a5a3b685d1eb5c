// Issue 18: what the config and trace readers do with hostile input. Each test is a finding of the
// bad-input campaign that used to crash, hang or answer wrongly.
#include <gtest/gtest.h>

#include <string>

#include "trace/input_limits.hpp"
#include "trace/trace_diff.hpp"
#include "trace/trace_json.hpp"

namespace accel::trace {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_config(parse_text(text, "t"));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(InputRobustness, DeepNestingIsRefusedAtParse) {
  const std::string deep = std::string(30000, '[') + std::string(30000, ']');
  try {
    parse_text(deep, "deep.json");
    FAIL() << "parsed";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("nested deeper than"), std::string::npos) << e.what();
  }
  // The limit itself parses.
  const std::string ok = std::string(kMaxJsonDepth - 1, '[') + std::string(kMaxJsonDepth - 1, ']');
  EXPECT_NO_THROW(parse_text(ok, "ok.json"));
}

TEST(InputRobustness, NumberOutsideDoubleRangeIsAConfigError) {
  try {
    parse_text(R"({"config": {"dataset_len": 1e400}})", "big.json");
    FAIL() << "parsed";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("outside the range of a double"), std::string::npos) << e.what();
  }
}

TEST(InputRobustness, DuplicateKeyIsRefusedAndNamed) {
  try {
    parse_text(R"({"dataset_len": 10, "num_processes": 2, "dataset_len": 12})", "dup.json");
    FAIL() << "parsed";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("duplicate key \"dataset_len\""), std::string::npos) << e.what();
  }
  // The same key in two different objects is fine.
  EXPECT_NO_THROW(parse_text(R"({"a": {"k": 1}, "b": {"k": 2}})", "ok.json"));
}

TEST(InputRobustness, NullOrNumberWhereAStringBelongs) {
  EXPECT_NE(error_of(R"({"api": 5, "dataset_len": 4, "num_processes": 1})").find("config.api"), std::string::npos);
  // A null api means the default (prepare_data_loader), as for every other field.
  EXPECT_EQ(error_of(R"({"api": null, "dataset_len": 4, "num_processes": 1})"), "");
  EXPECT_NE(error_of(R"({"dataset_kind": 5, "dataset_len": 4, "num_processes": 1})").find("config.dataset_kind"),
            std::string::npos);
  EXPECT_EQ(family_of(Json::parse(R"({"api": null, "dataset_kind": 5})")), "map");
}

TEST(InputRobustness, SchedulerWithoutApiIsRefused) {
  const std::string e = error_of(
      R"({"dataset_len": 8, "num_processes": 2, "scheduler": {"kind": "step", "base_lr": 0.1, "step_size": 1}})");
  EXPECT_NE(e.find("config.api"), std::string::npos) << e;
}

TEST(InputRobustness, CountsBeyondTheLimitsAreRefusedWithTheRule) {
  EXPECT_NE(error_of(R"({"dataset_len": 9223372036854775807, "num_processes": 1})").find("config.dataset_len: must be <="),
            std::string::npos);
  // Above int64: read unsigned, it must not wrap to a negative number.
  EXPECT_NE(error_of(R"({"dataset_len": 18446744073709551615, "num_processes": 1})").find("must be <="),
            std::string::npos);
  EXPECT_NE(error_of(R"({"dataset_len": 8, "num_processes": 100000000})").find("config.num_processes: must be <="),
            std::string::npos);
  EXPECT_NE(error_of(R"({"dataset_len": 8, "num_processes": 65536, "batch_size": 1099511627776})")
                .find("config.batch_size: times num_processes"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"dataset_len": 8, "num_processes": 1, "epochs": 100000000})").find("config.epochs: must be <="),
            std::string::npos);
  EXPECT_NE(error_of(R"({"dataset_len": 8, "num_processes": 1, "skip_first_batches": 9223372036854775807})")
                .find("config.skip_first_batches"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"dataset_len": 8, "num_processes": 1, "set_epoch": [9223372036854775807]})").find("config.set_epoch"),
            std::string::npos);
  EXPECT_EQ(error_of(R"({"dataset_len": 1099511627776, "num_processes": 65536, "batch_size": 16777216})"), "");
}

TEST(InputRobustness, DiffComparesSignedAndUnsignedExactly) {
  // Parsed: 2^63 is unsigned, -2^63 signed; 2^64-1 unsigned, -1 signed. A cast made each pair equal.
  EXPECT_TRUE(first_divergence(Json::parse("[9223372036854775808]"), Json::parse("[-9223372036854775808]")));
  EXPECT_TRUE(first_divergence(Json::parse("[18446744073709551615]"), Json::parse("[-1]")));
  // In-memory int64 against a parsed unsigned of the same value: equal.
  EXPECT_FALSE(first_divergence(Json::array({std::int64_t{5}}), Json::parse("[5]")));
  EXPECT_FALSE(first_divergence(Json::parse("[-3]"), Json::array({std::int64_t{-3}})));
}

TEST(InputRobustness, DiffLocationOfALongPathNeedsNoRecursion) {
  // std::regex recursed per digit: a path with a 200,000-digit index overflowed the stack.
  const std::string digits(200000, '7');
  Json a = Json::object(), b = Json::object();
  const std::string key = "batches[" + digits + "]";
  a["ranks"] = Json::array({Json::object({{"epochs", Json::array({Json::object({{key, 1}})})}})});
  b["ranks"] = Json::array({Json::object({{"epochs", Json::array({Json::object({{key, 2}})})}})});
  const auto d = first_divergence(a, b);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->location, "rank 0, epoch 0, batch " + digits);
  Json c = Json::parse(R"({"ranks":[{"steps":[{"lr":1}]}]})"), e = Json::parse(R"({"ranks":[{"steps":[{"lr":2}]}]})");
  EXPECT_EQ(first_divergence(c, e)->location, "rank 0, step 0");
}

TEST(InputRobustness, ReadInputIsBounded) {
  try {
    read_input("/dev/zero");
    FAIL() << "read";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("larger than"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_input("/nonexistent/file.json"), ConfigError);
}

}  // namespace
}  // namespace accel::trace
